/**
 * Reading vSphere inventory JSON whatever the encoder: VMOMI JSON (govmomi's encoder, vCenter ≥ 8.0U1:
 * `_typeName` on every object, values in `any` slots boxed as `{"_typeName": "…", "_value": …}`)
 * and the older Go-default PascalCase encoding (`Obj`, `PropSet`, `Name`, `Val`, refs `{Type, Value}`).
 * Objects may come as property-collector results (ObjectContent: obj + propSet of path → value)
 * or as whole managed objects (`self` + nested properties, as `govc vm.info -json` writes them).
 */

import { isObject, parseMoRef as parseRef, type MoRef } from './payload.js';

export type { MoRef };

/** One managed object with a property reader that takes vSphere paths (`runtime.powerState`). */
export interface ManagedObject {
  ref: MoRef;
  get(path: string): unknown;
}

type Json = Record<string, unknown>;

/** A field by its camelCase name, else PascalCase, else any case. */
export function field(obj: Json, name: string): unknown {
  if (obj[name] !== undefined) return obj[name];
  const pascal = name.charAt(0).toUpperCase() + name.slice(1);
  if (obj[pascal] !== undefined) return obj[pascal];
  const lower = name.toLowerCase();
  const key = Object.keys(obj).find((k) => k.toLowerCase() === lower);
  return key === undefined ? undefined : obj[key];
}

/**
 * Removes boxing, recursively through arrays: VMOMI's `{"_typeName": "string", "_value": "x"}` → "x",
 * and the Go encoding of ArrayOf… wrappers, `{"ManagedObjectReference": […]}` → `[…]`.
 */
export function unbox(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(unbox);
  if (!isObject(v)) return v;
  if ('_value' in v) return unbox(v._value);
  const keys = Object.keys(v);
  if (keys.length === 1 && /^[A-Z]\w*$/.test(keys[0]!) && Array.isArray(v[keys[0]!])) return unbox(v[keys[0]!]);
  return v;
}

/** Parses a reference in any encoding (`{type, value}`, `{Type, Value}`, `vim.HostSystem:host-11`), boxed or not. */
export function parseMoRef(v: unknown): MoRef | null {
  return parseRef(unbox(v));
}

/** Follows a dotted path through nested objects, unboxing on the way. */
function walk(root: unknown, path: string[]): unknown {
  let cur = unbox(root);
  for (const key of path) {
    if (!isObject(cur)) return undefined;
    cur = unbox(field(cur, key));
  }
  return cur;
}

function fromObjectContent(content: Json): ManagedObject | null {
  const ref = parseMoRef(field(content, 'obj'));
  if (!ref) return null;
  const props = new Map<string, unknown>();
  const set = unbox(field(content, 'propSet'));
  for (const p of Array.isArray(set) ? set : []) {
    if (!isObject(p)) continue;
    const name = field(p, 'name');
    if (typeof name === 'string') props.set(name, field(p, 'val'));
  }
  return {
    ref,
    get(path) {
      // The collector may have been asked for `runtime.powerState` or for all of `runtime`.
      const parts = path.split('.');
      for (let n = parts.length; n > 0; n--) {
        const head = parts.slice(0, n).join('.');
        if (props.has(head)) return walk(props.get(head), parts.slice(n));
      }
      return undefined;
    },
  };
}

function fromManagedObject(obj: Json): ManagedObject | null {
  const ref = parseMoRef(field(obj, 'self'));
  return ref ? { ref, get: (path) => walk(obj, path.split('.')) } : null;
}

/** The objects of a document, and how many entries could not be read as one. */
export function readManagedObjects(document: unknown): { objects: ManagedObject[]; unreadable: number } {
  const objects: ManagedObject[] = [];
  let unreadable = 0;
  // Items of an array must be objects; a plain object outside an array is a wrapper to look into
  // (RetrieveResult {objects}, {returnval}, or govc's {virtualMachines: […]}), two levels at most.
  const visit = (node: unknown, inArray: boolean, depth: number) => {
    const v = unbox(node);
    if (Array.isArray(v)) {
      for (const item of v) visit(item, true, depth);
      return;
    }
    if (isObject(v) && field(v, 'obj') !== undefined && field(v, 'propSet') !== undefined) {
      const o = fromObjectContent(v);
      if (o) objects.push(o);
      else unreadable++;
    } else if (isObject(v) && field(v, 'self') !== undefined) {
      const o = fromManagedObject(v);
      if (o) objects.push(o);
      else unreadable++;
    } else if (isObject(v) && !inArray && depth < 2) {
      for (const [k, child] of Object.entries(v))
        if (!k.startsWith('_') && (Array.isArray(unbox(child)) || isObject(child))) visit(child, false, depth + 1);
    } else if (inArray || depth > 0) {
      unreadable++;
    }
  };
  visit(document, false, 0);
  return { objects, unreadable };
}
