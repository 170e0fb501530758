import type { NotificationMessage } from './message.ts';

/** About one delivery attempt, for receivers that deduplicate. */
export interface DeliveryInfo {
  /**
   * Stable across retries of the same notification (the outbox job id). A
   * receiver that saw it already can drop the duplicate.
   */
  deliveryId: string;
  /** 1 for the first attempt. */
  attempt: number;
}

/**
 * Somewhere reviewers are told: a webhook, a Slack channel, a mailbox.
 * `send` resolves once the receiver accepted the message and throws otherwise,
 * so the notifier can retry.
 * @example
 * const log: Channel = { name: 'log', send: async (m) => console.log(m.kind, m.reviewUrl) };
 */
export interface Channel {
  readonly name: string;
  send(message: NotificationMessage, delivery?: DeliveryInfo): Promise<void>;
}

/** Default time a channel waits for its receiver. */
export const DEFAULT_CHANNEL_TIMEOUT_MS = 5_000;
