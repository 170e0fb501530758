import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError } from '../core/index.ts';
import { startFakeHttpServer, type FakeHttpServer } from '../testing/fake-http.ts';
import { DeliveryError } from './delivery-error.ts';
import { hostileMessage } from '../testing/hostile-message.ts';
import { webhookChannel, type WebhookBody } from './webhook-channel.ts';
import { signWebhookBody, verifyWebhookSignature } from './webhook-signature.ts';

const SECRET = 'test-secret-0123456789abcdef';

describe('webhookChannel', () => {
  let server: FakeHttpServer;
  before(async () => {
    server = await startFakeHttpServer();
  });
  after(() => server.close());

  it('posts signed JSON that the receiver verifies with verifyWebhookSignature', async () => {
    server.answer((req) =>
      verifyWebhookSignature(req.body, req.headers['x-interlock-signature'], SECRET)
        ? { status: 204 }
        : { status: 401, body: 'bad signature' },
    );
    const hook = webhookChannel({ url: `${server.url}/hooks/interlock`, secret: SECRET, now: () => 1_767_607_200_000 });
    const n = server.received.length;
    await hook.send(hostileMessage(), { deliveryId: 'job_1', attempt: 1 });
    const req = server.received[n]!;
    assert.equal(req.method, 'POST');
    assert.equal(req.path, '/hooks/interlock');
    assert.equal(req.headers['content-type'], 'application/json');
    assert.match(String(req.headers['x-interlock-signature']), /^sha256=[0-9a-f]{64}$/);
    assert.equal(req.headers['x-interlock-timestamp'], '1767607200000');
    assert.equal(req.headers['x-interlock-delivery'], 'job_1');
    const body = req.json() as WebhookBody;
    assert.equal(body.schemaVersion, 1);
    assert.equal(body.type, 'approval_requested');
    assert.equal(body.deliveryId, 'job_1');
    assert.equal(body.sentAt, 1_767_607_200_000, 'the timestamp is inside the signed body too');
    assert.equal(body.message.reviewUrl, 'https://interlock.example.com/approvals/apr_test1');
    assert.deepEqual(body.message.args, hostileMessage().args, 'JSON carries the arguments as data');
  });

  it('fails when the receiver refuses the signature (wrong secret)', async () => {
    server.answer((req) =>
      verifyWebhookSignature(req.body, req.headers['x-interlock-signature'], SECRET)
        ? { status: 200 }
        : { status: 401, body: 'bad signature' },
    );
    const hook = webhookChannel({ url: server.url, secret: 'another-secret-0123456789' });
    await assert.rejects(hook.send(hostileMessage()), (e: DeliveryError) => {
      assert.ok(e instanceof DeliveryError);
      assert.equal(e.details.httpStatus, 401);
      assert.match(e.message, /HTTP 401 \(bad signature\)/);
      return true;
    });
  });

  it('throws on a 500 without leaking the URL path', async () => {
    server.answer({ status: 500, body: 'boom' });
    const hook = webhookChannel({ url: `${server.url}/secret-token-path`, secret: SECRET });
    await assert.rejects(hook.send(hostileMessage()), (e: Error) => {
      assert.ok(e instanceof DeliveryError);
      assert.match(e.message, /^webhook: http:\/\/127\.0\.0\.1:\d+ answered HTTP 500 \(boom\)/);
      assert.doesNotMatch(e.message, /secret-token-path/);
      return true;
    });
  });

  it('times out on a receiver that never answers', async () => {
    server.answer('hang');
    const hook = webhookChannel({ url: server.url, secret: SECRET, timeoutMs: 200 });
    const started = Date.now();
    await assert.rejects(hook.send(hostileMessage()), /did not answer within 200 ms/);
    assert.ok(Date.now() - started < 2_000);
  });

  it('throws when nothing listens', async () => {
    const gone = await startFakeHttpServer();
    await gone.close();
    const hook = webhookChannel({ url: gone.url, secret: SECRET });
    await assert.rejects(hook.send(hostileMessage()), /could not reach http:\/\/127\.0\.0\.1/);
  });

  it('validates options at creation with a message saying how to fix them', () => {
    assert.throws(
      () => webhookChannel({ url: 'ftp://x', secret: SECRET }),
      (e: Error) => e instanceof ConfigError && /url: must be an http\(s\) URL/.test(e.message),
    );
    assert.throws(
      () => webhookChannel({ url: 'https://x.example', secret: 'short' }),
      (e: Error) => e instanceof ConfigError && /openssl rand -hex 32/.test(e.message),
    );
  });
});

describe('verifyWebhookSignature', () => {
  const body = '{"a":1}';
  it('accepts the signature of the exact bytes and refuses anything else', () => {
    const sig = signWebhookBody(body, SECRET);
    assert.equal(verifyWebhookSignature(body, sig, SECRET), true);
    assert.equal(
      verifyWebhookSignature(Buffer.from(body), sig.toUpperCase().replace('SHA256=', 'sha256='), SECRET),
      true,
      'hex case does not matter',
    );
    assert.equal(verifyWebhookSignature('{"a":2}', sig, SECRET), false, 'tampered body');
    assert.equal(verifyWebhookSignature(body, sig, 'wrong-secret-0123456789'), false, 'wrong secret');
    assert.equal(verifyWebhookSignature(body, sig.slice(7), SECRET), false, 'missing sha256= prefix');
    assert.equal(verifyWebhookSignature(body, `${sig}00`, SECRET), false, 'longer header');
    assert.equal(verifyWebhookSignature(body, undefined, SECRET), false, 'no header');
    assert.equal(verifyWebhookSignature(body, [sig], SECRET), false, 'repeated header');
    assert.equal(verifyWebhookSignature(body, sig, ''), false, 'empty secret never verifies');
  });
});
