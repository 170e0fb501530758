import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError } from '../core/index.ts';
import { recordingChannel } from '../testing/fake-channel.ts';
import type { Channel } from './channel.ts';
import { createRouting } from './routing.ts';

describe('createRouting', () => {
  const slack = recordingChannel('slack');
  const mail = recordingChannel('email');

  it('routes by role, falls back to the default, and dedupes names', () => {
    const r = createRouting({
      channels: { slack, mail },
      routes: { finance: ['mail', 'slack', 'mail'], sre: ['slack'] },
      default: ['mail'],
    });
    assert.deepEqual(
      r.channelsFor('finance').map((c) => c.name),
      ['mail', 'slack'],
    );
    assert.deepEqual(
      r.channelsFor('sre').map((c) => c.name),
      ['slack'],
    );
    assert.deepEqual(
      r.channelsFor('legal').map((c) => c.name),
      ['mail'],
    );
    assert.equal(r.channelsFor('sre')[0]!.channel, slack);
    assert.deepEqual(r.channelNames, ['slack', 'mail']);
    assert.deepEqual(
      createRouting({ channels: { slack }, routes: { sre: ['slack'] } }).channelsFor('legal'),
      [],
      'no route and no default: nobody',
    );
    assert.deepEqual(
      createRouting({ channels: { slack }, routes: { constructor: ['slack'] } }).channelsFor('toString'),
      [],
      'role names are data, not object keys',
    );
  });

  it('refuses an unknown channel name with a message that says how to fix it', () => {
    assert.throws(
      () => createRouting({ channels: { slack, mail }, routes: { finance: ['slak'] } }),
      (e: Error) => {
        assert.ok(e instanceof ConfigError);
        assert.equal(e.code, 'invalid_config');
        assert.equal(
          e.message,
          'routes["finance"] names channel "slak", which is not configured. Known channels: "slack", "mail". Fix the name or add "slak" to "channels".',
        );
        return true;
      },
    );
    assert.throws(() => createRouting({ channels: { slack }, default: ['email'] }), /default names channel "email"/);
  });

  it('refuses routing that cannot send anything or is not made of channels', () => {
    assert.throws(
      () => createRouting({ channels: { slack } }),
      (e: Error) => e instanceof ConfigError && /add "routes"/.test(e.message),
    );
    assert.throws(
      () => createRouting({ channels: {}, default: [] }),
      (e: Error) => e instanceof ConfigError && /configure at least one channel/.test(e.message),
    );
    assert.throws(
      () => createRouting({ channels: { slack: { name: 'x' } as unknown as Channel }, default: ['slack'] }),
      (e: Error) => e instanceof ConfigError && /must be a channel/.test(e.message),
    );
    assert.throws(() => createRouting({ channels: { slack }, routes: { sre: [] } }), /list at least one channel name/);
  });
});
