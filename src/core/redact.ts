/**
 * Masking of personal data in evidence shown to reviewers. Evidence is
 * untrusted text (customer messages, model summaries); reviewers need its gist,
 * not the customer's card number.
 */
/** Runs of digit groups joined by single spaces or dashes; cards are looked for inside them. */
const DIGIT_RUN = /\b\d+(?:[ -]\d+)*\b/g;
const EMAIL = /\b([A-Za-z0-9._%+-])[A-Za-z0-9._%+-]*@([A-Za-z0-9.-]+\.[A-Za-z]{2,})\b/g;
// Grouped national/international forms, or E.164 (`+14155550100`, no separators).
const PHONE =
  /(?<![\w])(?:(\+?\d{1,3}[ .-]?)?(?:\(\d{2,4}\)[ .-]?|\d{2,4}[ .-])\d{2,4}[ .-]?\d{3,4}|\+\d{8,15})(?![\w])/g;

function luhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

function maskCard(digits: string): string {
  return `[card ****${digits.slice(-4)}]`;
}

/**
 * Mask the cards in one run of digit groups. A card is a window of whole groups with
 * 13-19 digits that passes the Luhn check, taken leftmost and longest first. Looking
 * inside the run (rather than matching cards directly) finds a card written next to
 * another number: "qty 2 4111 1111 1111 1111", "ref 123456 4111 1111 1111 1111".
 */
function redactDigitRun(run: string): string {
  const parts = run.split(/([ -])/); // groups at even indexes, separators between them
  let out = '';
  for (let i = 0; i < parts.length; i += 2) {
    let end = i;
    let card: string | undefined;
    let digits = '';
    for (let j = i; j < parts.length; j += 2) {
      digits += parts[j]!;
      if (digits.length > 19) break;
      if (digits.length >= 13 && luhn(digits)) {
        end = j;
        card = digits;
      }
    }
    out += (card === undefined ? parts[i]! : maskCard(card)) + (parts[end + 1] ?? '');
    i = end;
  }
  return out;
}

/** Mask card numbers (Luhn-valid, last four kept), e-mail addresses and phone numbers in a string. */
export function redactText(text: string): string {
  return text
    .replace(DIGIT_RUN, redactDigitRun)
    .replace(EMAIL, (_m, first: string, domain: string) => `${first}***@${domain}`)
    .replace(PHONE, (m) => {
      const digits = m.replace(/\D/g, '');
      return digits.length >= 7 ? `[phone ***${digits.slice(-2)}]` : m;
    });
}

/** Redact every string inside a JSON-like value; other values are kept. */
export function redact<T>(value: T): T {
  if (typeof value === 'string') return redactText(value) as T;
  if (Array.isArray(value)) return value.map((v: unknown) => redact(v)) as T;
  if (value !== null && typeof value === 'object') {
    // fromEntries defines own properties: a "__proto__" key of untrusted JSON stays a key, not the prototype.
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redact(v)])) as T;
  }
  return value;
}

/** The parts of a stored conversation message that redaction looks at (the agent layer's `Message`). */
interface MessageLike {
  role: string;
  content: string | ReadonlyArray<{ type: string; [key: string]: unknown }>;
}

/**
 * A conversation as reviewers may see it, with the masking the review card
 * applies to evidence: text (the customer's, the model's) and tool results
 * (an order look-up returns the customer's e-mail) are redacted. Tool-call
 * inputs are kept as they are: they are the arguments that ran or will run,
 * which the card shows exactly so that a reviewer approves what executes.
 * The stored messages are not changed; operators can read them raw, audited.
 */
export function redactMessages<M extends MessageLike>(messages: readonly M[]): M[] {
  return messages.map((m) => ({
    ...m,
    content:
      typeof m.content === 'string'
        ? redactText(m.content)
        : m.content.map((part) => {
            if (part.type === 'text' && typeof part.text === 'string') return { ...part, text: redactText(part.text) };
            if (part.type === 'tool-result') return { ...part, output: redact(part.output) };
            if (part.type === 'tool-call') return part;
            // A part of a kind this version does not know: masked whole rather than shown raw.
            return redact(part);
          }),
  }));
}
