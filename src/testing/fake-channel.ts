import type { Channel, DeliveryInfo } from '../notify/channel.ts';
import type { NotificationMessage } from '../notify/message.ts';

/** A channel that records what it was sent, for tests of routing and delivery. */
export interface RecordingChannel extends Channel {
  readonly sent: Array<{ message: NotificationMessage; delivery: DeliveryInfo | undefined }>;
  /** Make the next sends throw this error message, or succeed again with null. */
  failWith(error: string | null): void;
}

/**
 * An in-memory {@link Channel}: the fake notifier of the testing entry point.
 * @example
 * const ch = recordingChannel('slack');
 * const notifier = createNotifier({ interlock: il, baseUrl, routing: { channels: { slack: ch }, default: ['slack'] } });
 */
export function recordingChannel(name = 'recording'): RecordingChannel {
  const sent: RecordingChannel['sent'] = [];
  let error: string | null = null;
  return {
    name,
    sent,
    failWith(e) {
      error = e;
    },
    async send(message, delivery) {
      if (error !== null) throw new Error(error);
      sent.push({ message, delivery });
    },
  };
}
