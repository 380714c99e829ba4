import {
  CheckDefinitionSchema,
  CheckIntervalSchema,
  CheckKindSchema,
  CHECK_KINDS,
  type CheckDefinition,
} from './checks.js';

/** `createCheck`'s input as GraphQL delivers it (each spec under its kind's name). */
export interface CreateCheckFields {
  kind: string;
  http?: Record<string, unknown> | null;
  tcp?: Record<string, unknown> | null;
  intervalSeconds?: number | null;
  critical?: boolean | null;
}

export type ParsedCheckInput =
  | { ok: true; definition: CheckDefinition; intervalSeconds: number; critical: boolean }
  | { ok: false; field: string; reason: string };

const SPEC_KEYS = ['http', 'tcp'] as const;

/** Drops GraphQL's explicit nulls so the spec's defaults apply. */
const defined = (o: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null && v !== undefined));

/**
 * Validates createCheck's input: exactly the spec object the kind needs (http → `http`, tcp →
 * `tcp`, the state kinds → none), each field checked by the model's zod schemas. The error names
 * the input field (`input.http.url`, `input.tcp`, `input.intervalSeconds`) and the reason. Pure.
 */
export function parseCreateCheckInput(input: CreateCheckFields): ParsedCheckInput {
  const kind = CheckKindSchema.safeParse(input.kind);
  if (!kind.success) return { ok: false, field: 'input.kind', reason: `must be one of ${CHECK_KINDS.join(', ')}` };
  for (const key of SPEC_KEYS) {
    const given = input[key] !== null && input[key] !== undefined;
    if (given && key !== kind.data)
      return {
        ok: false,
        field: `input.${key}`,
        reason: `not used by a ${kind.data} check; give ${kind.data === 'http' || kind.data === 'tcp' ? `input.${kind.data}` : 'no spec'}`,
      };
    if (!given && key === kind.data) return { ok: false, field: `input.${key}`, reason: `required for a ${key} check` };
  }
  const specInput = kind.data === 'http' || kind.data === 'tcp' ? defined(input[kind.data]!) : {};
  const parsed = CheckDefinitionSchema.safeParse({ kind: kind.data, spec: specInput });
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const path = issue.path.slice(1).map(String); // drop "spec": the GraphQL field is the kind's name
    return { ok: false, field: ['input', kind.data, ...path].join('.'), reason: issue.message };
  }
  const interval = CheckIntervalSchema.safeParse(input.intervalSeconds ?? undefined);
  if (!interval.success)
    return { ok: false, field: 'input.intervalSeconds', reason: interval.error.issues[0]!.message };
  return { ok: true, definition: parsed.data, intervalSeconds: interval.data, critical: input.critical ?? false };
}
