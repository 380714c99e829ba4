import { renderGraphiQL, type GraphiQLOptions } from 'graphql-yoga';

/**
 * GraphiQL's page without inline script, so the page's CSP can say `script-src 'self'`: yoga's
 * page runs three inline scripts (worker set-up, then the render call with its options). Ours loads
 * the same bundle from our asset route, carries the options in a JSON data block (never executed)
 * and a static boot script of ours reads it, points Monaco's workers at our assets (same origin: no
 * blob: URLs needed) and renders.
 */

/** The boot script's name under the asset prefix. */
export const BOOT_SCRIPT = 'aitia-graphiql-boot.js';
const CONFIG_ID = 'aitia-graphiql-config';

/** What the boot script does, as served (static: the per-page values are in the data block). */
export const BOOT_SCRIPT_SOURCE = `(function () {
  'use strict';
  var base = document.currentScript.src.replace(/[^/]*$/, '');
  var config = JSON.parse(document.getElementById('${CONFIG_ID}').textContent);
  self.MonacoEnvironment = {
    globalAPI: false,
    getWorkerUrl: function (_moduleId, label) {
      return base + config.workers[label];
    },
  };
  YogaGraphiQL.renderYogaGraphiQL(document.getElementById('root'), config.graphiql);
})();
`;

const CDN = /https:\/\/unpkg\.com\/@graphql-yoga\/graphiql@[0-9][^/"]*\/dist\/([^"\s>]+)/;
const WORKER = /(\w+):"(https:\/\/unpkg\.com\/[^"]+)"/g;

/** Monaco's worker files by label, as yoga's page names them, relative to the asset folder. */
export function workerFiles(yogaPage: string): Record<string, string> {
  const workers: Record<string, string> = {};
  for (const [, label, url] of yogaPage.matchAll(WORKER)) {
    const file = CDN.exec(url!)?.[1];
    if (file) workers[label!] = file;
  }
  return workers;
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!);
/** JSON safe inside a script element: no `</script>` or `<!--` can close or bend it. */
const scriptJson = (v: unknown) =>
  JSON.stringify(v)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');

/** The page, its assets under `assetPrefix`. */
export function renderGraphiQLPage(opts: GraphiQLOptions, assetPrefix: string, favicon: string): string {
  const yogaPage = renderGraphiQL(opts);
  const asset = (file: string) => `${assetPrefix}${file}`;
  const stylesheet = /href=(https:\/\/unpkg\.com\/[^\s>]+\.css)/.exec(yogaPage)?.[1];
  const css = stylesheet ? CDN.exec(stylesheet)?.[1] : undefined;
  const bundle = /<script src=(https:\/\/unpkg\.com\/[^\s>]+)>/.exec(yogaPage)?.[1];
  const umd = (bundle && CDN.exec(bundle)?.[1]) ?? 'yoga-graphiql.umd.js';
  const config = { workers: workerFiles(yogaPage), graphiql: opts };
  return [
    '<!doctype html><html lang=en><head><meta charset=utf-8>',
    `<title>${escapeHtml(opts.title ?? 'GraphiQL')}</title>`,
    favicon,
    css ? `<link rel=stylesheet href="${asset(css)}">` : '',
    '</head><body id=body class=no-focus-outline>',
    '<noscript>You need to enable JavaScript to run this app.</noscript>',
    `<div id=root>Loading ${escapeHtml(opts.title ?? 'GraphiQL')}...</div>`,
    `<script type=application/json id=${CONFIG_ID}>${scriptJson(config)}</script>`,
    `<script src="${asset(umd)}"></script>`,
    `<script src="${asset(BOOT_SCRIPT)}"></script>`,
    '</body></html>',
  ].join('');
}
