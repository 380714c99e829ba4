// `npm run codegen`: (1) writes schema/generated-vocabulary.graphql from src/model (checked in: the
// enums that mirror a model vocabulary, and each kind's state enum and object type; see
// scripts/vocabulary-sdl.ts), then (2) generates resolver types from schema/*.graphql (GraphQL Code
// Generator, programmatic core: the CLI's loaders pull in packages that need Node 22) and (3) the
// MCP tools' input schemas from the same SDL (scripts/mcp-inputs.ts). Neither (2) nor (3) is
// committed: `npm run build` and `npm test` produce them.
import { codegen } from '@graphql-codegen/core';
import * as typescriptPlugin from '@graphql-codegen/typescript';
import * as resolversPlugin from '@graphql-codegen/typescript-resolvers';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildSchema, parse, printSchema } from 'graphql';
import { transpileOnce } from './transpile.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dir = join(root, 'schema');

/**
 * The generator and src/model are TypeScript, which Node 20 cannot run. They are transpiled into
 * node_modules/.cache/aitia-codegen/<hash of the sources and the compiler version>, where their
 * imports of zod, luxon, graphql and prettier resolve to this repository's node_modules. An
 * unchanged model is not transpiled again.
 */
async function loadGenerator() {
  const files = [
    ...readdirSync(join(root, 'src', 'model'), { recursive: true })
      .filter((f) => f.endsWith('.ts'))
      .map((f) => `src/model/${f.split('\\').join('/')}`),
    'scripts/vocabulary-sdl.ts',
    'scripts/mcp-inputs.ts',
  ];
  const cacheDir = join(root, 'node_modules', '.cache', 'aitia-codegen');
  const out = await transpileOnce({ root, files, cacheDir, moduleType: true });
  const load = (name) => import(pathToFileURL(join(out, 'scripts', `${name}.js`)).href);
  return { ...(await load('vocabulary-sdl')), ...(await load('mcp-inputs')) };
}

const { GENERATED_SDL_FILE, MCP_INPUTS_FILE, kindTypeNames, mcpInputsSource, vocabularySdl } = await loadGenerator();
const generated = join(dir, GENERATED_SDL_FILE);
const vocabulary = await vocabularySdl(dir);
if (!existsSync(generated) || readFileSync(generated, 'utf8') !== vocabulary) {
  // In CI (CI=true, as .ci/run sets) or with --check, the committed file must already be current:
  // a kind or state added to src/model without `npm run codegen` fails the build instead of
  // being generated on the fly.
  if (process.argv.includes('--check') || /^(1|true)$/i.test(process.env.CI ?? '')) {
    console.error(`codegen: schema/${GENERATED_SDL_FILE} is out of date; run \`npm run codegen\` and commit it`);
    process.exit(1);
  }
  writeFileSync(generated, vocabulary);
  console.log(`codegen: wrote ${generated}`);
}

const sdl = readdirSync(dir)
  .filter((f) => f.endsWith('.graphql'))
  .sort()
  .map((f) => readFileSync(join(dir, f), 'utf8'))
  .join('\n');
const schema = buildSchema(sdl);
const out = join(root, 'src', 'generated', 'graphql.ts');
const resourceRecord = '../model/index.js#ResourceRecord';

const output = await codegen({
  filename: out,
  schema: parse(printSchema(schema)),
  schemaAst: schema,
  documents: [],
  plugins: [{ typescript: {} }, { typescriptResolvers: {} }],
  pluginMap: { typescript: typescriptPlugin, typescriptResolvers: resolversPlugin },
  config: {
    useTypeImports: true,
    enumsAsTypes: true,
    contextType: '../../resolvers/context.js#RequestContext',
    scalars: { DateTime: 'string', JSON: 'unknown', ID: 'string' },
    mappers: {
      Resource: resourceRecord,
      // Cluster, Host, Vm, …: one object type per kind, all read from a ResourceRecord.
      ...Object.fromEntries(kindTypeNames().map((typeName) => [typeName, resourceRecord])),
      Relationship: '../model/index.js#EdgeRecord',
      Transition: '../model/index.js#TransitionRecord',
      Event: '../model/index.js#StoredEventRecord',
      Attribution: '../model/index.js#Attribution as AttributionModel',
      AttributionEvent: '../model/index.js#AttributionEvent as AttributionEventModel',
      Explanation: '../services/transitions.js#ExplainedTransition as ExplanationModel',
      AuditEntry: '../services/audit.js#AuditEntry as AuditEntryModel',
      Check: '../model/index.js#CheckRecord',
      Condition: '../model/index.js#ConditionRecord',
      ConditionCause: '../services/health.js#ConditionCauseView',
      ConditionChange: '../services/feed.js#ConditionChange as ConditionChangeModel',
      HealthChange: '../services/feed.js#HealthChange as HealthChangeModel',
      ApprovalRequest: '../model/index.js#ApprovalRecord',
      ApprovalChange: '../services/feed.js#ApprovalChange as ApprovalChangeModel',
      GrantRedeem: '../services/grant-history.js#GrantRedeemView',
    },
    avoidOptionals: false,
    maybeValue: 'T | null | undefined',
  },
});
mkdirSync(dirname(out), { recursive: true });
writeFileSync(
  out,
  '/* eslint-disable */\n// Generated by scripts/codegen.mjs from schema/*.graphql — do not edit.\n' + output,
);
console.log(`codegen: wrote ${out}`);

const mcpInputs = join(root, MCP_INPUTS_FILE);
writeFileSync(mcpInputs, await mcpInputsSource(schema, mcpInputs));
console.log(`codegen: wrote ${mcpInputs}`);
