export * from './types.js';
export { TRANSITION_TABLE, expectedEventTypes, causeRanks, OUTCOME_RANK, MIDWAY_RANK } from './transition-table.js';
export { attribute, consumedBy } from './attribute.js';
export { narrate, type NarrativeOptions, type NarrativeResource, type NarrativeResult } from './narrative.js';
export {
  REQUEST_CHAINS,
  PROXMOX_SERVICE_USER,
  MAX_REQUEST_DEPTH,
  findRequest,
  followRequests,
  type RequestChain,
  type RequestMatch,
  type RequestTrail,
} from './request-chains.js';
export { HA_EXECUTED, NODE_BULK_CONTEXTS, systemActorFor, type BulkContext, type SystemActor } from './actors.js';
export { describeEvent, whenPhrase } from './describe.js';
export { placeEvent, toMillis, type PlacedEvent } from './timing.js';
export {
  candidateWindow,
  DEFAULT_CANDIDATE_WINDOW,
  DEFAULT_MAX_TASK_SECONDS,
  type CandidateWindowOptions,
  type StartWindow,
} from './window.js';
export { stateAt, type StateAtAnswer, type StateAtBasis, type HistoryTransition } from './state-at.js';
export {
  explain,
  needsHostActivity,
  unexplained,
  DEFAULT_CORRELATOR_SETTINGS,
  type CorrelatorSettings,
  type ExplainInput,
  type Explanation,
} from './explain.js';
export { narrateCondition, type ConditionCause } from './condition-narrative.js';
export { narrateIncident, type IncidentStory } from './incident-narrative.js';
export { decideUnknown, causeWindow, movesNode, type CoverageFacts, type UnknownSettings } from './unknown.js';
export { unknownSentence, type UnknownClock } from './unknown-narrative.js';
export { ACTION_EVENT_TYPES, actionEventTypes } from './action-events.js';
export {
  assignAuthorizations,
  creditedEventOf,
  matchAuthorization,
  DEFAULT_AUTHORIZATION_OPTIONS,
  type AuthorizationContext,
  type AuthorizationInput,
  type AuthorizationOptions,
  type AuthorizationVerdict,
} from './authorization.js';
export { authorizedPhrase, unauthorizedPhrase } from './authorization-narrative.js';
