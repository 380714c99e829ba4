import { z } from 'zod';

/** Limits on what one write may carry; each refusal names the limit and the key. */
export const ATTRIBUTE_LIMITS = {
  /** Keys in one update. */
  perCall: 100,
  /** Characters in a key. */
  keyLength: 128,
  /** UTF-8 bytes of one value (a list: of all its items). */
  valueBytes: 8 * 1024,
  /** Items in a list value. */
  listItems: 256,
} as const;

/** Descriptive attribute keys: short, property-safe identifiers. */
export const AttributeKeySchema = z
  .string()
  .regex(
    new RegExp(`^[A-Za-z_][A-Za-z0-9_.-]{0,${ATTRIBUTE_LIMITS.keyLength - 1}}$`),
    `must start with a letter or _ and use only letters, digits, _ . - (max ${ATTRIBUTE_LIMITS.keyLength})`,
  );

type Scalar = string | number | boolean;

/** Why a scalar cannot be stored as it is, or null. Neo4j integers are exact only up to 2^53 here. */
function scalarProblem(v: Scalar): string | null {
  if (typeof v !== 'number') return null;
  if (!Number.isFinite(v)) return 'numbers must be finite';
  if (Object.is(v, -0)) return '-0 is not a storable number (use 0)';
  if (Number.isInteger(v) && !Number.isSafeInteger(v))
    return `integer ${v} is beyond ±2^53 and would not be stored exactly (send it as a string)`;
  return null;
}

const utf8 = new TextEncoder();

/**
 * Why a value cannot be stored, or null: list items of one type, exact numbers, the size limit.
 * `whole`: the limit holds for the whole value (a write through the API); otherwise for each item
 * (provider rows, whose lists of config lines may be longer as a whole).
 */
export function attributeValueProblem(value: Scalar | Scalar[], options: { whole?: boolean } = {}): string | null {
  const items = Array.isArray(value) ? value : [value];
  if (Array.isArray(value) && new Set(value.map((v) => typeof v)).size > 1)
    return `list items must all have one type (got ${[...new Set(value.map((v) => typeof v))].join(', ')})`;
  for (const v of items) {
    const problem = scalarProblem(v);
    if (problem) return problem;
  }
  const sizes = items.map((v) => utf8.encode(String(v)).length);
  const bytes = options.whole ? sizes.reduce((n, b) => n + b, 0) : Math.max(0, ...sizes);
  if (bytes > ATTRIBUTE_LIMITS.valueBytes)
    return `value is ${bytes} bytes; the limit is ${ATTRIBUTE_LIMITS.valueBytes} (8 KiB)`;
  return null;
}

const ScalarSchema = z.union([z.string(), z.number(), z.boolean()]);
/**
 * Values must be scalars or lists of scalars of one type (Neo4j properties cannot hold maps or
 * mixed lists), numbers exact, at most 8 KiB.
 */
export const AttributeValueSchema = z
  .union([ScalarSchema, z.array(ScalarSchema).max(ATTRIBUTE_LIMITS.listItems)])
  .superRefine((v, ctx) => {
    const problem = attributeValueProblem(v);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });
export type AttributeValue = z.infer<typeof AttributeValueSchema>;
export const AttributesSchema = z.record(AttributeKeySchema, AttributeValueSchema);
export type Attributes = z.infer<typeof AttributesSchema>;

/** Attributes live on the node as `attr.<key>` properties, apart from the model's own fields. */
export const ATTRIBUTE_PREFIX = 'attr.';
