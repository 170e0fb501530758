/**
 * Notifications: channels (webhook, Slack, e-mail), routing by reviewer role,
 * and delivery of the engine's notification outbox with retries.
 */
export * from './message.ts';
export * from './channel.ts';
export * from './delivery-error.ts';
export * from './escape.ts';
export * from './summary.ts';
export * from './webhook-signature.ts';
export * from './webhook-channel.ts';
export * from './slack-message.ts';
export * from './slack-channel.ts';
export * from './slack-app.ts';
export {
  requestMessage as slackRequestMessage,
  decidedMessage as slackDecidedMessage,
  messageModal as slackMessageModal,
  ACTIONS as SLACK_ACTIONS,
  type ButtonValue as SlackButtonValue,
} from './slack-interactive.ts';
export * from './email-message.ts';
export * from './email-channel.ts';
export * from './routing.ts';
export * from './backoff.ts';
export * from './notifier.ts';
