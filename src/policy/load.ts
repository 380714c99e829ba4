import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseDocument } from 'yaml';
import type { z } from 'zod';
import { digestOf } from './canonical-json.js';
import { PolicySchema, type Policy } from './policy-document.js';

/** One thing wrong with a policy: where (dotted path, `(yaml)` or `(file)`) and why. */
export interface PolicyError {
  path: string;
  reason: string;
}

/** A parsed policy with its digest, or every error found. */
export type PolicyParseResult = { ok: true; policy: Policy; digest: string } | { ok: false; errors: PolicyError[] };

/**
 * Parses and validates policy YAML. The digest is the SHA-256 of the validated policy's canonical
 * JSON (defaults applied), so comments, key order and formatting do not change it.
 */
export function parsePolicy(yamlText: string): PolicyParseResult {
  const doc = parseDocument(yamlText, { prettyErrors: true, uniqueKeys: true });
  if (doc.errors.length > 0) {
    // prettyErrors puts "at line L, column C" on the first line; the rest is a source excerpt.
    return {
      ok: false,
      errors: doc.errors.map((e) => ({ path: '(yaml)', reason: `YAML syntax error: ${e.message.split('\n')[0]}` })),
    };
  }
  let data: unknown;
  try {
    data = doc.toJS();
  } catch (err) {
    return { ok: false, errors: [{ path: '(yaml)', reason: `YAML cannot be read: ${(err as Error).message}` }] };
  }
  const parsed = PolicySchema.safeParse(data);
  if (!parsed.success) return { ok: false, errors: parsed.error.issues.flatMap(toPolicyErrors) };
  return { ok: true, policy: parsed.data, digest: digestOf(parsed.data) };
}

function dotted(path: ReadonlyArray<PropertyKey>): string {
  return path.length === 0 ? '(root)' : path.map(String).join('.');
}

function toPolicyErrors(issue: z.core.$ZodIssue): PolicyError[] {
  // Name each unknown key in the path itself: a typo is then found where it was made.
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => ({ path: dotted([...issue.path, key]), reason: 'unknown key' }));
  }
  // A record key that fails its own check arrives wrapped; its inner message says what is wrong.
  if (issue.code === 'invalid_key') {
    return [{ path: dotted(issue.path), reason: issue.issues.map((inner) => inner.message).join('; ') }];
  }
  // zod says "expected object, received undefined" for a missing key; an operator reads "required".
  const reason = issue.message.replace(/^Invalid input: expected (\w+), received undefined$/, 'required ($1)');
  return [{ path: dotted(issue.path), reason }];
}

/** Reads and parses a policy file; an unreadable file is reported as an error, not thrown. */
export async function loadPolicyFile(path: string): Promise<PolicyParseResult> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    return { ok: false, errors: [{ path: '(file)', reason: `cannot read ${path}: ${(err as Error).message}` }] };
  }
  return parsePolicy(text);
}

/**
 * The package root: the nearest directory above this module holding a package.json. Walking up
 * works both from src/policy/ (tests, tsx) and from dist/src/policy/ (the build).
 */
function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return fileURLToPath(new URL('../../', import.meta.url));
    dir = parent;
  }
}

/** Absolute path of the shipped policy, config/policy.yaml at the package root. */
export const DEFAULT_POLICY_PATH: string = join(packageRoot(), 'config', 'policy.yaml');
