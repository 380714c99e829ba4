import { z } from 'zod';

/** Descriptive attribute keys: short, property-safe identifiers. */
export const AttributeKeySchema = z
  .string()
  .regex(
    /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/,
    'must start with a letter or _ and use only letters, digits, _ . - (max 64)',
  );

const Scalar = z.union([z.string().max(4096), z.number().finite(), z.boolean()]);
/** Values must be scalars or arrays of scalars (Neo4j properties cannot hold maps). */
export const AttributeValueSchema = z.union([Scalar, z.array(Scalar).max(256)]);
export type AttributeValue = z.infer<typeof AttributeValueSchema>;
export const AttributesSchema = z.record(AttributeKeySchema, AttributeValueSchema);
export type Attributes = z.infer<typeof AttributesSchema>;

/** Attributes live on the node as `attr.<key>` properties, apart from the model's own fields. */
export const ATTRIBUTE_PREFIX = 'attr.';
