import type { Driver } from 'neo4j-driver';
import {
  assignAuthorizations,
  type AuthorizationInput,
  type AuthorizationOptions,
  type AuthorizationVerdict,
  creditedEventOf,
  DEFAULT_AUTHORIZATION_OPTIONS,
  matchAuthorization,
} from '../../correlator/authorization.js';
import { DEFAULT_CORRELATOR_SETTINGS, type CorrelatorSettings } from '../../correlator/explain.js';
import { authorizationSentence } from '../../correlator/narrative.js';
import { toMillis } from '../../correlator/timing.js';
import { readAuthorizationsInUse } from '../graph/action-authorizations.js';
import type { TransitionConditionOp } from '../graph/transitions/record.js';
import type { Attribution, Transition } from '../model/index.js';
import type { ActorMappingSource } from '../model/actors.js';

/*
 * The step between explaining a pass's changes and gating them: a change whose credited task or
 * event was made by a provider identity the actors mapping gives to an executor (an agent) is
 * credited to the redeemed grant or reported auto action that explains it, or flagged
 * `unauthorized`. Without a mapping (no `actors:`) nothing is read; with one, ONE statement reads
 * the entries of the agent-credited targets and which event each already explains, and only when
 * such a change exists. The re-explain path calls the same function with the same deps.
 */

export interface AuthorizeDeps {
  driver: Driver;
  /** The integrations file's `actors:` resolved against the tokens; absent: the feature is off. */
  actors?: ActorMappingSource;
  /** The correlator's clock tolerance applies to the grant's use window too. */
  correlator?: Partial<CorrelatorSettings>;
  /** How long after a redeem the task may start (default 600 s). */
  authorization?: Partial<AuthorizationOptions>;
}

/** One explained change: its resource, states, attribution and narrative. */
export interface Authorizable {
  transition: Pick<Transition, 'resourceId' | 'from' | 'to'>;
  attribution: Attribution;
  narrative: string;
}

/** The change again with `authorization` / `unauthorized` set (or left as it was) and the narrative's sentence. */
export interface AuthorizedExplanation {
  attribution: Attribution;
  narrative: string;
  /** The matcher's answer; null when no mapping applies (nothing was decided). */
  verdict: AuthorizationVerdict | null;
}

const unchanged = (items: readonly Authorizable[]): AuthorizedExplanation[] =>
  items.map((x) => ({ attribution: x.attribution, narrative: x.narrative, verdict: null }));

const iso = (msValue: number) => new Date(msValue).toISOString().replace(/\.000Z$/, 'Z');

/**
 * Credits each change to its authorization, or flags it; answers in the input's order. A change
 * that is no mapped agent's keeps its attribution unchanged (verdict null or `neither`).
 */
export async function authorizeExplanations(
  deps: AuthorizeDeps,
  items: readonly Authorizable[],
): Promise<AuthorizedExplanation[]> {
  if (!deps.actors || items.length === 0) return unchanged(items);
  const { entries } = deps.actors();
  if (entries.length === 0) return unchanged(items);
  const options: AuthorizationOptions = {
    ...DEFAULT_AUTHORIZATION_OPTIONS,
    clockSkewSeconds: deps.correlator?.clockSkewSeconds ?? DEFAULT_CORRELATOR_SETTINGS.clockSkewSeconds,
    ...deps.authorization,
  };
  const inputs: AuthorizationInput[] = items.map((x) => ({ transition: x.transition, attribution: x.attribution }));
  // Which changes are an agent's at all: with no entry read, an agent's answers `unauthorized`.
  const agents = inputs
    .map((input, i) => ({ input, i }))
    .filter(({ input }) => matchAuthorization(input, { actors: entries, authorizations: [] }).verdict !== 'neither');
  if (agents.length === 0) return unchanged(items);

  const started = agents.map(({ input }) => toMillis(creditedEventOf(input.attribution)!.startedAt) ?? Number.NaN);
  const known = started.filter((m) => !Number.isNaN(m));
  const reach = (options.useWindowSeconds + options.clockSkewSeconds) * 1000;
  const since = known.length > 0 ? iso(Math.min(...known) - reach) : iso(0);
  const until = known.length > 0 ? iso(Math.max(...known) + reach) : iso(Date.now() + reach);
  const read = await readAuthorizationsInUse(
    deps.driver,
    agents.map(({ input }) => input.transition.resourceId),
    since,
    until,
  );
  const verdicts = assignAuthorizations(
    agents.map(({ input }) => input),
    { actors: entries, authorizations: read.authorizations, used: read.used, options },
  );

  const out = unchanged(items);
  agents.forEach(({ i }, k) => {
    const verdict = verdicts[k]!;
    const item = items[i]!;
    const attribution: Attribution = {
      ...item.attribution,
      authorization: verdict.verdict === 'authorized' ? verdict.authorization : null,
      unauthorized: verdict.verdict === 'unauthorized' ? verdict.unauthorized : null,
    };
    const sentence = authorizationSentence(item.transition, attribution);
    out[i] = { attribution, narrative: sentence ? `${item.narrative} ${sentence}` : item.narrative, verdict };
  });
  return out;
}

/**
 * A mapped agent's change that no authorization explains opens `unauthorized_action` on the
 * resource, in the transition's write and never suppressed, whatever attribution.suppression says:
 * an agent acting outside the gate is what an operator must see. It stays open until an operator
 * reviews it (reviewUnauthorizedAction); another such change meanwhile refreshes its evidence.
 */
export function unauthorizedConditions(
  t: { id: string; resourceId: string; from: string; to: string },
  explained: { attribution: Attribution; narrative: string },
  at: { at: string; policyDigest: string | null },
): TransitionConditionOp[] {
  const u = explained.attribution.unauthorized;
  if (!u) return [];
  return [
    {
      transitionId: t.id,
      op: 'open',
      resourceId: t.resourceId,
      type: 'unauthorized_action',
      at: at.at,
      evidence: {
        transitionId: t.id,
        actor: u.actor,
        principal: u.principal,
        eventId: u.eventId,
        reason: u.reason,
        from: t.from,
        to: t.to,
        observedAt: at.at,
      },
      attribution: { transitionId: t.id, ...explained.attribution, narrative: explained.narrative },
      suppression: {
        suppressed: false,
        wouldSuppress: false,
        reasons: [
          `agent ${u.principal} acted with no grant redeemed or automatic action reported that explains it: never suppressed, whatever attribution.suppression says`,
        ],
        policyDigest: at.policyDigest,
      },
    },
  ];
}
