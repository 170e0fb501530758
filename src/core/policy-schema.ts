import { z } from 'zod';
import { HIDDEN_CHARACTERS_MODES } from './policy-hidden.ts';
import { TIERS, TIMEOUT_DECISIONS } from './tiers.ts';

// The shape a policy config must have, checked by definePolicy before anything else: each field is
// named in the error when it is wrong.

const fn = z.custom<(...a: unknown[]) => unknown>((v) => typeof v === 'function', 'must be a function');
const duration = z.union([
  z.number().nonnegative(),
  z.string().regex(/^\d+(\.\d+)?(ms|s|m|h|d)$/, 'use a duration such as "30m" or "24h"'),
]);
const ruleSchema = z
  .object({
    id: z.string().min(1, 'every rule needs an id'),
    tier: z.enum(TIERS),
    when: fn.optional(),
    reason: z.union([z.string().min(1), fn]),
    role: z.string().min(1).optional(),
    approvals: z.number().int().min(1).max(20).optional(),
    timeout: duration.optional(),
    onTimeout: z.enum(TIMEOUT_DECISIONS).optional(),
    escalateTo: z
      .object({ role: z.string().min(1), approvals: z.number().int().min(1).optional(), timeout: duration.optional() })
      .strict()
      .optional(),
    trustable: z.boolean().optional(),
    decisions: z
      .array(z.enum(['approve', 'edit', 'reject', 'respond']))
      .refine((d) => d.includes('approve') && d.includes('reject'), 'must include "approve" and "reject"')
      .optional(),
    rejectReasons: z
      .object({
        required: z.boolean().optional(),
        choices: z
          .array(z.string().trim().min(1, 'a reject reason must not be blank').max(200))
          .max(20, 'offer at most 20 reject reasons')
          .optional(),
      })
      .strict()
      .optional(),
    plant: z
      .object({ rate: z.number().min(0).max(1), template: fn })
      .strict()
      .optional(),
  })
  .strict();
const aggregateSchema = z
  .object({
    fn: z.enum(['sum', 'count']),
    field: z.string().optional(),
    groupBy: z.string().optional(),
    window: duration,
    tool: z.string().optional(),
    outcome: z.enum(['executed', 'failed']).optional(),
  })
  .strict()
  .refine((a) => a.fn !== 'sum' || a.field !== undefined, 'a "sum" aggregate needs "field": the argument to add up');
const ruleListSchema = z.array(ruleSchema);
const toolPolicyObjectSchema = z
  .object({ rules: ruleListSchema, aggregates: z.record(z.string(), aggregateSchema).optional() })
  .strict();
// Picked by shape rather than with z.union, which reports a bad rule (say, an unknown tier) as a bare
// "tools.x: Invalid input" instead of naming the field.
const toolPolicySchema = z.unknown().superRefine((v, ctx) => {
  const r = (Array.isArray(v) ? ruleListSchema : toolPolicyObjectSchema).safeParse(v);
  if (!r.success) for (const i of r.error.issues) ctx.addIssue({ code: 'custom', message: i.message, path: i.path });
});
export /** A policy config (PolicyConfig), as definePolicy checks it. */
const policySchema = z
  .object({
    tools: z.record(z.string(), toolPolicySchema),
    triage: fn.optional(),
    defaults: z
      .object({
        role: z.string().optional(),
        timeout: duration.optional(),
        onTimeout: z.enum(TIMEOUT_DECISIONS).optional(),
      })
      .strict()
      .optional(),
    hiddenCharacters: z.enum(HIDDEN_CHARACTERS_MODES).optional(),
  })
  .strict();
