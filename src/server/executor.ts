import {
  BREAK,
  type DocumentNode,
  execute,
  type ExecutionArgs,
  type ExecutionResult,
  getOperationAST,
  getVariableValues,
  type OperationDefinitionNode,
  visit,
} from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';

/** How a parsed operation runs: interpreted for its first runs, then compiled (or interpreted for good). */
type Plan =
  { runs: number } | { compiled: CompiledQuery; operation: OperationDefinitionNode } | { interpretOnly: true };

export interface Executor {
  (args: ExecutionArgs): ExecutionResult | Promise<ExecutionResult>;
  /** How many executions ran each way (what the tests observe). */
  readonly counts: { interpreted: number; compiled: number };
}

/**
 * Runs an operation on graphql-js's executor until the same parsed document has run `compileAfter`
 * times, then on code graphql-jit compiled for it: agents repeat a handful of operations, and for
 * those the compiled code completes lists of resources in a fraction of graphql-js's time (no
 * argument coercion or type dispatch per field). A one-off query never pays the compilation.
 *
 * The plan hangs off the DocumentNode, which yoga's parser cache hands out again for the same query
 * text, so it lives exactly as long as that cache entry. graphql-jit builds its errors its own way,
 * so requests whose variables do not coerce run on graphql-js, whose refusals the API documents;
 * subscriptions and operations graphql-jit will not compile stay on graphql-js too. So does any
 * document with @skip or @include: graphql-jit 0.8 answers some of them wrongly (a fragment spread
 * skipped in one place loses its fields in another; see executor.test.ts), and silently.
 */
export function createExecutor(options: { compileAfter: number }): Executor {
  const plans = new WeakMap<DocumentNode, Map<string, Plan>>();
  const counts = { interpreted: 0, compiled: 0 };
  const interpret = (args: ExecutionArgs) => {
    counts.interpreted += 1;
    return execute(args);
  };

  const planFor = (args: ExecutionArgs): Plan => {
    let byOperation = plans.get(args.document);
    if (!byOperation) plans.set(args.document, (byOperation = new Map()));
    const key = args.operationName ?? '';
    let plan = byOperation.get(key) ?? { runs: 0 };
    // Still counting runs: this one either compiles it or counts.
    if ('runs' in plan) {
      plan = plan.runs >= options.compileAfter ? compile(args) : { runs: plan.runs + 1 };
      byOperation.set(key, plan);
    }
    return plan;
  };

  const run: Executor = Object.assign(
    (args: ExecutionArgs) => {
      const plan = planFor(args);
      if (!('compiled' in plan)) return interpret(args);
      const variables = args.variableValues ?? {};
      const coerced = getVariableValues(args.schema, plan.operation.variableDefinitions ?? [], variables);
      if (coerced.errors) return interpret(args);
      counts.compiled += 1;
      const result = plan.compiled.query(args.rootValue, args.contextValue, variables) as
        ExecutionResult | Promise<ExecutionResult>;
      return result instanceof Promise ? result.then(errorsFirst) : errorsFirst(result);
    },
    { counts },
  );
  return run;
}

/** graphql-js writes `errors` before `data` (as the spec suggests, so errors are seen); so do we. */
function errorsFirst(result: ExecutionResult): ExecutionResult {
  if (!result.errors) return result;
  const { errors, data, extensions } = result;
  return extensions === undefined ? { errors, data } : { errors, data, extensions };
}

function compile(args: ExecutionArgs): Plan {
  const operation = getOperationAST(args.document, args.operationName);
  if (!operation || operation.operation === 'subscription' || skipsOrIncludes(args.document)) {
    return { interpretOnly: true };
  }
  try {
    const compiled = compileQuery(args.schema, args.document, args.operationName ?? undefined);
    return isCompiledQuery(compiled) ? { compiled, operation } : { interpretOnly: true };
  } catch {
    return { interpretOnly: true };
  }
}

function skipsOrIncludes(document: DocumentNode): boolean {
  let found = false;
  visit(document, {
    Directive(node) {
      if (node.name.value !== 'skip' && node.name.value !== 'include') return undefined;
      found = true;
      return BREAK;
    },
  });
  return found;
}
