import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError } from '../core/index.ts';
import { startFakeSmtpServer, type FakeSmtpServer } from '../testing/fake-smtp.ts';
import { DeliveryError } from './delivery-error.ts';
import { emailChannel } from './email-channel.ts';
import { hostileMessage } from '../testing/hostile-message.ts';

describe('emailChannel', () => {
  let smtp: FakeSmtpServer;
  before(async () => {
    smtp = await startFakeSmtpServer();
  });
  after(() => smtp.close());

  it('sends text and HTML bodies with the review link to every recipient', async () => {
    const mail = emailChannel({
      host: smtp.host,
      port: smtp.port,
      from: 'Interlock <interlock@example.com>',
      to: ['lead@example.com', 'finance@example.com'],
    });
    const n = smtp.mails.length;
    await mail.send(hostileMessage(), { deliveryId: 'job_42', attempt: 1 });
    const m = (await smtp.waitFor(n + 1))[n]!;
    assert.equal(m.from, 'interlock@example.com');
    assert.deepEqual(m.to, ['lead@example.com', 'finance@example.com']);
    assert.equal(m.subject, '[Interlock] Approval needed: issue_refund (supervisor)');
    assert.equal(m.headers.get('x-interlock-delivery'), 'job_42');
    assert.equal(m.headers.get('x-interlock-request'), 'apr_test1');
    assert.equal(m.headers.get('message-id'), '<job_42@example.com>');

    assert.match(m.text, /Review and decide: https:\/\/interlock\.example\.com\/approvals\/apr_test1/);
    assert.match(m.text, /Amount: 850 USD/);
    assert.match(m.text, /Required role: supervisor/);
    assert.match(m.text, /Approvals: 2 different reviewers/);
    assert.match(m.text, /Expires: 2026-01-05 10:30 UTC/);

    assert.match(
      m.html,
      /<a href="https:\/\/interlock\.example\.com\/approvals\/apr_test1"[^>]*>Review and decide<\/a>/,
    );
    assert.match(m.html, /Reason<\/th><td[^>]*>refund over \$500<\/td>/);
  });

  it('escapes HTML and script in the arguments', async () => {
    const mail = emailChannel({
      host: smtp.host,
      port: smtp.port,
      from: 'interlock@example.com',
      to: ['lead@example.com'],
    });
    const n = smtp.mails.length;
    await mail.send(hostileMessage({ tool: 'issue_refund<img src=x onerror=alert(1)>' }));
    const m = (await smtp.waitFor(n + 1))[n]!;
    assert.match(
      m.html,
      /&lt;script&gt;alert\(1\)&lt;\/script&gt; &amp; &lt;!channel&gt; &lt;https:\/\/evil\.example\|click to approve&gt; &quot;quoted&quot; &#39;single&#39;/,
    );
    assert.match(m.html, /issue_refund&lt;img src=x onerror=alert\(1\)&gt;/);
    assert.doesNotMatch(m.html, /<script|<img|<!channel>|<https:/);
    // The only links are the review link.
    assert.deepEqual(m.html.match(/href="[^"]*"/g), ['href="https://interlock.example.com/approvals/apr_test1"']);
    assert.match(m.text, /note: <script>alert\(1\)<\/script>/, 'the text body shows the arguments as written');
  });

  it('accepts nodemailer SMTP options as "transport"', async () => {
    const mail = emailChannel({
      transport: { host: smtp.host, port: smtp.port, secure: false },
      from: 'interlock@example.com',
      to: ['lead@example.com'],
    });
    const n = smtp.mails.length;
    await mail.send(hostileMessage());
    await smtp.waitFor(n + 1);
  });

  it('throws a DeliveryError when the server refuses the message', async () => {
    smtp.failWith(451);
    try {
      const mail = emailChannel({
        host: smtp.host,
        port: smtp.port,
        from: 'interlock@example.com',
        to: ['lead@example.com'],
      });
      await assert.rejects(
        mail.send(hostileMessage()),
        (e: Error) => e instanceof DeliveryError && /^email: SMTP send failed/.test(e.message),
      );
    } finally {
      smtp.failWith(null);
    }
  });

  it('validates options at creation', () => {
    assert.throws(
      () => emailChannel({ from: 'a@example.com', to: ['b@example.com'] }),
      (e: Error) => e instanceof ConfigError && /either "transport".*or "host"/.test(e.message),
    );
    assert.throws(
      () => emailChannel({ host: 'smtp.example.com', from: 'a@example.com', to: [] }),
      (e: Error) => e instanceof ConfigError && /to: needs at least one recipient/.test(e.message),
    );
    assert.throws(
      () => emailChannel({ host: 'smtp.example.com', from: 'nobody', to: ['b@example.com'] }),
      (e: Error) => e instanceof ConfigError && /from: must be an e-mail address/.test(e.message),
    );
  });
});
