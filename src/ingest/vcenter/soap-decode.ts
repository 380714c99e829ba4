import { type XmlElement, xsiType } from './xml.js';

/**
 * vim25 SOAP answers → the VMOMI JSON shape the transforms already read (`_typeName` on typed
 * objects, references as `{type, value}`, arrays as arrays), so a polled inventory and a pushed one
 * go through the same code. Without the WSDL a single element cannot be told from a one-item array,
 * nor `"5"` from 5: `xsi:type` decides where the answer gives one (`ArrayOf…`, `xsd:int`), and the
 * fields below decide for untyped members of data objects. Pure.
 */

/**
 * Data-object members that are arrays in the vim25 schema (one element is still a list). Not `host`,
 * `vm` or `datastore`: events carry those as single arguments, and as properties they come typed
 * (`ArrayOfManagedObjectReference`).
 */
const ARRAY_FIELDS = new Set(['objects', 'propSet', 'missingSet', 'ipAddress', 'device', 'net', 'pnic', 'vnic']);

/** Members that are numbers in the vim25 schema. */
const NUMBER_FIELDS = new Set([
  'key',
  'chainId',
  'numCpu',
  'numCPU',
  'memorySizeMB',
  'memoryMB',
  'numHosts',
  'numEffectiveHosts',
  'capacity',
  'freeSpace',
  'uncommitted',
  'numCpuCores',
  'numCpuThreads',
  'memorySize',
  'totalCpu',
  'totalMemory',
  'deviceConfigId',
  'prefixLength',
]);

const XSD_NUMBER = new Set(['int', 'long', 'short', 'byte', 'double', 'float']);

function scalar(text: string, type: string | null, fieldName: string): unknown {
  if (type === 'boolean') return text === 'true';
  if ((type !== null && XSD_NUMBER.has(type)) || (type === null && NUMBER_FIELDS.has(fieldName))) {
    const n = Number(text);
    return Number.isFinite(n) && text.trim() !== '' ? n : text;
  }
  return text;
}

/**
 * One element as JSON. A leaf with a `type` attribute is a managed object reference; `ArrayOf…`
 * becomes an array of its items; other elements with children become objects, members repeated
 * or listed in {@link ARRAY_FIELDS} become arrays.
 */
export function decodeElement(el: XmlElement, fieldName = el.name): unknown {
  const type = xsiType(el);
  if (el.children.length === 0) {
    if (el.attrs.type !== undefined)
      return { _typeName: 'ManagedObjectReference', type: el.attrs.type, value: el.text.trim() };
    if (type !== null && type.startsWith('ArrayOf')) return [];
    return scalar(el.text, type, fieldName);
  }
  if (type !== null && type.startsWith('ArrayOf')) return el.children.map((c) => decodeElement(c, fieldName));
  const out: Record<string, unknown> = type ? { _typeName: type } : {};
  for (const c of el.children) {
    const value = decodeElement(c);
    const existing = out[c.name];
    if (Array.isArray(existing)) existing.push(value);
    else if (existing !== undefined) out[c.name] = [existing, value];
    else out[c.name] = ARRAY_FIELDS.has(c.name) ? [value] : value;
  }
  return out;
}

/** All children named `name`, decoded: the `returnval`s of a method answer, the `objects` of a result. */
export function decodeAll(el: XmlElement, name: string): unknown[] {
  return el.children.filter((c) => c.name === name).map((c) => decodeElement(c));
}
