import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ApprovalRequest } from '../../core/index.ts';
import { confirmationText } from './confirm.ts';

const req = (args: Record<string, unknown>) =>
  ({ tool: 'write_file', args, reason: 'writes a file' }) as unknown as ApprovalRequest;

describe("the MCP user's confirmation text", () => {
  it('shows hidden characters as markers and warns, so "…/\\u202egnp.exe" never reads as exe.png', () => {
    const t = confirmationText(req({ path: '/home/u/\u202egnp.exe', content: 'a\u200bb' }));
    assert.ok(!/[\u202e\u200b]/.test(t), 'no hidden character survives');
    assert.match(t, /⟨U\+202E RIGHT-TO-LEFT OVERRIDE⟩gnp\.exe/);
    assert.match(
      t,
      /WARNING: the arguments hold hidden characters \(U\+202E RIGHT-TO-LEFT OVERRIDE, U\+200B ZERO WIDTH SPACE\)/,
    );
  });

  it('names look-alike words (a Cyrillic М in "Мaple")', () => {
    const t = confirmationText(req({ address: '1 \u041caple Dr' }));
    assert.match(t, /look-alike letters: "\u041caple"/);
  });

  it('plain arguments read plainly, with no warning', () => {
    assert.equal(
      confirmationText(req({ path: '/tmp/a.txt' })),
      'Run write_file with {"path":"/tmp/a.txt"}? (writes a file)',
    );
  });
});
