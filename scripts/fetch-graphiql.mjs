// Puts GraphiQL's browser assets under vendor/graphiql/<version>/ so /graphql works without
// internet (yoga's page would load them from a CDN). The version is the one graphql-yoga's own
// page names; the files come from that exact npm package (npm verifies its integrity).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(root, 'package.json'));
const yogaDir = dirname(require.resolve('graphql-yoga/package.json'));
const html = readFileSync(join(yogaDir, 'esm', 'graphiql-html.js'), 'utf8');
const version = /@graphql-yoga\/graphiql@([0-9][^/]*)\/dist\//.exec(html)?.[1];
if (!version) throw new Error('fetch-graphiql: cannot find the GraphiQL version in graphql-yoga');
const target = join(root, 'vendor', 'graphiql', version);
if (existsSync(join(target, 'yoga-graphiql.umd.js'))) {
  console.log(`fetch-graphiql: ${version} already in vendor/`);
} else {
  const tmp = mkdtempSync(join(tmpdir(), 'aitia-graphiql-'));
  try {
    const tgz = execFileSync('npm', ['pack', `@graphql-yoga/graphiql@${version}`, '--silent', '--pack-destination', tmp], { encoding: 'utf8' }).trim().split('\n').pop();
    execFileSync('tar', ['xzf', join(tmp, tgz), '-C', tmp]);
    mkdirSync(dirname(target), { recursive: true });
    rmSync(target, { recursive: true, force: true });
    renameSync(join(tmp, 'package', 'dist'), target);
    console.log(`fetch-graphiql: ${version} → ${target}`);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
