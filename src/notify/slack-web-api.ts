import { DEFAULT_CHANNEL_TIMEOUT_MS } from './channel.ts';
import { DeliveryError } from './delivery-error.ts';

/** One Web API call of the Slack app (`chat.postMessage`, `chat.update`, …); its JSON answer. */
export type SlackCall = (method: string, body: Record<string, unknown>) => Promise<Record<string, unknown>>;

/**
 * Slack's Web API with the app's bot token, over plain `fetch`. Slack answers 200 with
 * `ok: false` for its own errors: those, like a network failure, throw a {@link DeliveryError}.
 */
export function slackWebApi(apiUrl: string, botToken: string, timeoutMs?: number): SlackCall {
  const api = apiUrl.replace(/\/+$/, '');
  return async (method, body) => {
    let res: Response;
    try {
      res = await fetch(`${api}/${method}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json; charset=utf-8', Authorization: `Bearer ${botToken}` },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs ?? DEFAULT_CHANNEL_TIMEOUT_MS),
      });
    } catch (err) {
      throw new DeliveryError('slack', `${method}: ${err instanceof Error ? err.message : String(err)}`, {
        cause: err,
      });
    }
    const json = (await res.json().catch(() => ({}))) as Record<string, unknown>;
    if (!res.ok || json.ok !== true)
      throw new DeliveryError(
        'slack',
        `${method}: ${typeof json.error === 'string' ? json.error : `HTTP ${res.status}`}`,
        {
          status: res.status,
        },
      );
    return json;
  };
}
