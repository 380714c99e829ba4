import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  createAssetHandler,
  graphiqlAssetDir,
  graphiqlVersionOfYoga,
  renderLocalGraphiQL,
} from '../../../src/server/graphiql.js';
import { BOOT_SCRIPT } from '../../../src/server/graphiql-page.js';

describe('GraphiQL page', () => {
  it('serves the pinned @graphql-yoga/graphiql dependency, the version graphql-yoga names', () => {
    // A yoga upgrade that names another GraphiQL fails here: pin @graphql-yoga/graphiql to it.
    expect(graphiqlVersionOfYoga()).toMatch(/^\d+\.\d+\.\d+/);
    const dir = graphiqlAssetDir();
    expect(dir, `@graphql-yoga/graphiql@${graphiqlVersionOfYoga()} is not installed`).not.toBeNull();
    expect(existsSync(join(dir!, 'yoga-graphiql.umd.js'))).toBe(true);
  });

  it('loads nothing from another host and opens on an aitia query with the header to fill in', () => {
    const html = renderLocalGraphiQL(undefined);
    expect(html).not.toMatch(/(src|href)=["']?https?:/);
    expect(html).not.toContain('unpkg.com');
    expect(html).not.toContain('githubusercontent');
    expect(html).toContain('/graphql/assets/yoga-graphiql.umd.js');
    expect(html).toContain('about { version principal role policyDigest }');
    // The options travel as JSON in a data block, `<` escaped so nothing can close the element.
    const block = /<script type=application\/json id=aitia-graphiql-config>([^<]*)<\/script>/.exec(html)?.[1];
    expect(JSON.parse(block!).graphiql.headers).toContain('Bearer <token>');
  });

  it('runs no inline script: every script element loads from our asset route or is a data block', () => {
    const html = renderLocalGraphiQL({ title: '</script><script>alert(1)</script>' });
    const scripts = [...html.matchAll(/<script([^>]*)>([^<]*)<\/script>/g)];
    expect(scripts.length).toBeGreaterThanOrEqual(3);
    for (const [, attrs, body] of scripts) {
      if (attrs!.includes('type=application/json')) expect(() => JSON.parse(body!) as unknown).not.toThrow();
      else expect([attrs!.trim(), body]).toEqual([expect.stringMatching(/^src="\/graphql\/assets\/[\w.-]+\.js"$/), '']);
    }
    expect(html).not.toContain('<script>alert(1)');
    expect(html).toContain('&lt;/script&gt;');
  });

  it("points Monaco's workers at files the asset folder has, and serves the boot script", () => {
    const html = renderLocalGraphiQL(undefined);
    const block = /id=aitia-graphiql-config>([^<]*)</.exec(html)?.[1];
    const workers = JSON.parse(block!).workers as Record<string, string>;
    expect(Object.keys(workers).sort()).toEqual(['editorWorkerService', 'graphql', 'json']);
    const dir = graphiqlAssetDir()!;
    for (const file of Object.values(workers)) expect(existsSync(join(dir, file)), file).toBe(true);
    const boot = createAssetHandler(dir)(`/graphql/assets/${BOOT_SCRIPT}`);
    expect(boot?.type).toMatch(/javascript/);
    expect(boot?.body.toString()).toContain('renderYogaGraphiQL');
  });
});
