import { listResources, type ResourceFilter } from '../graph/resources/queries.js';
import { updateAttributes } from '../graph/resources/attributes.js';
import { setResourceLifecycle } from '../graph/resources/lifecycle.js';
import { getResourcesByIds, resolveResource } from '../graph/resources/read.js';
import type { KeysetPage } from '../graph/db/statements.js';
import {
  AitiaError,
  type AttributePlan,
  badInput,
  isResourceId,
  type Lifecycle,
  type ResourceRecord,
} from '../model/index.js';
import { planLifecycleChange } from '../policy/index.js';
import { audited } from './audit.js';
import { nowOf, type ServiceDeps } from './deps.js';
import { assertCan, type Principal } from './permissions.js';

/**
 * Agents name a resource by id or by its `kind:name` slug. Unknown is NOT_FOUND naming `field`
 * (a slug's own errors name `slug`): right for a question about that resource.
 */
export function resolveRef(deps: ServiceDeps, ref: string, field: string): Promise<ResourceRecord> {
  return resolveResource(deps.driver, isResourceId(ref) ? { id: ref } : { slug: ref }, field);
}

/**
 * A resource named in input (a mutation's or a gate question's): an unknown, malformed or ambiguous
 * ref is BAD_USER_INPUT naming the input field, so the caller fixes that field.
 */
export async function resolveInputRef(deps: ServiceDeps, ref: string, field: string): Promise<ResourceRecord> {
  try {
    return await resolveRef(deps, ref, field);
  } catch (err) {
    if (err instanceof AitiaError && err.code === 'NOT_FOUND') throw badInput(field, `no resource ${ref}`);
    if (err instanceof AitiaError && err.code === 'BAD_USER_INPUT' && err.field !== field) {
      throw badInput(field, err.message.replace(/^[^:]+: /, ''), err.details);
    }
    throw err;
  }
}

/** Many resources by id in one query, for the per-request DataLoader; unknown ids are left out. */
export function resourcesByIds(deps: ServiceDeps, ids: readonly string[]): Promise<ResourceRecord[]> {
  return getResourcesByIds(deps.driver, ids);
}

/** One resource by exactly one of id or slug; an ambiguous slug lists the candidate ids. */
export async function resource(
  deps: ServiceDeps,
  principal: Principal,
  input: { id?: string | null; slug?: string | null },
): Promise<ResourceRecord> {
  assertCan(principal, 'resource:read');
  return resolveResource(deps.driver, { id: input.id ?? null, slug: input.slug ?? null });
}

/** A page of resources ordered by id, with the filter's total count. */
export type ResourcePage = KeysetPage<ResourceRecord> & { totalCount: number };

// Resource cursors are the id itself (the list is keyed by id), opaque to callers.
const cursorOf = (id: string) => Buffer.from(id, 'utf8').toString('base64url');
function idOfCursor(cursor: string): string {
  const id = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!id.includes(':')) throw badInput('after', 'not a cursor returned by resources');
  return id;
}

/** Filtered resources ordered by id, `first` at a time (1–500) after a cursor. */
export async function resources(
  deps: ServiceDeps,
  principal: Principal,
  input: { filter?: ResourceFilter | null; first?: number | null; after?: string | null },
): Promise<ResourcePage> {
  assertCan(principal, 'resource:read');
  const page = await listResources(deps.driver, input.filter ?? {}, {
    first: input.first ?? 50,
    afterId: input.after ? idOfCursor(input.after) : null,
  });
  const cursors = page.nodes.map((r) => cursorOf(r.id));
  return {
    nodes: page.nodes,
    cursors,
    hasNextPage: page.hasNextPage,
    endCursor: cursors.at(-1) ?? null,
    totalCount: page.totalCount,
  };
}

/**
 * The resource an operation names by id or `kind:name` slug, every error naming `field` (NOT_FOUND
 * when there is none, saying when the ref was read as a slug): for mutations whose argument is `id`.
 */
export async function resolveNamedRef(deps: ServiceDeps, ref: string, field: string): Promise<ResourceRecord> {
  try {
    return await resolveRef(deps, ref, field);
  } catch (err) {
    if (!(err instanceof AitiaError) || err.field === field) throw err;
    const reason = err.message.replace(/^[^:]+: /, '');
    if (err.code === 'NOT_FOUND')
      throw new AitiaError(
        'NOT_FOUND',
        `${field}: resource ${ref} not found (read as a kind:name slug; a resource id starts with its provider, proxmox:…)`,
        { field },
      );
    if (err.code === 'BAD_USER_INPUT') throw badInput(field, reason, err.details);
    throw err;
  }
}

/**
 * Merges descriptive attributes into a resource named by id or slug; owned keys come back in
 * `ignored` with the reason, an operator-owned key (entity_type) from an agent is FORBIDDEN. Audited.
 */
export function updateEntityAttributes(
  deps: ServiceDeps,
  principal: Principal,
  input: { id: string; attributes: unknown },
): Promise<{ resource: ResourceRecord; ignored: AttributePlan['ignored']; message: string }> {
  let targetIds = [input.id];
  return audited(
    deps,
    principal,
    'updateEntityAttributes',
    () => targetIds,
    async (ok) => {
      assertCan(principal, 'attribute:update');
      const { id } = await resolveNamedRef(deps, input.id, 'id');
      targetIds = [id];
      return updateAttributes(deps.driver, id, input.attributes, () => ok.entry(), { ...principal, at: nowOf(deps) });
    },
    undefined,
    { args: input },
  );
}

/** What setLifecycle did: the resource as it is now and the lifecycle before. */
export interface LifecycleResult {
  resource: ResourceRecord;
  previous: Lifecycle;
  changed: boolean;
}

/**
 * Sets a resource's lifecycle by hand (operators; audited). The policy plans the change (missing is
 * ingest's, a reason is required); asking for the lifecycle it already has writes nothing.
 */
export function setLifecycle(
  deps: ServiceDeps,
  principal: Principal,
  input: { id: string; lifecycle: Lifecycle; reason: string },
): Promise<LifecycleResult> {
  return audited(
    deps,
    principal,
    'setLifecycle',
    [input.id],
    async (ok) => {
      assertCan(principal, 'resource:lifecycle');
      const current = await resolveInputRef(deps, input.id, 'id');
      const plan = planLifecycleChange({
        id: current.id,
        current: current.lifecycle,
        wanted: input.lifecycle,
        reason: input.reason,
      });
      if (!plan.ok) throw badInput(plan.field, plan.reason);
      if (!plan.changed) return { resource: current, previous: current.lifecycle, changed: false };
      const written = await setResourceLifecycle(
        deps.driver,
        current.id,
        { lifecycle: plan.lifecycle, reason: plan.reason, by: principal.name },
        () => ok.entry(),
      );
      // Gone between the read and the write: the same answer an unknown id gets.
      if (!written) throw badInput('id', `no resource ${input.id}`);
      return { resource: written.resource, previous: written.previous, changed: written.previous !== plan.lifecycle };
    },
    undefined,
    { args: input },
  );
}
