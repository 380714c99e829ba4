// `npm run codegen`: (1) writes schema/generated-vocabulary.graphql from src/model (checked in: the
// enums that mirror a model vocabulary, and each kind's state enum and object type; see
// scripts/vocabulary-sdl.ts), then (2) generates resolver types from schema/*.graphql (GraphQL Code
// Generator, programmatic core: the CLI's loaders pull in packages that need Node 22). The resolver
// types are not committed: `npm run build` and `npm test` produce them.
import { codegen } from '@graphql-codegen/core';
import * as typescriptPlugin from '@graphql-codegen/typescript';
import * as resolversPlugin from '@graphql-codegen/typescript-resolvers';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildSchema, parse, printSchema } from 'graphql';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dir = join(root, 'schema');

/**
 * The generator and src/model are TypeScript, which Node 20 cannot run. They are transpiled
 * (TypeScript's transpileModule: no type check, `tsc` does that) into
 * node_modules/.cache/aitia-codegen/<hash of the sources and the compiler version>, where their
 * imports of zod, luxon, graphql and prettier resolve to this repository's node_modules. An
 * unchanged model is not transpiled again (the compiler takes a second or two to load).
 */
async function loadGenerator() {
  const sources = [
    ...readdirSync(join(root, 'src', 'model'), { recursive: true })
      .filter((f) => f.endsWith('.ts'))
      .map((f) => `src/model/${f.split('\\').join('/')}`),
    'scripts/vocabulary-sdl.ts',
  ].sort();
  const hash = createHash('sha256').update(createRequire(import.meta.url)('typescript/package.json').version);
  for (const file of sources) hash.update(`\0${file}\0`).update(readFileSync(join(root, file)));
  const cache = join(root, 'node_modules', '.cache', 'aitia-codegen');
  const out = join(cache, hash.digest('hex').slice(0, 32));
  if (!existsSync(out)) {
    const { default: ts } = await import('typescript');
    const tmp = join(cache, `tmp-${process.pid}-${randomBytes(4).toString('hex')}`);
    mkdirSync(tmp, { recursive: true });
    for (const file of sources) {
      const { outputText } = ts.transpileModule(readFileSync(join(root, file), 'utf8'), {
        fileName: file,
        compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022 },
      });
      const target = join(tmp, file.replace(/\.ts$/, '.js'));
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, outputText);
    }
    writeFileSync(join(tmp, 'package.json'), '{ "type": "module" }\n');
    // Earlier models' outputs go; so do leftovers of interrupted runs (another run's are young).
    for (const old of readdirSync(cache)) {
      const path = join(cache, old);
      if (old.startsWith('tmp-') && (path === tmp || Date.now() - statSync(path).mtimeMs < 600_000)) continue;
      rmSync(path, { recursive: true, force: true });
    }
    try {
      renameSync(tmp, out);
    } catch (err) {
      rmSync(tmp, { recursive: true, force: true });
      if (!existsSync(out)) throw err; // else a parallel run wrote the same output first
    }
  }
  return import(pathToFileURL(join(out, 'scripts', 'vocabulary-sdl.js')).href);
}

const { GENERATED_SDL_FILE, kindTypeNames, vocabularySdl } = await loadGenerator();
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
