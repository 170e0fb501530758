import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError } from '../core/index.ts';
import { startFakeHttpServer, type FakeHttpServer } from '../testing/fake-http.ts';
import { DeliveryError } from './delivery-error.ts';
import { fyiMessage } from './message.ts';
import { slackChannel } from './slack-channel.ts';
import type { SlackBlock, SlackPayload, SlackText } from './slack-message.ts';
import { hostileMessage } from '../testing/hostile-message.ts';

/** Every text object of a payload, wherever it sits. */
function texts(p: SlackPayload): SlackText[] {
  const out: SlackText[] = [];
  for (const b of p.blocks) {
    if (b.type === 'header') out.push(b.text);
    if (b.type === 'section') out.push(...(b.text ? [b.text] : []), ...(b.fields ?? []));
    if (b.type === 'context') out.push(...b.elements);
    if (b.type === 'actions') out.push(...b.elements.map((e) => e.text));
  }
  return out;
}

/** A Slack-like receiver: checks the Block Kit shape the way Slack would refuse it. */
function slackLike(req: { json(): unknown; headers: Record<string, unknown> }): { status: number; body: string } {
  const p = req.json() as SlackPayload;
  if (typeof p.text !== 'string' || !Array.isArray(p.blocks) || p.blocks.length > 50)
    return { status: 400, body: 'invalid_blocks' };
  for (const b of p.blocks) {
    if (b.type === 'header' && (b.text.type !== 'plain_text' || b.text.text.length > 150))
      return { status: 400, body: 'invalid_blocks' };
    if (b.type === 'section' && b.text && b.text.text.length > 3000) return { status: 400, body: 'invalid_blocks' };
    if (b.type === 'section' && (b.fields?.length ?? 0) > 10) return { status: 400, body: 'invalid_blocks' };
  }
  return { status: 200, body: 'ok' };
}

describe('slackChannel', () => {
  let slack: FakeHttpServer;
  before(async () => {
    slack = await startFakeHttpServer(slackLike);
  });
  after(() => slack.close());

  it('posts a Block Kit message with the trusted fields and a Review button', async () => {
    const ch = slackChannel({ webhookUrl: `${slack.url}/services/T0/B0/XXXX` });
    const n = slack.received.length;
    await ch.send(hostileMessage());
    const req = slack.received[n]!;
    assert.equal(req.path, '/services/T0/B0/XXXX');
    const p = req.json() as SlackPayload;
    assert.deepEqual(
      p.blocks.map((b) => b.type),
      ['header', 'section', 'section', 'section', 'actions', 'context'],
    );
    const header = p.blocks[0] as Extract<SlackBlock, { type: 'header' }>;
    assert.deepEqual(header.text, { type: 'plain_text', text: 'Approval needed: issue_refund', emoji: false });
    const fields = (p.blocks[2] as Extract<SlackBlock, { type: 'section' }>).fields!.map((f) => f.text);
    assert.deepEqual(fields.slice(0, 4), [
      '*Tool*\nissue_refund',
      '*Amount*\n850 USD',
      '*Required role*\nsupervisor',
      '*Approvals*\n2 different reviewers',
    ]);
    assert.equal(fields[4], '*Expires*\n<!date^1767609000^{date_short_pretty} {time}|2026-01-05 10:30 UTC>');
    assert.match((p.blocks[1] as Extract<SlackBlock, { type: 'section' }>).text!.text, /\*Reason:\* refund over \$500/);
    const actions = p.blocks[4] as Extract<SlackBlock, { type: 'actions' }>;
    assert.equal(actions.elements[0]!.url, 'https://interlock.example.com/approvals/apr_test1');
    assert.equal(actions.elements[0]!.text.text, 'Review');
    assert.match(p.text, /Approval needed: issue_refund \(role supervisor\)/);
  });

  it('escapes untrusted arguments so no markup, link or mention can form', async () => {
    const ch = slackChannel({ webhookUrl: slack.url });
    const n = slack.received.length;
    await ch.send(hostileMessage());
    const p = slack.received[n]!.json() as SlackPayload;
    const argsText = (p.blocks[3] as Extract<SlackBlock, { type: 'section' }>).text!;
    assert.equal(argsText.verbatim, true, 'URLs and names are not auto-linked');
    assert.match(
      argsText.text,
      /&lt;script&gt;alert\(1\)&lt;\/script&gt; &amp; &lt;!channel&gt; &lt;https:\/\/evil\.example\|click to approve&gt;/,
    );
    for (const t of texts(p)) {
      assert.doesNotMatch(t.text, /<script|<!channel>|<https:\/\/evil/, `unescaped text in ${JSON.stringify(t)}`);
      if (t.type === 'mrkdwn' && !t.text.startsWith('*Expires*'))
        assert.equal(t.verbatim, true, 'text with untrusted parts is verbatim');
    }
    // The only control tokens are the ones we build from trusted values.
    const raw = slack.received[n]!.body.toString('utf8');
    assert.deepEqual(raw.match(/<[^<>]*>/g), ['<!date^1767609000^{date_short_pretty} {time}|2026-01-05 10:30 UTC>']);
  });

  it('sends FYI messages without a button when there is nothing to open', async () => {
    const ch = slackChannel({ webhookUrl: slack.url });
    const n = slack.received.length;
    await ch.send(
      fyiMessage(
        {
          id: 'job_9',
          threadId: null,
          requestId: null,
          payload: { role: 'finance', fyi: true, tool: 'send_invoice', args: { amount: 20 } },
        },
        'https://il.example',
      ),
    );
    const p = slack.received[n]!.json() as SlackPayload;
    assert.ok(!p.blocks.some((b) => b.type === 'actions'));
    assert.equal((p.blocks[0] as Extract<SlackBlock, { type: 'header' }>).text.text, 'FYI: send_invoice ran');
  });

  it('keeps oversized arguments inside Slack limits', async () => {
    const ch = slackChannel({ webhookUrl: slack.url });
    const args: Record<string, unknown> = {};
    for (let i = 0; i < 30; i++) args[`k${i}`] = '<'.repeat(500);
    await ch.send(hostileMessage({ args, tool: 'x'.repeat(400) }));
  });

  it('throws when Slack refuses the payload', async () => {
    slack.answer({ status: 400, body: 'invalid_payload' });
    try {
      await assert.rejects(
        slackChannel({ webhookUrl: slack.url }).send(hostileMessage()),
        (e: Error) => e instanceof DeliveryError && /HTTP 400 \(invalid_payload\)/.test(e.message),
      );
    } finally {
      slack.answer(slackLike);
    }
  });

  it('validates the webhook URL at creation', () => {
    assert.throws(
      () => slackChannel({ webhookUrl: 'hooks.slack.com/services/x' }),
      (e: Error) => e instanceof ConfigError && /incoming webhook URL Slack gave you/.test(e.message),
    );
  });
});
