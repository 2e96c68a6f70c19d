// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
// The flame graph (d3-flame-graph): all -> [process -> [thread ->]] feature
// -> instance [-> native frames], of the charges rows of the selected
// threads. A sample charged to n nested features is in n feature boxes, as
// in folded stacks (docs/output-formats.md): each feature's box is its
// charged time, the root the sum of the boxes.
import flamegraph from 'd3-flame-graph';
import { select } from 'd3-selection';
import { el, cfixed, ms, pct, plural } from './common.js';
import { selectedThreads, procName, threadName } from './model.js';

const NO_FEATURE = '(no feature)';

function child(node, name, kind) {
  let c = node.index.get(name);
  if (!c) {
    c = { name, kind, value: 0, children: [], index: new Map() };
    node.index.set(name, c);
    node.children.push(c);
  }
  return c;
}

// The value of a row: on-CPU ns, off-CPU ns or both (wall).
function valueOf(what, period, samples, offcpu) {
  if (what === 'offcpu') return offcpu;
  if (what === 'wall') return samples * period + offcpu;
  return samples * period;
}

/*
 * The tree of the selection. by: feature, process or thread. Native frames
 * (a later issue) hang below their instance: a charges row's 6th column is
 * an index into native_stacks, a list of string indexes, caller first.
 */
export function buildTree(D, sel, by, what) {
  const S = D.strings, period = D.meta.period_ns;
  const root = { name: 'all', kind: 'root', value: 0, children: [], index: new Map() };
  const threads = selectedThreads(D, sel);
  const inSel = new Set(threads);
  // the path of a thread's boxes above its features: [root, process?, thread?]
  const tops = new Map();
  const top = (ti) => {
    let boxes = tops.get(ti);
    if (!boxes) {
      const t = D.threads[ti];
      boxes = [root];
      if (by !== 'feature') boxes.push(child(root, procName(D, t[0]), 'process'));
      if (by === 'thread') boxes.push(child(boxes[1], threadName(D, ti), 'thread'));
      tops.set(ti, boxes);
    }
    return [...boxes];
  };
  const add = (path, v) => {
    for (const n of path) n.value += v;
  };
  for (const c of D.charges) {
    if (!inSel.has(c[0])) continue;
    const v = valueOf(what, period, c[3], c[4]);
    if (!v) continue;
    const path = top(c[0]);
    path.push(child(path[path.length - 1], S[c[1]], 'feature'));
    path.push(child(path[path.length - 1], S[c[2]], 'instance'));
    const native = c.length > 5 && c[5] >= 0 ? D.native_stacks[c[5]] : null;
    for (const s of native || []) path.push(child(path[path.length - 1], S[s], 'native'));
    add(path, v);
  }
  // the time charged to no feature (not with --feature: folded stacks neither)
  if (!D.filter.features) {
    for (const ti of threads) {
      const t = D.threads[ti];
      const v = valueOf(what, period, t[5], t[6]);
      if (!v) continue;
      const path = top(ti);
      path.push(child(path[path.length - 1], NO_FEATURE, 'none'));
      add(path, v);
    }
  }
  const strip = (n) => {
    delete n.index;
    n.children.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    n.children.forEach(strip);
    return n;
  };
  return strip(root);
}

export class Flame {
  constructor(D, container) {
    this.D = D;
    this.box = el('div', { id: 'flamegraph' });
    this.details = el('div', { id: 'flame-details', class: 'details' });
    this.by = 'feature';
    this.what = 'samples';
    const has = D.totals.offcpu_ns > 0;
    const search = el('input', { id: 'flame-search', type: 'search', placeholder: 'search (substring)' });
    search.addEventListener('input', () => this.search(search.value));
    const select1 = (id, opts, on) =>
      el('select', { id, onchange: (e) => on(e.target.value) }, opts.map(([v, l]) => el('option', { value: v }, l)));
    container.append(
      el('div', { class: 'controls' },
        el('label', {}, 'group by ', select1('flame-by', [['feature', 'feature'], ['process', 'process'], ['thread', 'thread']], (v) => { this.by = v; this.draw(); })),
        has ? el('label', {}, ' value ', select1('flame-value', [['samples', 'on-CPU time'], ['offcpu', 'off-CPU time'], ['wall', 'on + off CPU']], (v) => { this.what = v; this.draw(); })) : null,
        ' ', search,
        el('button', { id: 'flame-reset', onclick: () => this.chart && this.chart.resetZoom() }, 'reset zoom')),
      el('p', { class: 'muted' }, 'Click a box to zoom into it, the root to zoom out. A sample charged to several nested features is in each of their boxes.'),
      this.box, this.details);
  }

  setSelection(sel) {
    this.sel = sel;
    if (this.visible) this.draw();
  }

  search(term) {
    if (!this.chart) return;
    this.searchText = '';
    if (term) this.chart.search(term);
    else this.chart.clear();
  }

  // What a search found, in the boxes' unit (ns, shown as ms; the
  // library's own text calls any value "samples").
  searched(results, sum, total) {
    this.searchText = `search: ${ms(sum)} ms of ${ms(total)} ms (${pct(sum, total)}) in ${plural(results.length, 'box', 'boxes')}`;
    this.details.textContent = this.searchText;
  }

  draw() {
    this.visible = true;
    const tree = buildTree(this.D, this.sel, this.by, this.what);
    const total = tree.value;
    const width = Math.max(600, this.box.clientWidth || document.body.clientWidth - 40);
    const label = (d) => {
      const v = d.value ?? d.data.value;
      const share = total ? cfixed((100 * v) / total, 2) : '0.00';
      return `${d.data.name}: ${ms(v)} ms, ${share}% of all`;
    };
    this.chart = flamegraph()
      .width(width)
      .cellHeight(18)
      .transitionDuration(300)
      .minFrameSize(1)
      .sort(true)
      .title('')
      .getName((d) => d.data.name)
      .setColorMapper((d, orig) => (d.highlight ? '#e600e6' : d.data.kind === 'none' ? '#ccc' : orig))
      .setSearchMatch((d, term) => !!term && d.data.name.toLowerCase().includes(term.toLowerCase()))
      .setLabelHandler(label)
      .setDetailsElement(this.details)
      .setSearchHandler((results, sum, total) => this.searched(results, sum, total))
      .setDetailsHandler((text) => (this.details.textContent = text || this.searchText));
    this.searchText = '';
    this.box.replaceChildren();
    if (!total) {
      this.box.appendChild(el('p', { class: 'muted' }, 'Nothing to show: no time in this selection.'));
      this.chart = null;
      return;
    }
    select(this.box).datum(tree).call(this.chart);
  }
}
