import { h, type Attrs } from './dom.ts';
import { exactJson } from './format.ts';
import { describeHidden, findHidden, reveal } from './reveal.ts';
import type { Args, Json, JsonSchema } from './types.ts';

/** A problem with one field; `path` is relative to the arguments (`amount`, `address.city`). */
export interface FieldIssue {
  path: string;
  message: string;
}

/** The edit form of a request's arguments. */
export interface SchemaForm {
  element: HTMLElement;
  /** The arguments the form holds now, and what stops them being read (bad numbers, bad JSON). */
  read(): { args: Args; problems: FieldIssue[] };
  /** Show issues next to their fields (from the form itself or from the server's 400). */
  showIssues(issues: readonly FieldIssue[]): void;
  focusFirst(): void;
}

interface Field {
  element: HTMLElement;
  /** `present: false` leaves the key out (an optional field left empty). */
  read(problems: FieldIssue[]): { present: boolean; value?: Json };
  slots: Map<string, { input: HTMLElement; error: HTMLElement }>;
}

type Kind = 'string' | 'text' | 'number' | 'integer' | 'boolean' | 'enum' | 'object' | 'json';

function kindOf(schema: JsonSchema | undefined, value: Json | undefined): Kind {
  if (schema?.enum && schema.enum.length > 0) return 'enum';
  const t = schema?.type;
  if (typeof t === 'string') {
    if (t === 'string')
      return (schema?.maxLength ?? 0) > 200 ||
        (typeof value === 'string' && (value.includes('\n') || value.length > 80))
        ? 'text'
        : 'string';
    if (t === 'number' || t === 'integer' || t === 'boolean') return t;
    if (t === 'object' && schema?.properties) return 'object';
    return 'json';
  }
  if (schema && (schema.anyOf || schema.oneOf || Array.isArray(t))) return 'json';
  // No schema for this key: go by the value.
  if (typeof value === 'string') return value.includes('\n') || value.length > 80 ? 'text' : 'string';
  if (typeof value === 'number') return 'number';
  if (typeof value === 'boolean') return 'boolean';
  return 'json';
}

const idFor = (path: string) => `edit-${path.replace(/[^A-Za-z0-9_-]/g, '-') || 'root'}`;

function hintOf(schema: JsonSchema | undefined, kind: Kind): string {
  const bits: string[] = [];
  if (schema?.description) bits.push(schema.description);
  if (schema?.exclusiveMinimum !== undefined) bits.push(`more than ${schema.exclusiveMinimum}`);
  if (schema?.minimum !== undefined) bits.push(`at least ${schema.minimum}`);
  if (schema?.exclusiveMaximum !== undefined) bits.push(`less than ${schema.exclusiveMaximum}`);
  if (schema?.maximum !== undefined) bits.push(`at most ${schema.maximum}`);
  if (schema?.minLength !== undefined && schema.minLength > 0) bits.push(`at least ${schema.minLength} characters`);
  if (kind === 'json') bits.push('JSON');
  if (kind === 'integer') bits.push('whole number');
  return bits.join(' · ');
}

/**
 * A warning kept under a text input while its value holds hidden characters:
 * the box must keep the exact value (it is what an edit sends), so it cannot
 * show them itself.
 */
function hiddenNote(input: HTMLInputElement | HTMLTextAreaElement, id: string): HTMLElement {
  const note = h('p', { class: 'field-warning', id: `${id}-hidden`, role: 'status' });
  const update = (): void => {
    const found = findHidden(input.value);
    note.hidden = found.length === 0;
    note.textContent = found.length
      ? `Hidden characters in this value (${describeHidden(found)}). It reads: ${reveal(input.value)}`
      : '';
  };
  input.addEventListener('input', update);
  update();
  return note;
}

/** A fieldset of an object's own fields; it reads as an object, left out when optional, unset and empty. */
function objectField(
  path: string,
  name: string,
  schema: JsonSchema | undefined,
  value: Json | undefined,
  required: boolean,
  onInput: () => void,
): Field {
  const id = idFor(path);
  const slots = new Map<string, { input: HTMLElement; error: HTMLElement }>();
  const props = schema?.properties ?? {};
  const obj = value !== null && typeof value === 'object' && !Array.isArray(value) ? value : {};
  const children = childFields(path, props, schema?.required ?? [], obj, onInput);
  for (const c of children) for (const [k, v] of c.field.slots) slots.set(k, v);
  const error = h('p', { class: 'field-error', id: `${id}-error` });
  const element = h(
    'fieldset',
    { class: 'field-group' },
    h('legend', null, name, required ? h('span', { class: 'req', 'aria-hidden': 'true' }, ' *') : ''),
    children.map((c) => c.field.element),
    error,
  );
  slots.set(path, { input: element, error });
  return {
    element,
    slots,
    read(problems) {
      const out: Record<string, Json> = {};
      for (const c of children) {
        const r = c.field.read(problems);
        if (r.present) out[c.key] = r.value!;
      }
      const present = required || value !== undefined || Object.keys(out).length > 0;
      return present ? { present, value: out } : { present: false };
    },
  };
}

type SimpleInput = HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement;

/** The input of a simple field, filled with `value`; `common` carries its id, name, ARIA and listeners. */
function inputFor(
  kind: Exclude<Kind, 'object'>,
  schema: JsonSchema | undefined,
  value: Json | undefined,
  required: boolean,
  common: Attrs,
): SimpleInput {
  let input: SimpleInput;
  switch (kind) {
    case 'number':
    case 'integer':
      input = h('input', {
        ...common,
        type: 'number',
        step: kind === 'integer' ? '1' : 'any',
        inputmode: kind === 'integer' ? 'numeric' : 'decimal',
      });
      if (schema?.minimum !== undefined) input.min = String(schema.minimum);
      if (schema?.maximum !== undefined) input.max = String(schema.maximum);
      input.value = typeof value === 'number' ? String(value) : '';
      break;
    case 'boolean':
      input = h('input', { ...common, type: 'checkbox' });
      input.checked = value === true;
      break;
    case 'enum':
      input = h(
        'select',
        common,
        required ? null : h('option', { value: '' }, '(not set)'),
        (schema?.enum ?? []).map((opt) =>
          h('option', { value: JSON.stringify(opt) }, typeof opt === 'string' ? opt : JSON.stringify(opt)),
        ),
      );
      input.value = value === undefined ? '' : JSON.stringify(value);
      break;
    case 'text':
      input = h('textarea', { ...common, rows: 4, spellcheck: 'true' });
      input.value = typeof value === 'string' ? value : '';
      break;
    case 'json':
      input = h('textarea', { ...common, rows: 4, spellcheck: 'false', class: 'mono' });
      input.value = value === undefined ? '' : exactJson(value);
      break;
    default:
      input = h('input', { ...common, type: 'text', autocomplete: 'off', spellcheck: 'false' });
      if (schema?.maxLength !== undefined) input.maxLength = schema.maxLength;
      input.value = typeof value === 'string' ? value : '';
  }
  return input;
}

/**
 * What a simple field's input holds now, as its kind reads it; what stops it
 * being read goes to `problems` under `path`. `value` is what was proposed.
 */
function readInput(
  input: SimpleInput,
  kind: Kind,
  path: string,
  value: Json | undefined,
  required: boolean,
  problems: FieldIssue[],
): { present: boolean; value?: Json } {
  const problem = (message: string) => problems.push({ path, message });
  if (input instanceof HTMLInputElement && input.type === 'checkbox') {
    return input.checked || required || value !== undefined
      ? { present: true, value: input.checked }
      : { present: false };
  }
  const raw = input.value;
  if (raw.trim() === '' && kind !== 'string' && kind !== 'text') {
    if (required) problem('required');
    return { present: false };
  }
  switch (kind) {
    case 'number':
    case 'integer': {
      const n = Number(raw);
      if (!Number.isFinite(n)) problem('must be a number');
      else if (kind === 'integer' && !Number.isInteger(n)) problem('must be a whole number');
      return { present: true, value: n };
    }
    case 'enum':
      return { present: true, value: JSON.parse(raw) as Json };
    case 'json':
      try {
        return { present: true, value: JSON.parse(raw) as Json };
      } catch {
        problem('is not valid JSON');
        return { present: false };
      }
    default:
      // An optional text left empty that was not set before stays unset.
      if (raw === '' && !required && value === undefined) return { present: false };
      return { present: true, value: raw };
  }
}

function field(
  path: string,
  name: string,
  schema: JsonSchema | undefined,
  value: Json | undefined,
  required: boolean,
  onInput: () => void,
): Field {
  const kind = kindOf(schema, value);
  if (kind === 'object') return objectField(path, name, schema, value, required, onInput);
  const id = idFor(path);
  const hint = hintOf(schema, kind);
  const error = h('p', { class: 'field-error', id: `${id}-error` });
  const describedBy = [hint ? `${id}-hint` : '', `${id}-error`].filter(Boolean).join(' ');
  const input = inputFor(kind, schema, value, required, {
    id,
    name: path,
    'aria-describedby': describedBy,
    'aria-required': required ? 'true' : null,
    onInput,
    onChange: onInput,
  });
  const label = h(
    'label',
    { for: id },
    h('span', { class: 'field-name' }, name),
    required ? h('span', { class: 'req', 'aria-hidden': 'true' }, ' *') : '',
  );
  const note =
    input instanceof HTMLSelectElement || kind === 'boolean' || kind === 'number' || kind === 'integer'
      ? null
      : hiddenNote(input, id);
  const element = h(
    'div',
    { class: `field field-${kind}` },
    kind === 'boolean' ? h('div', { class: 'check' }, input, label) : [label, input],
    note,
    hint ? h('p', { class: 'field-hint', id: `${id}-hint` }, hint) : null,
    error,
  );
  const slots = new Map<string, { input: HTMLElement; error: HTMLElement }>([[path, { input, error }]]);
  return {
    element,
    slots,
    read: (problems) => readInput(input, kind, path, value, required, problems),
  };
}

function childFields(
  prefix: string,
  props: Record<string, JsonSchema>,
  required: readonly string[],
  values: { [k: string]: Json },
  onInput: () => void,
): Array<{ key: string; field: Field }> {
  // Schema order first, then keys the schema does not name (kept, edited as JSON or by type).
  const keys = [...Object.keys(props), ...Object.keys(values).filter((k) => !(k in props))];
  return keys.map((key) => ({
    key,
    field: field(prefix ? `${prefix}.${key}` : key, key, props[key], values[key], required.includes(key), onInput),
  }));
}

/**
 * A form generated from the tool's JSON Schema, pre-filled with the proposed
 * arguments: text, number, checkbox and select inputs for simple fields,
 * fieldsets for objects, JSON for the rest. Without a schema, the whole
 * arguments are edited as JSON.
 */
export function schemaForm(schema: JsonSchema | null, initial: Args, onInput: () => void): SchemaForm {
  const rootProblems = h('p', { class: 'field-error', id: 'edit-root-error' });
  let fields: Array<{ key: string; field: Field }> = [];
  let whole: HTMLTextAreaElement | undefined;
  if (schema?.properties) {
    fields = childFields('', schema.properties, schema.required ?? [], initial, onInput);
  } else {
    whole = h('textarea', {
      id: 'edit-root',
      class: 'mono',
      rows: 8,
      spellcheck: 'false',
      'aria-describedby': 'edit-root-error',
      'aria-label': 'Arguments as JSON',
      onInput,
    });
    whole.value = exactJson(initial);
  }
  const slots = new Map<string, { input: HTMLElement; error: HTMLElement }>();
  for (const f of fields) for (const [k, v] of f.field.slots) slots.set(k, v);
  const element = h(
    'div',
    { class: 'schema-form' },
    whole
      ? [h('label', { for: 'edit-root' }, 'Arguments (JSON)'), whole, hiddenNote(whole, 'edit-root')]
      : fields.map((f) => f.field.element),
    rootProblems,
  );

  const form: SchemaForm = {
    element,
    read() {
      const problems: FieldIssue[] = [];
      if (whole) {
        try {
          const v = JSON.parse(whole.value) as Json;
          if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new Error('not an object');
          return { args: v, problems };
        } catch {
          return { args: {}, problems: [{ path: '', message: 'must be a JSON object' }] };
        }
      }
      const args: Args = {};
      for (const f of fields) {
        const r = f.field.read(problems);
        if (r.present) args[f.key] = r.value!;
      }
      return { args, problems };
    },
    showIssues(issues) {
      for (const { input, error } of slots.values()) {
        error.textContent = '';
        input.removeAttribute('aria-invalid');
      }
      rootProblems.textContent = '';
      const unplaced: string[] = [];
      for (const i of issues) {
        const slot = slots.get(i.path);
        if (slot) {
          slot.error.textContent = reveal(
            slot.error.textContent ? `${slot.error.textContent}; ${i.message}` : i.message,
          );
          slot.input.setAttribute('aria-invalid', 'true');
        } else {
          unplaced.push(i.path ? `${i.path}: ${i.message}` : i.message);
        }
      }
      rootProblems.textContent = reveal(unplaced.join('; '));
    },
    focusFirst() {
      const first =
        element.querySelector<HTMLElement>('[aria-invalid="true"]') ??
        element.querySelector<HTMLElement>('input, textarea, select');
      first?.focus();
    },
  };
  return form;
}
