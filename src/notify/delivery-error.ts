import { InterlockSystemError } from '../core/index.ts';

/**
 * A channel's receiver refused or did not answer. The notifier retries the
 * delivery; the message never contains the channel's secret URL or keys.
 */
export class DeliveryError extends InterlockSystemError {
  /** What went wrong, without the channel name the message starts with. */
  readonly reason: string;

  constructor(channel: string, reason: string, opts: { status?: number; cause?: unknown } = {}) {
    super('delivery_failed', `${channel}: ${reason}`, {
      details: opts.status === undefined ? { channel } : { channel, httpStatus: opts.status },
      cause: opts.cause,
    });
    this.reason = reason;
  }
}
