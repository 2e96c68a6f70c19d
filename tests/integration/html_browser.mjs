// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * html_browser.mjs - drives Debian's chromium (headless, playwright-core over
 * the DevTools protocol) through fsp-bpf's HTML reports, for
 * tests/integration/test_html.c:
 *
 *   node html_browser.mjs MODE HTML [ARGS...]
 *
 *   profile HTML TEXT SHOTS   the table equals the text report TEXT (--min-pct
 *                             0): every feature and instance, time, share,
 *                             samples, calls, time/call, max, off-CPU, in the
 *                             report's order; a click on a column header
 *                             sorts by it; a click on a FILE:LINE instance
 *                             shows that source line, colored, and the
 *                             instance's histogram; the flame graph zooms and
 *                             searches; a thread filter changes the table
 *   diff HTML TEXT SHOTS      the table equals the diff's text table; sorting;
 *                             a FILE:LINE instance's line colored by change
 *   hostile HTML SHOTS        labels that are markup render as text: no script
 *                             of theirs runs, no element of theirs is made
 *   extend HTML SHOTS         the extension points: plug-in sections and
 *                             native frames put into the page's data render
 *                             (the flame graph, the native functions tab)
 *   native HTML TEXT SHOTS    a profile with native stacks: the Native
 *                             functions tab equals the text report's hottest
 *                             functions (TEXT: --min-pct 0 --top-functions
 *                             20), the flame graph has the native frames
 *   perf HTML MAX_MS [HASH]   the page is drawn within MAX_MS of navigation
 *                             (to HTML#HASH: e.g. calls=request%3E%3D20ms, a
 *                             call selection made before it is drawn)
 *   calls HTML DIR SHOTS      a profile with calls (record --calls): opened at
 *                             #calls=request>=6ms, the summary table and the
 *                             flame graph equal report --calls's JSON of that
 *                             selection (DIR/sel.json), the Calls tab's first
 *                             lines its text (DIR/sel.txt), the other calls
 *                             DIR/oth.json (request<6ms); a drag over the
 *                             histogram from 6 ms to its end selects
 *                             request>=6ms, a click on the bin from 2 ms
 *                             request>=2ms<3ms (DIR/range.json), shift+right
 *                             widens it, a typed p99 selects; DIR/sel.html
 *                             (report --calls --format html) opens at the
 *                             selection; the page's
 *                             numbers of the two groups go to DIR/page.json
 *
 * Every mode fails on a console error, an uncaught exception or a request
 * that is not the file itself. Screenshots go to SHOTS (test artefacts).
 * Prints "ok: ..." lines and exits 0, or prints "FAIL: ..." and exits 1.
 */
import { createRequire } from 'node:module';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join, dirname, resolve } from 'node:path';

const modules = process.env.FSP_NODE_MODULES;
if (!modules) {
  console.log('FAIL: FSP_NODE_MODULES (the npm ci of analysis/render/html) is not set');
  process.exit(1);
}
const require = createRequire(join(modules, 'noop.js'));
const { chromium } = require('playwright-core');

const CHROMIUM = process.env.FSP_CHROMIUM || '/usr/bin/chromium';
const [mode, htmlArg, ...args] = process.argv.slice(2);
const html = resolve(htmlArg);
const problems = [];

function check(cond, msg) {
  if (!cond) throw new Error(msg);
}

async function open(file, shots, width = 1400, hash = '') {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const page = await browser.newPage({ viewport: { width, height: 1000 } });
  page.on('console', (m) => { if (m.type() === 'error') problems.push('console error: ' + m.text()); });
  page.on('pageerror', (e) => problems.push('page error: ' + e.message));
  page.on('dialog', (d) => { problems.push('a dialog opened: ' + d.message()); d.dismiss(); });
  page.on('request', (r) => { if (r.url().replace(/#.*$/s, '') !== 'file://' + file && !r.url().startsWith('data:')) problems.push('request: ' + r.url()); });
  const t0 = Date.now();
  await page.goto('file://' + file + hash);
  await page.waitForSelector('body[data-ready="1"]', { timeout: 20000 });
  const ms = Date.now() - t0;
  if (shots) mkdirSync(shots, { recursive: true });
  return { browser, page, ms };
}

const shot = (page, shots, name) => page.screenshot({ path: join(shots, name + '.png'), fullPage: true });

// ---- the text report, parsed ----

const NUM = String.raw`[-+]?[0-9.]+`;
function parseText(text) {
  const feats = [];
  const fre = new RegExp(String.raw`^(.*) accounts for (${NUM})% of running time \((${NUM}) / ${NUM} ms, (\d+) samples?\)(.*)$`);
  const ire = new RegExp(String.raw`^\s+(${NUM}) ms\s+(${NUM})%\s+(?:(\d+|-) calls\s+(-|${NUM} \w+)/call\s+max\s+(-|${NUM} \w+)\s+)?(?:off-CPU\s+(${NUM}) ms\s+)?(.*)$`);
  for (const line of text.split('\n')) {
    if (/^(Note:|Wall-clock view|Diagnostics)/.test(line)) break; // the features end there
    if (/^\S/.test(line) && line.includes(' accounts for ')) {
      const m = fre.exec(line);
      check(m, 'cannot parse the feature line: ' + line);
      const rest = m[5];
      const calls = /; (\d+) calls?(?:, ([0-9.]+ \w+)\/call, max ([0-9.]+ \w+))?/.exec(rest);
      const off = /; off-CPU (\S+) ms/.exec(rest);
      feats.push({ name: m[1], share: m[2] + '%', time: m[3], samples: m[4],
        calls: calls ? calls[1] : null, percall: calls ? calls[2] || '-' : null, max: calls ? calls[3] || '-' : null,
        offcpu: off ? off[1] : null, instances: [] });
    } else if (feats.length && /^\s+\d/.test(line) && / ms\s+[0-9.]+%/.test(line)) {
      const m = ire.exec(line);
      check(m, 'cannot parse the instance line: ' + line);
      feats[feats.length - 1].instances.push({ name: m[7], time: m[1], share: m[2] + '%',
        calls: m[3] ?? null, percall: m[4] ?? null, max: m[5] ?? null, offcpu: m[6] ?? null });
    }
  }
  return feats;
}

// The table's rows as the page shows them: [{kind, name, feature, cells: {key: text}}].
async function tableRows(page) {
  return page.$$eval('#features tbody tr.feature, #features tbody tr.instance', (trs) => trs.map((tr) => {
    const cells = {};
    for (const td of tr.querySelectorAll('td')) {
      const key = [...td.classList].find((c) => c !== 'num' && c !== 'name') || (td.classList.contains('name') ? 'name' : '');
      const unit = td.querySelector('.unit');
      let text = td.textContent;
      if (unit) text = text.slice(0, text.length - unit.textContent.length);
      cells[key] = text.trim();
      cells[key + '@'] = td.dataset.value;
    }
    return { kind: tr.classList.contains('feature') ? 'feature' : 'instance', name: tr.dataset.name, feature: tr.dataset.feature, cells };
  }));
}

function compareProfile(rows, feats) {
  const ft = rows.filter((r) => r.kind === 'feature');
  check(ft.length === feats.length, `the table has ${ft.length} features, the text report ${feats.length}`);
  let n = 0;
  feats.forEach((f, i) => {
    const r = ft[i];
    check(r.name === f.name, `feature ${i}: table ${r.name}, text ${f.name} (order or name)`);
    for (const k of ['time', 'share', 'samples', 'calls', 'percall', 'max', 'offcpu']) {
      if (f[k] === null || f[k] === undefined) continue;
      check(r.cells[k] === f[k], `${f.name} ${k}: table ${r.cells[k]}, text ${f[k]}`);
      n++;
    }
    const inst = rows.filter((x) => x.kind === 'instance' && x.feature === f.name);
    check(inst.length === f.instances.length, `${f.name}: ${inst.length} instances in the table, ${f.instances.length} in the text`);
    f.instances.forEach((x, j) => {
      check(inst[j].name === x.name, `${f.name} instance ${j}: table ${inst[j].name}, text ${x.name}`);
      for (const k of ['time', 'share', 'calls', 'percall', 'max', 'offcpu']) {
        if (x[k] === null || x[k] === undefined) continue;
        check(inst[j].cells[k] === x[k], `${f.name} / ${x.name} ${k}: table ${inst[j].cells[k]}, text ${x[k]}`);
        n++;
      }
    });
  });
  return n;
}

// Clicks the header of key and checks that features (and each feature's
// instances) are in that order.
async function checkSort(page, key, numeric) {
  await page.click(`#features th[data-key="${key}"]`);
  const rows = await tableRows(page);
  const desc = await page.$eval(`#features th[data-key="${key}"]`, (th) => th.textContent.includes('\u25bc'));
  const val = (r) => (numeric ? Number(r.cells[key + '@']) : r.name);
  const ok = (a, b) => (numeric ? (desc ? val(a) >= val(b) : val(a) <= val(b)) : desc ? val(a) >= val(b) : val(a).localeCompare(val(b)) <= 0);
  const groups = [rows.filter((r) => r.kind === 'feature')];
  for (const f of groups[0]) groups.push(rows.filter((r) => r.kind === 'instance' && r.feature === f.name));
  for (const g of groups)
    for (let i = 1; i < g.length; i++) check(ok(g[i - 1], g[i]), `sorted by ${key}${desc ? ' (descending)' : ''}: ${g[i - 1].name} before ${g[i].name}`);
  return desc;
}

async function checkSource(page, feature, label) {
  const line = Number(/:(\d+)$/.exec(label)[1]);
  await page.click(`#features tr.instance[data-feature="${feature}"][data-name="${label}"] a.label`);
  await page.waitForSelector('#source-view');
  const missing = await page.$eval('#source-view', (e) => e.querySelector('.missing')?.textContent ?? null);
  check(!missing, `${label}: the source is not shown: ${missing}`);
  const cur = await page.$eval(`#source-view .line[data-line="${line}"]`, (e) => ({
    current: e.classList.contains('current'), cost: e.classList.contains('cost'),
    bg: getComputedStyle(e).backgroundColor, text: e.querySelector('.lt').textContent, visible: e.getBoundingClientRect().height > 0,
  }));
  check(cur.current && cur.visible, `${label}: line ${line} is not shown as the current line`);
  check(cur.cost && cur.bg !== 'rgba(0, 0, 0, 0)' && cur.bg !== 'transparent', `${label}: line ${line} is not colored (${cur.bg})`);
  return cur;
}

async function checkFlame(page, shots, feature) {
  await page.click('#tab-flame');
  await page.waitForSelector('#flamegraph svg g.frame');
  await page.waitForTimeout(900);
  const svgw = await page.$eval('#flamegraph svg', (s) => Number(s.getAttribute('width')));
  const width = (name) => page.$eval(`#flamegraph g.frame[name="${name}"] rect`, (r) => Number(r.getAttribute('width')));
  const before = await width(feature);
  check(before > 0 && before < svgw * 0.99, `flame graph: ${feature} is ${before} of ${svgw} px before the zoom`);
  await shot(page, shots, 'flame');
  await page.click(`#flamegraph g.frame[name="${feature}"]`);
  await page.waitForTimeout(1200);
  const after = await width(feature);
  check(after >= svgw * 0.99, `flame graph: after a click ${feature} is ${after} of ${svgw} px, not zoomed`);
  await shot(page, shots, 'flame-zoomed');
  await page.click('#flame-reset');
  await page.waitForTimeout(1000);
  check((await width(feature)) < svgw * 0.99, 'flame graph: reset zoom did not zoom out');
  await page.fill('#flame-search', feature);
  await page.waitForTimeout(300);
  const hl = await page.$$eval('#flamegraph g.frame rect', (rs) => rs.filter((r) => /e600e6/i.test(r.getAttribute('fill')) || r.getAttribute('fill') === 'rgb(230, 0, 230)').length);
  check(hl >= 1, `flame graph: searching ${feature} highlights nothing`);
  const found = await page.$eval('#flame-details', (d) => d.textContent);
  check(/^search: [0-9.]+ ms of [0-9.]+ ms \([0-9.]+%\) in [0-9]+ box/.test(found), `flame graph: the search says ${JSON.stringify(found)}`);
  return { before, after, svgw, hl };
}

// The order of the rows is a column's, shown (with off-CPU time: on + off
// CPU, --order cost); the "(no feature)" row and the notes say what the
// text report's do.
async function checkOrderAndNotes(page, text, feats) {
  const off = feats.some((f) => f.offcpu !== null);
  const key = await page.$eval('#features th.sorted', (th) => th.dataset.key);
  check(key === (off ? 'cost' : 'time'), `the rows are sorted by ${key}, not ${off ? 'on + off CPU' : 'time'}`);
  const rows = (await tableRows(page)).filter((r) => r.kind === 'feature');
  for (const r of rows) {
    if (!off) break;
    const sum = Number(r.cells['time@']) + Number(r.cells['offcpu@']);
    check(Number(r.cells['cost@']) === sum, `${r.name}: on + off CPU ${r.cells['cost@']} ns, not ${sum}`);
  }
  const none = /samples in no feature \(here ([0-9.]+%)\)/.exec(text.replace(/\n/g, ' '));
  check(none, 'the text report has no note on samples in no feature');
  const row = await page.$eval('#features tbody tr.none', (tr) => ({ last: !tr.nextElementSibling, name: tr.dataset.name, share: tr.querySelector('td.share').textContent }));
  check(row.last && row.name === '(no feature)' && row.share === none[1], `the (no feature) row: ${JSON.stringify(row)}, text ${none[1]}`);
  const note = await page.$eval('#note', (p) => p.textContent);
  if (text.includes('Calls are counted by the probes'))
    check(note.includes('Calls are counted by the probes, not sampled: time per call and max are of the calls that returned'), `the page's note has no word on calls: ${note}`);
  console.log(`ok: sorted by ${key} (shown), (no feature) ${row.share} last, the notes of the text report`);
}

async function modeProfile(textFile, shots) {
  const feats = parseText(readFileSync(textFile, 'utf8'));
  check(feats.length > 0, 'the text report has no feature');
  const { browser, page, ms } = await open(html, shots);
  await shot(page, shots, 'summary');
  const n = compareProfile(await tableRows(page), feats);
  console.log(`ok: the table equals the text report: ${feats.length} features, ${n} numbers (drawn in ${ms} ms)`);
  await checkOrderAndNotes(page, readFileSync(textFile, 'utf8'), feats);
  const d1 = await checkSort(page, 'samples', true);
  const d2 = await checkSort(page, 'samples', true);
  check(d1 !== d2, 'a second click did not reverse the order');
  await checkSort(page, 'name', false);
  await checkSort(page, 'time', true);
  console.log('ok: clicking samples (twice), name and time sorts the table');
  const fl = feats.flatMap((f) => f.instances.map((x) => [f.name, x.name])).find(([, x]) => /:\d+$/.test(x));
  check(fl, 'the recording has no FILE:LINE instance');
  const cur = await checkSource(page, fl[0], fl[1]);
  const hist = await page.$$eval('#hist-table tr', (trs) => trs.length);
  const canvas = await page.$$eval('#event-view canvas', (c) => c.length);
  check(hist > 0 && canvas === 1, `the event view has ${hist} histogram rows and ${canvas} charts`);
  await shot(page, shots, 'source');
  console.log(`ok: ${fl[1]} shows its line, colored: ${JSON.stringify(cur.text.trim())}; histogram of ${hist} buckets`);
  // one thread: its own numbers, and no calls (counted per process)
  const opts = await page.$$eval('#filter-thread option', (o) => o.map((x) => x.value));
  check(opts.length >= 3, 'the thread filter has fewer than two threads');
  await page.selectOption('#filter-thread', opts[1]);
  const one = await tableRows(page);
  const sum = one.filter((r) => r.kind === 'feature').reduce((a, r) => a + Number(r.cells['samples@']), 0);
  const all = feats.reduce((a, f) => a + Number(f.samples), 0);
  check(sum < all, `one thread has ${sum} feature samples of ${all}`);
  await shot(page, shots, 'thread');
  await page.selectOption('#filter-thread', '-1');
  console.log('ok: a thread filter shows that thread alone');
  const z = await checkFlame(page, shots, feats[0].name);
  console.log(`ok: the flame graph zooms (${feats[0].name}: ${z.before.toFixed(0)} -> ${z.after.toFixed(0)} of ${z.svgw} px) and searches`);
  await browser.close();
}

function parseDiff(text) {
  const rows = [];
  let nums = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith('feature / instance')) {
      nums = line.includes('predicted') ? 9 : 6;
      continue;
    }
    if (!nums || !line.trim() || line.includes(' more row')) continue;
    const flags = [];
    let t = line.trimEnd();
    for (let m; (m = /\s+(NEW|GONE)$/.exec(t)); t = t.slice(0, m.index)) flags.unshift(m[1]);
    const m = new RegExp(`^( *)(.*?)((?:\\s+\\S+){${nums}})$`).exec(t);
    check(m, 'cannot parse the diff line: ' + line);
    rows.push({ instance: m[1].length > 0, name: m[2], vals: m[3].trim().split(/\s+/), flags });
  }
  return rows;
}

async function modeDiff(textFile, shots) {
  const want = parseDiff(readFileSync(textFile, 'utf8'));
  check(want.length > 0, 'the diff text has no rows');
  const { browser, page } = await open(html, shots);
  await shot(page, shots, 'diff');
  const rows = await tableRows(page);
  const keys = ['base_ms', 'base_pct', 'new_ms', 'new_pct', 'delta_ms', 'delta_pp', 'predicted_ms', 'deviation_ms', 'growth'];
  check(rows.length === want.length, `the table has ${rows.length} rows, the text ${want.length}`);
  let n = 0;
  want.forEach((w, i) => {
    const r = rows[i];
    check(r.name === w.name && (r.kind === 'instance') === w.instance, `row ${i}: table ${r.kind} ${r.name}, text ${w.name}`);
    w.vals.forEach((v, k) => {
      check(r.cells[keys[k]] === v, `${w.name} ${keys[k]}: table ${r.cells[keys[k]]}, text ${v}`);
      n++;
    });
    const flags = (r.cells.flags || '').match(/NEW|GONE/g) || [];
    check(flags.join() === w.flags.join(), `${w.name}: flags ${flags} in the table, ${w.flags} in the text`);
  });
  console.log(`ok: the diff table equals the text: ${rows.length} rows, ${n} numbers`);
  await checkSort(page, 'new_ms', true);
  await checkSort(page, 'name', false);
  console.log('ok: clicking new ms and name sorts the diff table');
  const inst = rows.find((r) => r.kind === 'instance' && /:\d+$/.test(r.name));
  check(inst, 'the diff has no FILE:LINE instance');
  const cur = await checkSource(page, inst.feature, inst.name);
  await shot(page, shots, 'diff-source');
  console.log(`ok: ${inst.name} shows its line colored by change (${cur.bg})`);
  await browser.close();
}

async function modeHostile(shots) {
  const { browser, page } = await open(html, shots);
  const pwned = await page.evaluate(() => window.__pwned);
  check(pwned === undefined, 'a script from a label ran');
  const injected = await page.$$eval('img, iframe, object, embed', (e) => e.length);
  check(injected === 0, `${injected} elements made from labels`);
  const scripts = await page.$$eval('script', (s) => s.length);
  check(scripts === 2, `${scripts} script elements (the data's and the page's expected)`);
  const text = await page.$eval('#features', (t) => t.textContent);
  for (const l of ['</script><script>window.__pwned=1</script>', '<img src=x onerror="window.__pwned=1">', '<!-- <script>'])
    check(text.includes(l), `the label ${l} is not shown as text`);
  const title = await page.title();
  check(title.includes('<b>'), `the title does not show the target as text: ${title}`);
  const hostileSrc = await page.$$eval('#features tr.instance', (trs) => trs.map((t) => [t.dataset.feature, t.dataset.name]).find(([, n]) => /^evil.*\.c:\d+$/.test(n)));
  check(hostileSrc, 'no evil*.c:LINE instance');
  const cur = await checkSource(page, hostileSrc[0], hostileSrc[1]);
  check(cur.text.includes('<script>'), `the hostile source line is not shown as text: ${cur.text}`);
  await page.click('#tab-flame');
  await page.waitForSelector('#flamegraph svg g.frame');
  await page.waitForTimeout(800);
  check((await page.evaluate(() => window.__pwned)) === undefined, 'a script from a label ran in the flame graph');
  await shot(page, shots, 'hostile');
  console.log('ok: hostile labels and sources render as text; none ran or made an element');
  await browser.close();
}

// The extension points: plug-in sections and native frames, put into the data.
async function modeExtend(shots) {
  const page0 = readFileSync(html, 'utf8');
  const open0 = '<script type="application/json" id="fsp-data">';
  const a = page0.indexOf(open0) + open0.length, b = page0.indexOf('</script>', a);
  const D = JSON.parse(page0.slice(a, b));
  check(D.kind === 'profile' && Array.isArray(D.plugins) && Array.isArray(D.native_stacks), 'the data has no plugins or native_stacks array');
  const c0 = D.charges[0];
  const base = D.strings.length;
  D.strings.push('native_leaf()', 'native_caller()');
  D.native_stacks.push([base + 1, base]);
  D.charges.push([c0[0], c0[1], c0[2], 0, 0]);
  // half of the first row's samples get native frames below the instance
  const half = Math.floor(c0[3] / 2);
  D.charges[0] = [c0[0], c0[1], c0[2], c0[3] - half, c0[4]];
  D.charges[D.charges.length - 1] = [c0[0], c0[1], c0[2], half, 0, 0];
  D.plugins.push({ name: 'contracts <b>', sections: [
    { title: 'Blame', text: 'line one\n<i>not italic</i>', columns: null, rows: null },
    { title: 'Pairs', text: null, columns: ['pair', 'ms'], rows: [['<script>window.__pwned=1</script>', '1.5'], ['a & b', '2.0']] }] });
  const json = JSON.stringify(D).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026');
  const file = join(dirname(html), 'extended.html');
  writeFileSync(file, page0.slice(0, a) + json + page0.slice(b));
  const { browser, page } = await open(file, shots);
  await page.click('#tab-plugins-tab');
  const cells = await page.$$eval('#plugins td', (t) => t.map((x) => x.textContent));
  check(cells.includes('<script>window.__pwned=1</script>') && cells.includes('a & b'), `plug-in table cells: ${cells}`);
  const texts = await page.$$eval('#plugins .plugin-text', (t) => t.map((x) => x.textContent));
  check(texts.includes('line one\n<i>not italic</i>'), `plug-in text: ${texts}`);
  check((await page.evaluate(() => window.__pwned)) === undefined, 'a plug-in cell ran a script');
  await shot(page, shots, 'plugins');
  await page.click('#tab-flame');
  await page.waitForSelector('#flamegraph svg g.frame');
  await page.waitForTimeout(900);
  const names = await page.$$eval('#flamegraph g.frame', (g) => g.map((x) => x.getAttribute('name')));
  check(names.includes('native_caller()') && names.includes('native_leaf()'), 'the native frames are not in the flame graph');
  await shot(page, shots, 'native');
  // the native functions tab: the leaf's self and total are the half
  await page.click('#tab-native');
  await page.waitForSelector('#native-functions table.native');
  const rows = await page.$$eval(`#native-functions table.native[data-feature="${D.strings[c0[1]].replace(/["\\]/g, '\\$&')}"] tbody tr`,
    (t) => t.map((r) => [...r.children].map((x) => x.textContent)));
  check(rows.length === 1 && rows[0][0] === String(half) && rows[0][2] === String(half) && rows[0][4] === 'native_leaf()',
    `native functions rows: ${JSON.stringify(rows)}`);
  await shot(page, shots, 'native-functions');
  console.log('ok: plug-in sections render as text and tables; native frames hang below their instance');
  await browser.close();
}

// The text report's hottest functions per feature (not its instances'):
// [{feature, rows: [[self, self%, total, total%, label]]}].
function parseNative(text) {
  const out = [];
  let cur = null, inInstance = false;
  const part = text.slice(text.indexOf('\nNative stacks:'));
  for (const line of part.split('\n')) {
    let m = line.match(/^(\S.*): (\d+) samples?, (\d+) with a native stack/);
    if (m) {
      cur = { feature: m[1], rows: [] };
      out.push(cur);
      inInstance = false;
      continue;
    }
    if (/^  instance /.test(line)) inInstance = true;
    m = line.match(/^ +(\d+) +([\d.]+%) +(\d+) +([\d.]+%)  (.*)$/);
    if (m && cur && !inInstance) cur.rows.push([m[1], m[2], m[3], m[4], m[5].replace(/ \([^()]*\)$/, '')]);
  }
  return out;
}

async function modeNative(textFile, shots) {
  const want = parseNative(readFileSync(textFile, 'utf8'));
  check(want.length > 0 && want.every((f) => f.rows.length > 0), `the text has no hottest functions: ${JSON.stringify(want)}`);
  const { browser, page } = await open(html, shots);
  await page.click('#tab-native');
  await page.waitForSelector('#native-functions table.native');
  const got = await page.$$eval('#native-functions table.native', (ts) => ts.map((t) => ({
    feature: t.dataset.feature,
    rows: [...t.querySelectorAll('tbody tr')].map((r) => [...r.children].map((x) => x.textContent)),
  })));
  await shot(page, shots, 'native-functions');
  check(JSON.stringify(got) === JSON.stringify(want), `native functions:\n  page ${JSON.stringify(got)}\n  text ${JSON.stringify(want)}`);
  const n = want.reduce((a, f) => a + f.rows.length, 0);
  console.log(`ok: the native functions tab equals the text report: ${want.length} features, ${n} functions`);
  await page.click('#tab-flame');
  await page.waitForSelector('#flamegraph svg g.frame');
  await page.waitForTimeout(900);
  const names = await page.$$eval('#flamegraph g.frame', (g) => g.map((x) => x.getAttribute('name')));
  for (const f of want) for (const r of f.rows) check(names.includes(r[4]), `${r[4]} is not in the flame graph`);
  await shot(page, shots, 'native-flame');
  console.log('ok: the flame graph has the native frames below the instances');
  await browser.close();
}

async function modePerf(maxMs, hash) {
  const { browser, page, ms } = await open(html, null, 1400, hash ? '#' + hash : '');
  const render = await page.evaluate(() => Number(document.body.dataset.renderMs));
  const rows = await page.$$eval('#features tbody tr', (t) => t.length);
  console.log(`ok: perf: drawn ${ms} ms after navigation (script ${render} ms), ${rows} table rows`);
  check(ms < maxMs, `the page took ${ms} ms, more than ${maxMs} ms`);
  await browser.close();
}

// ---- calls (record --calls) ----

// The summary table as {feature: {samples, offcpu_ns, instances: {name: samples}}}.
async function tableCounts(page) {
  await page.click('#tab-summary');
  const out = {};
  for (const r of await tableRows(page)) {
    if (r.kind === 'feature') out[r.name] = { samples: Number(r.cells['samples@']), offcpu_ns: Number(r.cells['offcpu@'] ?? 0), instances: {} };
    else out[r.feature].instances[r.name] = Number(r.cells['samples@']);
  }
  return out;
}

// The table equals report --calls's JSON (features and instances, samples).
function compareCounts(got, prof, what) {
  let n = 0;
  for (const f of prof.features) {
    check(got[f.name], `${what}: ${f.name} (${f.samples} samples) is not in the table`);
    check(got[f.name].samples === f.samples, `${what}: ${f.name}: ${got[f.name].samples} samples in the table, ${f.samples} in report --calls`);
    for (const x of f.instances) {
      check(got[f.name].instances[x.name] === x.samples, `${what}: ${f.name} / ${x.name}: ${got[f.name].instances[x.name]} samples in the table, ${x.samples} in report --calls`);
      n++;
    }
    n++;
  }
  for (const [name, f] of Object.entries(got))
    check(!f.samples || prof.features.some((x) => x.name === name), `${what}: ${name} (${f.samples} samples) is in the table, not in report --calls`);
  return n;
}

// The flame graph's feature boxes (on-CPU ms) against the JSON's samples.
async function compareFlame(page, prof, what) {
  await page.click('#tab-flame');
  await page.waitForSelector('#flamegraph svg g.frame');
  const period = await page.evaluate(() => JSON.parse(document.getElementById('fsp-data').textContent).meta.period_ns);
  const boxes = await page.$$eval('#flamegraph g.frame', (g) => g.map((x) => [x.getAttribute('name'), x.querySelector('title')?.textContent ?? '']));
  const msOf = (name) => {
    const b = boxes.find(([n]) => n === name);
    const m = b && /: ([0-9.]+) ms, /.exec(b[1]);
    return m ? Number(m[1]) : null;
  };
  let n = 0, total = 0;
  for (const f of prof.features) {
    total += f.samples;
    const got = msOf(f.name), want = (f.samples * period) / 1e6;
    if (got === null && f.samples * 200 < prof.features[0].samples) continue; // narrower than a pixel
    check(got !== null && Math.abs(got - want) <= 0.05 + 1e-9, `${what}: flame graph box ${f.name} is ${got} ms, report --calls ${f.samples} samples = ${want} ms`);
    n++;
  }
  const root = msOf('all'), want = (total * period) / 1e6;
  check(root !== null && Math.abs(root - want) <= 0.05 + 1e-9, `${what}: the flame graph's root is ${root} ms, the features of report --calls ${want} ms`);
  return { n, names: boxes.map(([x]) => x) };
}

async function waitCalls(page, sel) {
  await page.waitForFunction((s) => document.body.dataset.calls === s, sel, { timeout: 10000 }).catch(async () => {
    throw new Error(`the page's selection is ${JSON.stringify(await page.evaluate(() => document.body.dataset.calls))}, not ${sel}`);
  });
}

// The centre of histogram bin b (its bars' x, the canvas's middle height).
async function binPoint(page, b) {
  return page.$eval('#calls-histogram', (c, b) => {
    const r = c.getBoundingClientRect();
    return { x: r.left + JSON.parse(c.dataset.bins)[b], y: r.top + r.height / 2 };
  }, b);
}

async function binIndex(page, lower) {
  const labels = await page.$$eval('#calls-bins tbody tr', (t) => t.map((r) => r.firstChild.textContent));
  const b = labels.findIndex((l) => l.startsWith(`[${lower},`));
  check(b >= 0, `the histogram has no bin from ${lower}: ${labels}`);
  return { b, last: labels.length - 1 };
}

async function modeCalls(dir, shots) {
  const sel = JSON.parse(readFileSync(join(dir, 'sel.json'), 'utf8'));
  const oth = JSON.parse(readFileSync(join(dir, 'oth.json'), 'utf8'));
  const range = JSON.parse(readFileSync(join(dir, 'range.json'), 'utf8'));
  const text = readFileSync(join(dir, 'sel.txt'), 'utf8').split('\n').slice(0, 2).join('\n');
  const S = 'request>=6ms';
  const { browser, page } = await open(html, shots, 1400, '#calls=' + encodeURIComponent(S));
  await waitCalls(page, S);
  const banner = await page.$eval('#call-banner', (b) => (b.hidden ? '' : b.textContent));
  check(banner.includes(S), `the banner says ${JSON.stringify(banner)}`);
  const selCounts = await tableCounts(page);
  let n = compareCounts(selCounts, sel, S);
  await shot(page, shots, 'selected-summary');
  const fl = await compareFlame(page, sel, S);
  await page.waitForTimeout(900); // the boxes' transition
  check(fl.names.includes('rare_expensive'), 'the selected calls\' flame graph has no rare_expensive frame');
  await shot(page, shots, 'selected-flame');
  console.log(`ok: #calls=${S}: the table (${n} numbers) and the flame graph (${fl.n} features) equal report --calls's JSON`);
  await page.click('#tab-calls');
  await page.waitForSelector('#calls-histogram');
  const info = await page.$eval('#call-info', (p) => p.textContent);
  check(info === text, `the Calls tab says\n${info}\nreport --calls says\n${text}`);
  const more = await page.$$eval('#calls-more-table tbody tr.feature', (t) => t.map((r) => ({
    name: r.dataset.name, diff: Number(r.querySelector('.diff').textContent), offsel: Number(r.querySelector('.offsel')?.textContent ?? 0) })));
  const row = (f) => more.find((r) => r.name === f) || { diff: NaN, offsel: NaN };
  check(row('rare').diff > 0 && row('parse').diff > 0 && row('lockwait').offsel > 0,
    `what the selected calls do more: ${JSON.stringify(more)}`);
  await shot(page, shots, 'calls-tab');
  console.log(`ok: the Calls tab says what report --calls says; the selected calls do more rare (${row('rare').diff} pp) and parse (${row('parse').diff} pp), wait ${row('lockwait').offsel} ms for the lock`);
  // the other calls
  await page.selectOption('#call-which', 'others');
  const othCounts = await tableCounts(page);
  n = compareCounts(othCounts, oth, 'the other calls');
  check(!othCounts.rare, 'the other calls have rare samples');
  console.log(`ok: the other calls' table equals report --calls 'request<6ms' (${n} numbers)`);
  writeFileSync(join(dir, 'page.json'), JSON.stringify({ selected: selCounts, others: othCounts }));
  // a drag from the bin of 6 ms to the last one
  await page.click('#tab-calls');
  await page.click('#call-clear');
  await waitCalls(page, '');
  await page.click('#tab-calls');
  const six = await binIndex(page, '6.00 ms');
  const p0 = await binPoint(page, six.b), p1 = await binPoint(page, six.last);
  await page.mouse.move(p0.x, p0.y);
  await page.mouse.down();
  await page.mouse.move((p0.x + p1.x) / 2, p0.y, { steps: 4 });
  await page.mouse.move(p1.x, p1.y, { steps: 4 });
  await page.mouse.up();
  await waitCalls(page, S);
  const hash = await page.evaluate(() => location.hash);
  check(hash === '#calls=' + encodeURIComponent(S), `after the drag the address is ${hash}`);
  compareCounts(await tableCounts(page), sel, 'the drag');
  console.log(`ok: a drag over the histogram from 6 ms to its end selects ${S} (the address too)`);
  // a click on the bin from 2 ms, then shift+right widens it
  await page.click('#tab-calls');
  const two = await binIndex(page, '2.00 ms');
  const p2 = await binPoint(page, two.b);
  await page.mouse.click(p2.x, p2.y);
  await waitCalls(page, 'request>=2ms<3ms');
  compareCounts(await tableCounts(page), range, 'request>=2ms<3ms');
  await page.click('#tab-calls');
  await page.focus('#calls-histogram');
  await page.keyboard.press('Shift+ArrowRight');
  await waitCalls(page, 'request>=2ms<4ms');
  console.log('ok: a click on the bin from 2 ms selects request>=2ms<3ms (its table equals report --calls), shift+right widens it to 4 ms');
  await page.fill('#call-selector', 'request p99');
  await page.press('#call-selector', 'Enter');
  await waitCalls(page, 'request p99');
  const p99 = await page.$eval('#call-info', (p) => p.textContent);
  check(/\(p99: [0-9.]+ ms and longer\)/.test(p99), `typed p99: ${p99}`);
  await shot(page, shots, 'p99');
  console.log('ok: a typed selector (request p99) selects');
  await browser.close();
  // report --calls S --format html: the whole page, opened at S
  const fixed = await open(join(dir, 'sel.html'), null);
  await waitCalls(fixed.page, S);
  compareCounts(await tableCounts(fixed.page), sel, 'report --calls --format html');
  console.log(`ok: report --calls '${S}' --format html opens at ${S}`);
  await fixed.browser.close();
}

// The first lines of report --calls's text view (DIR/NAME.txt): the
// describing ones, up to the blank line.
function describeText(dir, name) {
  const lines = readFileSync(join(dir, name), 'utf8').split('\n');
  return lines.slice(0, lines.indexOf('')).join('\n');
}

// The histogram's bins: selected and other calls summed.
async function binSums(page) {
  await page.click('#tab-calls');
  await page.waitForSelector('#calls-histogram');
  const rows = await page.$$eval('#calls-bins tbody tr', (t) => t.map((r) => [Number(r.children[1].textContent), Number(r.children[2].textContent)]));
  return rows.reduce((a, [x, y]) => [a[0] + x, a[1] + y], [0, 0]);
}

// A bounded profile (record --calls-keep): sampled calls count as the calls
// they stand for on the page as in report --calls, for a duration and for
// a percentile (the p90 button: its other calls are checked by the Calls
// tab's lines, which count their samples).
async function modeCallsKeep(dir, shots) {
  const S = 'request>=6ms', P = 'request p90';
  const { browser, page } = await open(html, shots, 1400, '#calls=' + encodeURIComponent(S));
  for (const [sel, json, oth, txt] of [[S, 'sel.json', 'oth.json', 'sel.txt'], [P, 'p90.json', null, 'p90.txt']]) {
    if (sel === P) {
      await page.click('#tab-calls');
      await page.click('button.pct[data-pct="p90"]');
    }
    await waitCalls(page, sel);
    const want = JSON.parse(readFileSync(join(dir, json), 'utf8')), text = describeText(dir, txt);
    check(text.includes('Bounded (--calls-keep)'), `report --calls '${sel}' has no bound: ${text}`);
    let n = compareCounts(await tableCounts(page), want, sel);
    const fl = await compareFlame(page, want, sel);
    await page.click('#tab-calls');
    await page.waitForSelector('#calls-histogram');
    const info = await page.$eval('#call-info', (p) => p.textContent);
    check(info === text, `the Calls tab says\n${info}\nreport --calls says\n${text}`);
    // the histogram: as many calls as report --calls counts, the selected ones too
    const m = /selected: (\d+) of (\d+) /.exec(text), bins = await binSums(page);
    check(m && bins[0] === Number(m[1]) && bins[0] + bins[1] === Number(m[2]),
      `${sel}: the histogram has ${bins[0]} selected of ${bins[0] + bins[1]} calls, report --calls ${m && m[1]} of ${m && m[2]}`);
    await shot(page, shots, `keep-${sel === S ? 'sel' : 'p90'}`);
    if (oth) {
      // the other calls (report --calls of the complement, request<6ms)
      await page.selectOption('#call-which', 'others');
      n += compareCounts(await tableCounts(page), JSON.parse(readFileSync(join(dir, oth), 'utf8')), `${sel}: the other calls`);
      await page.selectOption('#call-which', 'selected');
    }
    console.log(`ok: bounded, ${sel}: the tables (${n} numbers), the flame graph (${fl.n} features), the histogram (${bins[0]} of ${bins[0] + bins[1]} calls) and the Calls tab's lines equal report --calls's`);
  }
  await browser.close();
}

try {
  if (mode === 'calls') await modeCalls(args[0], args[1]);
  else if (mode === 'callskeep') await modeCallsKeep(args[0], args[1]);
  else if (mode === 'profile') await modeProfile(args[0], args[1]);
  else if (mode === 'diff') await modeDiff(args[0], args[1]);
  else if (mode === 'hostile') await modeHostile(args[0]);
  else if (mode === 'extend') await modeExtend(args[0]);
  else if (mode === 'native') await modeNative(args[0], args[1]);
  else if (mode === 'perf') await modePerf(Number(args[0]), args[1]);
  else throw new Error('unknown mode ' + mode);
} catch (e) {
  problems.push(e.message);
}
if (problems.length) {
  for (const p of problems) console.log('FAIL: ' + p);
  process.exit(1);
}
console.log('ok: no console error, no exception, no request');
process.exit(0);
