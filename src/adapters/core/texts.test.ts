/**
 * What every door (the MCP gateway, the framework adapters) answers by default for a call that did
 * not run as proposed: neutral, for any domain — no support-desk wording (customers, refunds, orders,
 * tickets) and no reviewer named.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_MODEL_TEXTS } from '../../engine/index.ts';
import { createCallGate } from './call-gate.ts';
import type { Interlock } from '../../engine/index.ts';

const DOMAIN = /customer|refund|order|support|ticket|agent/i;

describe('default texts of the adapter core', () => {
  it('say what happened to the call in words that fit any tool', () => {
    const t = DEFAULT_MODEL_TEXTS;
    const said = [
      t.blocked('writes outside the workspace'),
      t.rejected(undefined),
      t.rejected('not this folder'),
      t.expired(),
      t.cancelled(),
      t.edited({ path: '/tmp/a' }),
      t.duplicateCallId('c1'),
      t.reusedCallId('c1'),
    ];
    for (const s of said) assert.doesNotMatch(s, DOMAIN, s);
    for (const s of said) assert.doesNotMatch(s, /\b(dana|sam)\b|rev_/i, `no reviewer named: ${s}`);
  });

  it('are the ones a gate uses unless its caller gives its own', () => {
    const gate = createCallGate({ interlock: {} as Interlock, proposer: 'agent:mcp-gateway' });
    assert.equal(gate.texts.expired(), DEFAULT_MODEL_TEXTS.expired());
    const own = createCallGate({
      interlock: {} as Interlock,
      proposer: 'agent:x',
      texts: { expired: () => 'too late' },
    });
    assert.equal(own.texts.expired(), 'too late');
    assert.equal(own.texts.cancelled(), DEFAULT_MODEL_TEXTS.cancelled());
  });
});
