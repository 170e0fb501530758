import { it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { renderApiDocs } from '../../scripts/api-docs.ts';

it('docs/api.md matches the OpenAPI document (run npm run docs:api after changing routes)', () => {
  assert.equal(readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8'), renderApiDocs());
});
