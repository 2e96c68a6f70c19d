// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
// Builds the HTML report's page template (the Makefile runs it after npm ci):
//   node build.mjs SRC_DIR NODE_MODULES OUT_FILE
// esbuild bundles page.js with the libraries it imports (d3-flame-graph,
// Chart.js; versions pinned by package-lock.json) into one script, minified;
// page.css and the libraries' CSS into one style sheet; both go inline into
// page.html, whose @FSP_DATA@ marker fsp-bpf replaces with the data. The
// page's Content-Security-Policy allows that one script (by its hash) and no
// network access.
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { createRequire } from 'node:module';

const [src, modules, out] = process.argv.slice(2).map((p) => resolve(p));
if (!out) {
  console.error('usage: node build.mjs SRC_DIR NODE_MODULES OUT_FILE');
  process.exit(2);
}
const require = createRequire(join(modules, 'noop.js'));
const esbuild = require('esbuild');

function fail(msg) {
  console.error('build.mjs: ' + msg);
  process.exit(1);
}

const result = await esbuild.build({
  entryPoints: [join(src, 'page.js')],
  bundle: true,
  minify: true,
  format: 'iife',
  target: ['chrome100', 'firefox100', 'safari15'],
  nodePaths: [modules],
  outdir: join(dirname(out), 'bundle'),
  write: false,
  legalComments: 'eof',
  charset: 'utf8',
  logLevel: 'warning',
});
let js = '', libcss = '';
for (const f of result.outputFiles) {
  if (f.path.endsWith('.js')) js = f.text;
  else if (f.path.endsWith('.css')) libcss = f.text;
}
if (!js) fail('esbuild produced no script');
const css = libcss + '\n' + readFileSync(join(src, 'page.css'), 'utf8');
// Nothing inline may end its element early or hold the data marker.
if (/<\/script/i.test(js) || /<!--/.test(js)) fail('the script holds "</script" or "<!--"');
if (/<\/style/i.test(css)) fail('the style sheet holds "</style"');
if (js.includes('@FSP_DATA@') || css.includes('@FSP_DATA@')) fail('the marker @FSP_DATA@ is in the script or style');
const hash = createHash('sha256').update(js, 'utf8').digest('base64');
let page = readFileSync(join(src, 'page.html'), 'utf8');
if (page.split('@FSP_DATA@').length !== 2) fail('page.html must hold the marker @FSP_DATA@ once');
page = page
  .replace("script-src 'unsafe-inline'", `script-src 'sha256-${hash}'`)
  .replace('<!--FSP-CSS-->', () => `<style>\n${css}</style>`)
  .replace('<!--FSP-JS-->', () => `<script>${js}</script>`);
if (!page.includes(`'sha256-${hash}'`)) fail('page.html has no script-src to pin');
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, page);
console.log(`  page     ${out}: ${page.length} bytes (script ${js.length}, style ${css.length})`);
