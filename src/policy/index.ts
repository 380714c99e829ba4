// The gate's public surface. The command classifier's internals (shell reading, rule tables,
// wrappers) stay private to src/policy.
export * from './canonical-json.js';
export * from './classify.js';
export * from './command/classifier.js';
export * from './elevation.js';
export * from './entity-types.js';
export * from './forbidden.js';
export * from './intent.js';
export * from './lifecycle.js';
export * from './lifecycle-change.js';
export * from './load.js';
export * from './match-rule.js';
export * from './policy-view.js';
export * from './preflight.js';
export * from './risk.js';
export * from './policy-document.js';
export * from './startup.js';
export * from './target-facts.js';
export * from './target-ref.js';
export * from './transition-gate.js';
export * from './grant.js';
export * from './redact.js';
export * from './rate-limits.js';
export * from './policy-diff.js';
export * from './replay.js';
