/**
 * Reading vCenter payloads regardless of serialisation: VMOMI JSON (camelCase, `_typeName` on every
 * object), older govmomi / event brokers (PascalCase, no type names) and pyVmomi (references as
 * `"vim.VirtualMachine:vm-101"`). Nothing here knows event semantics.
 */

/** A plain JSON object. */
export type JsonObject = Record<string, unknown>;

/** A managed object reference: type (`VirtualMachine`) and value (`vm-101`). */
export interface MoRef {
  type: string;
  value: string;
}

/** True for a non-null, non-array object. */
export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A field by its camelCase name, falling back to the PascalCase spelling. */
export function field(obj: JsonObject, camel: string): unknown {
  if (obj[camel] !== undefined) return obj[camel];
  return obj[camel.charAt(0).toUpperCase() + camel.slice(1)];
}

/** A non-empty string field, or null; brokers write the Python literal "None" for absent values. */
export function stringField(obj: JsonObject, camel: string): string | null {
  const value = field(obj, camel);
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value !== 'string') return null;
  const text = value.trim();
  return text === '' || text === 'None' ? null : text;
}

/** Parses any of the three reference encodings; anything else (null, "None") → null. */
export function parseMoRef(value: unknown): MoRef | null {
  if (typeof value === 'string') {
    const m = /^(?:vim\.)?([A-Za-z]+):(\S+)$/.exec(value.trim());
    return m ? { type: m[1]!, value: m[2]! } : null;
  }
  if (!isObject(value)) return null;
  const type = stringField(value, 'type');
  const ref = stringField(value, 'value');
  return type && ref ? { type, value: ref } : null;
}

/**
 * An event argument such as `vm: { name, vm: <ref> }` or `host: { name, host: <ref> }`; `inner`
 * is the reference's field name (`vm`, `host`, `datacenter` …). Missing pieces are null.
 */
export function eventArgument(
  event: JsonObject,
  name: string,
  inner = name,
): { name: string | null; ref: MoRef | null } | null {
  const arg = field(event, name);
  if (!isObject(arg)) return null;
  return { name: stringField(arg, 'name'), ref: parseMoRef(field(arg, inner)) };
}
