/**
 * Paths of `input` that a schema dropped while parsing it into `parsed`:
 * fields the schema does not know. Zod objects strip unknown keys by default;
 * an edit must not have a field silently vanish (a reviewer adding
 * `bankAccount` would believe it was sent), so callers refuse these instead.
 * @example
 * unknownFields({ amount: 1, bankAccount: 'x' }, { amount: 1 }) // ['bankAccount']
 */
export function unknownFields(input: unknown, parsed: unknown, path: readonly string[] = []): string[] {
  if (Array.isArray(input) && Array.isArray(parsed)) {
    return input.flatMap((item, i) => (i < parsed.length ? unknownFields(item, parsed[i], [...path, String(i)]) : []));
  }
  if (!isPlainObject(input) || !isPlainObject(parsed)) return [];
  const out: string[] = [];
  for (const key of Object.keys(input)) {
    if (!Object.hasOwn(parsed, key)) out.push([...path, key].join('.'));
    else out.push(...unknownFields(input[key], parsed[key], [...path, key]));
  }
  return out;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
