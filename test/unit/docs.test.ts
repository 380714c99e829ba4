import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findPackageRoot } from '../../src/package-root.js';

/**
 * The README stays a front page (what aitia is, two commands, the demo, an agent, Docker, links);
 * everything else lives in docs/ by reader. A link that points nowhere is a broken promise to that
 * reader, so every relative link in README.md and docs/*.md must reach a file, and its #anchor a
 * heading there.
 */
const root = findPackageRoot();
const pages = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** The text a reader sees as prose: fenced blocks and inline code removed (links there are not links). */
function prose(markdown: string): string {
  return markdown.replace(/^ *```[\s\S]*?^ *```/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchor for a heading: lowercased, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const found = new Set<string>();
  for (const m of markdown.replace(/^ *```[\s\S]*?^ *```/gm, '').matchAll(/^#{1,6} (.+)$/gm)) {
    const base = m[1]!
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    found.add(n === 0 ? base : `${base}-${n}`);
  }
  return found;
}

/** Every `[text](target)` whose target is inside the repository: no scheme, no mail. */
function relativeLinks(markdown: string): string[] {
  return [...prose(markdown).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)]
    .map((m) => m[1]!)
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

describe('the documentation', () => {
  it('finds the README and the docs pages', () => {
    expect(pages).toEqual(expect.arrayContaining(['README.md', 'docs/README.md', 'docs/tutorial.md']));
  });

  it('README.md is at most 150 lines', () => {
    const lines = readFileSync(join(root, 'README.md'), 'utf8').split('\n');
    if (lines.at(-1) === '') lines.pop();
    expect(lines.length).toBeLessThanOrEqual(150);
  });

  it('the README keeps the test command CI runs (.ci/run runs `npm test`)', () => {
    expect(readFileSync(join(root, '.ci', 'run'), 'utf8')).toMatch(/^npm test /m);
    expect(readFileSync(join(root, 'README.md'), 'utf8')).toContain('```sh\nnpm ci && npm test\n```');
  });

  it('the anchor rule gives GitHub’s anchors', () => {
    expect([...anchors('# MCP: the same operations as tools\n## 1. Find a VM\n## `x` and y\n## A\n## A\n')]).toEqual([
      'mcp-the-same-operations-as-tools',
      '1-find-a-vm',
      'x-and-y',
      'a',
      'a-1',
    ]);
  });

  it('finds the links of a page, not those in code', () => {
    expect(relativeLinks('[a](docs/x.md#y) [b](https://e.org) `[c](no.md)`\n```\n[d](no.md)\n```\n[e](#z)')).toEqual([
      'docs/x.md#y',
      '#z',
    ]);
  });

  it.each(pages)('every relative link in %s reaches a file, and its #anchor a heading there', (page) => {
    const text = readFileSync(join(root, page), 'utf8');
    const broken: string[] = [];
    for (const link of relativeLinks(text)) {
      const [path, anchor] = link.split('#') as [string, string | undefined];
      const target = path === '' ? join(root, page) : resolve(root, dirname(page), decodeURI(path));
      if (relative(root, target).startsWith('..') || !existsSync(target)) {
        broken.push(`${link}: no such file`);
        continue;
      }
      if (anchor === undefined) continue;
      if (!statSync(target).isFile() || !target.endsWith('.md')) {
        broken.push(`${link}: an anchor into something that is not a Markdown page`);
        continue;
      }
      if (!anchors(readFileSync(target, 'utf8')).has(anchor)) broken.push(`${link}: no heading #${anchor}`);
    }
    expect(broken).toEqual([]);
  });
});
