/**
 * Masking of personal data in evidence shown to reviewers. Evidence is
 * untrusted text (customer messages, model summaries); reviewers need its gist,
 * not the customer's card number.
 */
const CARD = /\b(?:\d[ -]?){12,18}\d\b/g;
const EMAIL = /\b([A-Za-z0-9._%+-])[A-Za-z0-9._%+-]*@([A-Za-z0-9.-]+\.[A-Za-z]{2,})\b/g;
const PHONE = /(?<![\w])(\+?\d{1,3}[ .-]?)?(?:\(\d{2,4}\)[ .-]?|\d{2,4}[ .-])\d{2,4}[ .-]?\d{3,4}(?![\w])/g;

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

/** Mask card numbers (Luhn-valid, last four kept), e-mail addresses and phone numbers in a string. */
export function redactText(text: string): string {
  return text
    .replace(CARD, (m) => {
      const digits = m.replace(/\D/g, '');
      return digits.length >= 13 && luhn(digits) ? `[card ****${digits.slice(-4)}]` : m;
    })
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
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = redact(v);
    return out as T;
  }
  return value;
}
