/**
 * Role names as people read them. Roles are identifiers (`supervisor`,
 * `retention_lead`, `finance`, `legal`); text for customers and reviewers needs
 * a person: "a supervisor", "a retention lead", but "a finance reviewer", not
 * "a finance". One place turns a role into words, so every message says it
 * the same way.
 */

// Endings that already name a person (supervisor, manager, analyst, retention lead, …).
const PERSON =
  /(?:er|or|ist|ant|lead|head|chief|admin|officer|owner|team|staff|desk|board|committee|reviewers?|approvers?|people|person)$/;

/**
 * The role as a kind of person, without an article: `retention_lead` →
 * "retention lead", `finance` → "finance reviewer".
 * @example
 * roleNoun('supervisor') // 'supervisor'
 * roleNoun('finance')    // 'finance reviewer'
 */
export function roleNoun(role: string): string {
  const words = role.replace(/[_-]+/g, ' ').trim().toLowerCase();
  return PERSON.test(words) ? words : `${words} reviewer`;
}

/**
 * One person of the role, with its article: "a supervisor", "an operator", "a finance reviewer".
 * @example
 * aRole('finance') // 'a finance reviewer'
 */
export function aRole(role: string): string {
  const noun = roleNoun(role);
  return `${/^[aeiou]/.test(noun) ? 'an' : 'a'} ${noun}`;
}

/**
 * `n` people of the role: "a finance reviewer" for one, "2 supervisors", "2 finance reviewers".
 * @example
 * peopleOfRole('supervisor', 2) // '2 supervisors'
 */
export function peopleOfRole(role: string, n: number): string {
  if (n <= 1) return aRole(role);
  const noun = roleNoun(role);
  return `${n} ${/(?:s|staff|people|team|board|committee|desk)$/.test(noun) ? noun : `${noun}s`}`;
}
