import { z } from 'zod';
import type { Kind } from './kinds.js';

/**
 * What agents and operators may declare: things no hypervisor reports (a postgres an agent found
 * listening on a VM, a bare-metal box, a NAS, a VLAN). VMs, containers and clusters belong to
 * their providers; a declared one would be a second, unobserved copy of something real.
 */
export const DECLARABLE_KINDS = ['service', 'host', 'storage', 'network'] as const satisfies readonly Kind[];
export type DeclarableKind = (typeof DECLARABLE_KINDS)[number];

export function isDeclarableKind(kind: string): kind is DeclarableKind {
  return (DECLARABLE_KINDS as readonly string[]).includes(kind);
}

/** A declared name becomes part of the id and of the `kind:name` slug agents type. */
export const DeclaredNameSchema = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/,
    'must be 1–128 letters, digits, ".", "_" or "-", starting with a letter or digit',
  );

/** Evidence is what the declarer saw; required, because a declaration nobody can check is a rumour. */
export const DeclaredEvidenceSchema = z
  .string()
  .trim()
  .min(1, 'say what you saw (a listening socket, a config line, a unit file)')
  .max(4096, 'at most 4096 characters');

/**
 * The id of a declared resource: `manual:<kind>/<name>`, or `manual:<kind>/<name>@<runs-on id>` when
 * it is placed on something, so postgres on db13 and postgres on db14 are two resources and the
 * same declaration made twice is one.
 */
export function declaredResourceId(kind: DeclarableKind, name: string, runsOnId: string | null): string {
  return runsOnId ? `manual:${kind}/${name}@${runsOnId}` : `manual:${kind}/${name}`;
}

/** Who declared a resource, when, and the evidence they gave: kept on the node, shown with it. */
export interface Declaration {
  by: string;
  evidence: string | null;
  at: string | null;
}
