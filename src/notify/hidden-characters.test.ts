import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startFakeHttpServer, type FakeHttpServer } from '../testing/fake-http.ts';
import { hostileMessage } from '../testing/hostile-message.ts';
import { emailMessage } from './email-message.ts';
import { slackMessage } from './slack-message.ts';
import { webhookChannel, type WebhookBody } from './webhook-channel.ts';

// "\u202e24-CCA" reads as "ACC-42"; "\u202eEGASSEM" as "MESSAGE".
const spoofed = () =>
  hostileMessage({ args: { to: '\u202e24-CCA', amount: 40, ['no\u200bte']: 'x' }, reason: 'pay \u202eEGASSEM' });
const MARKED = '⟨U+202E RIGHT-TO-LEFT OVERRIDE⟩24-CCA';

describe('notifications show hidden characters', () => {
  it('Slack: the arguments and reason are marked, a warning block names the characters, no raw override is sent', () => {
    const p = slackMessage(spoofed());
    const all = JSON.stringify(p);
    assert.ok(all.includes(MARKED), 'the payee is marked');
    assert.ok(all.includes('pay ⟨U+202E RIGHT-TO-LEFT OVERRIDE⟩EGASSEM'), 'the reason is marked');
    assert.ok(all.includes('no⟨U+200B ZERO WIDTH SPACE⟩te'), 'a key is marked');
    assert.match(
      all,
      /:warning: \*Warning: the arguments contain hidden characters \(U\+202E RIGHT-TO-LEFT OVERRIDE, U\+200B ZERO WIDTH SPACE\)/,
    );
    assert.ok(!/[\u202e\u200b]/.test(all), 'no hidden character reaches Slack');
  });

  it('e-mail: subject, text and HTML bodies are marked and carry the warning', () => {
    const e = emailMessage(spoofed());
    for (const part of [e.text, e.html]) {
      assert.ok(part.includes(MARKED), part);
      assert.match(part, /Warning: the arguments contain hidden characters \(U\+202E RIGHT-TO-LEFT OVERRIDE/);
      assert.ok(!/[\u202e\u200b]/.test(part));
    }
    assert.match(e.text, /Reason: pay ⟨U\+202E RIGHT-TO-LEFT OVERRIDE⟩EGASSEM/);
    const subject = emailMessage(hostileMessage({ tool: 'pay\u202e' })).subject;
    assert.match(subject, /pay⟨U\+202E RIGHT-TO-LEFT OVERRIDE⟩/);
  });

  it('a message without hidden characters has no warning', () => {
    assert.ok(!JSON.stringify(slackMessage(hostileMessage())).includes('hidden characters'));
    assert.ok(!emailMessage(hostileMessage()).text.includes('hidden characters'));
  });

  describe('webhook', () => {
    let server: FakeHttpServer;
    before(async () => {
      server = await startFakeHttpServer(() => ({ status: 204 }));
    });
    after(() => server.close());

    it('keeps the exact arguments in message and adds a revealed summary naming the characters', async () => {
      const hook = webhookChannel({ url: `${server.url}/hook`, secret: 'test-secret-0123456789abcdef' });
      await hook.send(spoofed(), { deliveryId: 'job_1', attempt: 1 });
      const body = server.received.at(-1)!.json() as WebhookBody;
      assert.equal(body.message.args.to, '\u202e24-CCA', 'the data keeps the original bytes');
      assert.deepEqual(body.summary.hiddenCharacters, ['U+202E RIGHT-TO-LEFT OVERRIDE', 'U+200B ZERO WIDTH SPACE']);
      assert.deepEqual(
        body.summary.args.find((a) => a.key === 'to'),
        { key: 'to', value: MARKED },
      );
      assert.equal(body.summary.reason, 'pay ⟨U+202E RIGHT-TO-LEFT OVERRIDE⟩EGASSEM');
      assert.equal(body.summary.headline, 'Approval needed: issue_refund');
    });
  });
});
