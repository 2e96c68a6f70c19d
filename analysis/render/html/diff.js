// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
// The page of a diff (fsp-bpf diff --format html): the numbers of the diff's
// JSON document (docs/diff-format.md) as a sortable table, NEW and GONE
// marked, the source of an instance colored by change (or, with --scale K,
// by deviation from linear growth), the plug-in sections.
import { el, cfixed, signed, td, bar, diverging, fileLine, sourceView, pluginSections, tabs, facts, when, SortTable } from './common.js';

function sideFacts(label, s) {
  return [label, `${s.target ?? 'an unnamed target'}${s.host ? ' on ' + s.host : ''}, started ${when(s.start_time)}, ${s.total_samples} samples = ${cfixed(s.total_ms, 1)} ms (${cfixed(s.period_ns / 1e6, 3)} ms per sample)`];
}

function header(X) {
  const t = X.totals, scaled = X.scale !== 1;
  return el('header', { id: 'summary-header' },
    el('h1', {}, 'fsp-bpf diff of feature profiles'),
    facts([
      sideFacts('base', X.base),
      sideFacts('new', X.new),
      ['total', `${cfixed(t.base_ms, 1)} ms -> ${cfixed(t.new_ms, 1)} ms, change ${signed(t.delta_ms, 1)} ms${t.growth !== null ? ' (x' + cfixed(t.growth, 2) + ')' : ''}`],
      ['scale', scaled ? `${X.scale}: predicted ${cfixed(t.predicted_ms, 1)} ms (${X.scale} x base), deviation ${signed(t.deviation_ms, 1)} ms; sources colored by deviation from linear growth` : null],
    ]),
    el('p', { class: 'muted' }, "Shares are of each profile's samples; a sample can be charged to several features or to none, so shares need not sum to 100%."));
}

class DiffTable {
  constructor(data, pane) {
    this.data = data;
    const X = data.diff;
    this.scaled = X.scale !== 1;
    const cols = [
      { key: 'name', label: 'feature / instance', cls: 'name' },
      { key: 'base_ms', label: 'base ms', num: true },
      { key: 'base_pct', label: 'base %', num: true },
      { key: 'new_ms', label: 'new ms', num: true },
      { key: 'new_pct', label: 'new %', num: true },
      { key: 'delta_ms', label: '+/- ms', num: true },
      { key: 'delta_pp', label: '+/- pp', num: true },
    ];
    if (this.scaled)
      cols.push({ key: 'predicted_ms', label: 'predicted', num: true }, { key: 'deviation_ms', label: 'deviation', num: true }, { key: 'growth', label: 'growth', num: true });
    cols.push({ key: 'flags', label: '', cls: 'flags' });
    const key = this.scaled ? 'absdev' : 'absdelta';
    this.table = new SortTable(cols, (g, kids, frag) => this.rows(g, kids, frag), { key, desc: true });
    this.table.table.id = 'features';
    this.detail = el('aside', { id: 'detail' }, el('p', { class: 'muted' }, 'Click an instance to see its source, colored by ' + (this.scaled ? 'deviation from linear growth.' : 'change.')));
    const mag = (r) => Math.abs(this.scaled ? r.deviation_ms : r.delta_ms);
    this.maxMag = Math.max(0, ...X.features.map(mag));
    const item = (r) => ({ r, sort: { ...r, name: r.name, growth: r.growth ?? -Infinity, flags: (r.new ? 2 : 0) + (r.gone ? 1 : 0), absdelta: Math.abs(r.delta_ms), absdev: Math.abs(r.deviation_ms) } });
    this.table.setGroups(X.features.map((f) => ({ row: item(f), children: f.instances.map(item) })));
    pane.append(el('div', { class: 'split' }, el('div', { class: 'tablebox' }, this.table.table), this.detail));
  }

  cells(r, depth) {
    const v = this.scaled ? r.deviation_ms : r.delta_ms;
    const name = el('td', { class: 'name', style: { paddingLeft: 0.4 + depth * 1.4 + 'em' } });
    const change = el('td', { class: 'num delta_ms', 'data-value': r.delta_ms }, signed(r.delta_ms, 1));
    const tds = [name,
      td(cfixed(r.base_ms, 1), r.base_ms, 'num base_ms'), td(cfixed(r.base_pct, 2) + '%', r.base_pct, 'num base_pct'),
      td(cfixed(r.new_ms, 1), r.new_ms, 'num new_ms'), td(cfixed(r.new_pct, 2) + '%', r.new_pct, 'num new_pct'),
      change, td(signed(r.delta_pp, 2), r.delta_pp, 'num delta_pp')];
    if (this.scaled)
      tds.push(td(cfixed(r.predicted_ms, 1), r.predicted_ms, 'num predicted_ms'), td(signed(r.deviation_ms, 1), r.deviation_ms, 'num deviation_ms'),
        td(r.growth === null ? '-' : 'x' + cfixed(r.growth, 2), r.growth ?? '', 'num growth'));
    const f = this.maxMag ? v / this.maxMag : 0;
    (this.scaled ? tds[8] : change).appendChild(bar(Math.abs(f), f >= 0 ? '#d62828' : '#277da1'));
    tds.push(el('td', { class: 'flags' }, r.new ? el('span', { class: 'flag new' }, 'NEW') : null, r.gone ? el('span', { class: 'flag gone' }, 'GONE') : null));
    return tds;
  }

  rows(g, kids, frag) {
    const f = g.row.r;
    const tr = el('tr', { class: 'feature', 'data-name': f.name }, this.cells(f, 0));
    tr.firstChild.appendChild(el('span', { class: 'label' }, f.name));
    frag.appendChild(tr);
    for (const k of kids) {
      const r = k.r;
      const itr = el('tr', { class: 'instance', 'data-feature': f.name, 'data-name': r.name }, this.cells(r, 1));
      itr.firstChild.appendChild(el('a', { class: 'label', href: '#', onclick: (e) => { e.preventDefault(); this.choose(f, r, itr); } }, r.name));
      frag.appendChild(itr);
    }
  }

  // The source, each line that is an instance (any feature) colored by its
  // change or deviation: red where NEW takes more, blue where less.
  choose(f, r, tr) {
    for (const x of this.table.tbody.querySelectorAll('tr.chosen')) x.classList.remove('chosen');
    tr.classList.add('chosen');
    const X = this.data.diff, fl = fileLine(r.name), lines = new Map();
    const val = (x) => (this.scaled ? x.deviation_ms : x.delta_ms);
    if (fl)
      for (const ff of X.features)
        for (const x of ff.instances) {
          const o = fileLine(x.name);
          if (!o || o[0] !== fl[0]) continue;
          const l = lines.get(o[1]) || { v: 0, who: [] };
          l.v += val(x);
          l.who.push(`${ff.name}: ${cfixed(x.base_ms, 1)} -> ${cfixed(x.new_ms, 1)} ms (${signed(x.delta_ms, 1)} ms${this.scaled ? ', deviation ' + signed(x.deviation_ms, 1) + ' ms' : ''})${x.new ? ' NEW' : ''}${x.gone ? ' GONE' : ''}`);
          lines.set(o[1], l);
        }
    const max = Math.max(0, ...[...lines.values()].map((l) => Math.abs(l.v)));
    const color = (n) => (lines.has(n) ? diverging(max ? lines.get(n).v / max : 0) : null);
    const title = (n) => lines.get(n).who.join('\n');
    this.detail.replaceChildren(
      el('h2', { id: 'detail-title' }, el('span', { class: 'label' }, f.name), ' / ', el('span', { class: 'label' }, r.name)),
      facts([
        ['base', `${cfixed(r.base_ms, 1)} ms (${cfixed(r.base_pct, 2)}%), ${r.base_samples} samples`],
        ['new', `${cfixed(r.new_ms, 1)} ms (${cfixed(r.new_pct, 2)}%), ${r.new_samples} samples`],
        ['change', `${signed(r.delta_ms, 1)} ms, ${signed(r.delta_pp, 2)} pp${r.new ? ' (NEW)' : ''}${r.gone ? ' (GONE)' : ''}`],
        ['deviation', this.scaled ? `${signed(r.deviation_ms, 1)} ms from ${cfixed(r.predicted_ms, 1)} ms predicted` : null],
      ]),
      el('h3', {}, 'Source'),
      sourceView(this.data.sources, r.name, color, title));
  }
}

export function diffPage(D, root) {
  document.title = `fsp-bpf diff: ${D.diff.new.target ?? ''}`;
  root.appendChild(header(D.diff));
  const list = [{ id: 'summary', label: 'Diff', build: (p) => new DiffTable(D, p) }];
  if (D.plugins && D.plugins.length) list.push({ id: 'plugins-tab', label: 'Plug-ins', build: (p) => p.appendChild(pluginSections(D.plugins)) });
  tabs(root, list)('summary');
}
