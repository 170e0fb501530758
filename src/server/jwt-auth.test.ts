import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { withJwtAuth } from './jwt-auth.ts';
import type { ReviewerAuth } from './auth.ts';

describe('JWT reviewer auth against a local JWKS', () => {
  let server: Server;
  let jwksUrl: string;
  let key: CryptoKey;
  let otherKey: CryptoKey;
  const base: ReviewerAuth = {
    verifyToken: async (t) =>
      t === 'il_local'
        ? { ok: true, reviewer: { id: 'rev_1', name: 'Local', roles: ['supervisor'] } }
        : { ok: false, reason: 'invalid' },
  };

  before(async () => {
    const pair = await generateKeyPair('ES256');
    key = pair.privateKey;
    otherKey = (await generateKeyPair('ES256')).privateKey;
    const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
    server = createServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] })),
    );
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    jwksUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`;
  });
  after(() => new Promise<void>((r) => server.close(() => r())));

  const sign = (claims: Record<string, unknown>, k = key, exp = '5m', iss = 'https://id.test/', aud = 'interlock') =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
      .setSubject('u-42')
      .setIssuer(iss)
      .setAudience(aud)
      .setIssuedAt()
      .setExpirationTime(exp)
      .sign(k);

  it('accepts a valid token with roles, and still accepts Interlock tokens', async () => {
    const auth = withJwtAuth(base, { issuer: 'https://id.test/', audience: 'interlock', jwksUrl });
    const r = await auth.verifyToken(await sign({ roles: ['supervisor', 'finance'], name: 'Fran' }));
    assert.deepEqual(r, { ok: true, reviewer: { id: 'jwt:u-42', name: 'Fran', roles: ['supervisor', 'finance'] } });
    assert.equal((await auth.verifyToken('il_local')).ok, true);
  });

  it('refuses a wrong signature, issuer, audience, or an expired token', async () => {
    const auth = withJwtAuth(base, { issuer: 'https://id.test/', audience: 'interlock', jwksUrl });
    for (const t of [
      await sign({}, otherKey),
      await sign({}, key, '5m', 'https://evil.test/'),
      await sign({}, key, '5m', 'https://id.test/', 'other'),
      await sign({}, key, '-10m'),
    ]) {
      assert.deepEqual(await auth.verifyToken(t), { ok: false, reason: 'invalid' });
    }
  });

  it('reads roles from a space-separated claim and refuses incomplete config', async () => {
    const auth = withJwtAuth(base, { issuer: 'https://id.test/', audience: 'interlock', jwksUrl, rolesClaim: 'scope' });
    const r = await auth.verifyToken(await sign({ scope: 'legal operator' }));
    assert.ok(r.ok && r.reviewer.roles.includes('legal'));
    assert.throws(() => withJwtAuth(base, { issuer: '', audience: 'a', jwksUrl }), /issuer/);
  });
});
