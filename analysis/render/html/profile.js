// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
// The page of a profile: header, the summary table with the process and
// thread filters, the source and event views of the chosen instance, the
// flame graph, the plug-in sections.
import { el, ms, pct, dur, cfixed, td, bar, heat, fileLine, sourceView, pluginSections, tabs, facts, when, plural, SortTable } from './common.js';
import { summarize, procName, threadName } from './model.js';
import { Flame } from './flame.js';
import { NativeView } from './native.js';
import { histogram } from './events.js';
import { CallsView, choose, noCalls } from './calls.js';
import { callList, callsData } from './callsel.js';

const INSTANCE_ROWS = 200; // instances drawn per feature before "show all"

function header(D) {
  const m = D.meta, t = D.totals, period = m.period_ns;
  const f = D.filter;
  const diags = D.diagnostics.filter((d) => d.value > 0);
  const calls = D.events.reduce((a, e) => a + e[3], 0), returned = D.events.reduce((a, e) => a + e[4], 0);
  const h = el('header', { id: 'summary-header' },
    el('h1', {}, 'fsp-bpf: feature profile of ', el('span', { id: 'target' }, m.target ?? 'an unnamed target')),
    facts([
      ['started', when(m.start_time)],
      ['duration', cfixed(m.duration_s ?? 0, 2) + ' s'],
      ['frequency', `${m.frequency_hz} Hz (${cfixed(period / 1e6, 3)} ms per sample)`],
      ['samples', `${t.samples} = ${ms(t.samples * period)} ms on CPU`],
      ['off CPU', t.offcpu_ns ? `${ms(t.offcpu_ns)} ms (blocked, sleeping or waiting for a CPU); ${ms(t.samples * period + t.offcpu_ns)} ms on + off CPU` : null],
      ['events', D.events.length ? `${calls} calls counted by the probes, ${returned} returned` : null],
      ['processes', `${plural(t.processes, 'process', 'processes')}, ${plural(t.threads, 'thread', 'threads')}`],
      ['host', m.host ? `${m.host}${m.kernel ? ', Linux ' + m.kernel : ''}` : null],
      ['sessions', m.sources > 1 ? `${m.sources} (a merged profile)` : null],
      ['command', m.command_line],
      ['filter', f.comm || f.pid ? `${f.comm ? 'comm ' + f.comm : ''}${f.comm && f.pid ? ' and ' : ''}${f.pid ? 'pid ' + f.pid : ''}: ${t.processes} of ${f.whole_processes} processes, ${t.samples} of ${f.whole_samples} samples` : null],
      ['features', f.features ? f.features.join(', ') : null],
    ]));
  const dg = el('div', { id: 'diagnostics', class: diags.length ? 'warn' : 'ok' });
  if (!diags.length) dg.append('Diagnostics: all counters are zero (no samples lost, no unknown stacks, no unmatched leaves, no overflows, no stale marks, no errors).');
  else dg.append('Diagnostics: ', el('ul', {}, diags.map((d) => el('li', {}, el('b', {}, d.name), `: ${d.value} (${d.description})`))));
  h.appendChild(dg);
  return h;
}

class Summary {
  constructor(D, pane, onSelect, sel) {
    this.D = D;
    this.onSelect = onSelect;
    this.sel = sel || { process: -1, thread: -1 };
    this.hasOff = D.totals.offcpu_ns > 0;
    this.hasEvents = D.events.length > 0;
    this.closed = new Set(); // features whose instances are hidden
    const cols = [
      { key: 'name', label: 'feature / instance', cls: 'name' },
      { key: 'time', label: 'time', num: true, title: 'on-CPU time: samples \u00d7 period' },
      { key: 'share', label: 'share', num: true, title: '% of the running time of the selection' },
      { key: 'samples', label: 'samples', num: true },
    ];
    if (this.hasEvents)
      cols.push({ key: 'calls', label: 'calls', num: true }, { key: 'percall', label: 'time/call', num: true }, { key: 'max', label: 'max', num: true });
    // --order cost (the default) is on + off CPU: a column of its own with
    // off-CPU time, else the time column
    if (this.hasOff)
      cols.push({ key: 'offcpu', label: 'off-CPU', num: true },
        { key: 'cost', label: 'on + off CPU', num: true, title: 'on-CPU + off-CPU time: the order of the text report (--order cost)' });
    const cost = this.hasOff ? 'cost' : 'time';
    const order = { cost: [cost, true], samples: ['samples', true], name: ['name', false] }[D.order] || [cost, true];
    this.table = new SortTable(cols, (g, kids, frag) => this.rows(g, kids, frag), { key: order[0], desc: order[1] });
    this.table.footer = (frag) => this.noFeature(frag);
    this.table.table.id = 'features';
    this.detail = el('aside', { id: 'detail' }, el('p', { class: 'muted' }, 'Click an instance to see its source and the latency histogram of its calls.'));
    this.note = el('p', { id: 'note', class: 'muted' });
    pane.append(this.filters(), el('div', { class: 'split' }, el('div', { class: 'tablebox' }, this.table.table, this.note), this.detail));
    this.update();
  }

  filters() {
    const D = this.D;
    const proc = el('select', { id: 'filter-process' }, el('option', { value: -1 }, D.processes.length === 1 ? 'its 1 process' : `all ${D.processes.length} processes`),
      D.processes.map((p, i) => el('option', { value: i }, procName(D, i))));
    const thr = el('select', { id: 'filter-thread' });
    const fillThreads = () => {
      const opts = [el('option', { value: -1 }, 'all threads')];
      D.threads.forEach((t, i) => {
        if (this.sel.process < 0 || t[0] === this.sel.process) opts.push(el('option', { value: i }, threadName(D, i) + (this.sel.process < 0 ? ' of ' + procName(D, t[0]) : '')));
      });
      thr.replaceChildren(...opts);
    };
    fillThreads();
    proc.value = String(this.sel.process);
    thr.value = String(this.sel.thread);
    proc.addEventListener('change', () => {
      this.sel = { process: Number(proc.value), thread: -1 };
      fillThreads();
      this.update();
    });
    thr.addEventListener('change', () => {
      const ti = Number(thr.value);
      this.sel = { process: ti >= 0 ? D.threads[ti][0] : this.sel.process, thread: ti };
      this.update();
    });
    return el('div', { class: 'controls', id: 'filters' }, el('label', {}, 'process ', proc), ' ', el('label', {}, 'thread ', thr));
  }

  // A row's cells and sort keys from a feature or instance of summarize().
  item(x, total, period, isFeature) {
    const ev = this.sum.events ? x.events : undefined;
    const time = x.samples * period;
    const sort = {
      name: x.name, time, share: total ? x.samples / total : 0, samples: x.samples, tie: x.samples,
      cost: time + x.offcpu_ns, offcpu: x.offcpu_ns,
      calls: ev ? ev.enters : null, percall: ev && ev.leaves ? ev.total_ns / ev.leaves : null, max: ev && ev.leaves ? ev.max_ns : null,
    };
    return { x, sort, isFeature };
  }

  cells(r, total, maxTime, depth) {
    const x = r.x, s = r.sort, ev = this.sum.events ? x.events : undefined;
    const nameCell = el('td', { class: 'name', style: { paddingLeft: 0.4 + depth * 1.4 + 'em' } });
    const tds = [nameCell,
      el('td', { class: 'num time', 'data-value': s.time }, ms(s.time), el('span', { class: 'unit' }, ' ms'), bar(maxTime ? s.time / maxTime : 0, depth ? '#f4a261' : '#e76f51')),
      td(pct(x.samples, total), s.share, 'num share'),
      td(String(x.samples), x.samples, 'num samples')];
    if (this.hasEvents) {
      const dash = this.sum.events ? '-' : '';
      tds.push(td(ev ? String(ev.enters) : dash, s.calls, 'num calls'),
        td(ev && ev.leaves ? dur(ev.total_ns / ev.leaves) : dash, s.percall, 'num percall'),
        td(ev && ev.leaves ? dur(ev.max_ns) : dash, s.max, 'num max'));
    }
    if (this.hasOff)
      tds.push(el('td', { class: 'num offcpu', 'data-value': x.offcpu_ns }, ms(x.offcpu_ns), el('span', { class: 'unit' }, ' ms')),
        el('td', { class: 'num cost', 'data-value': s.cost }, ms(s.cost), el('span', { class: 'unit' }, ' ms')));
    return tds;
  }

  // The last row: the time charged to no feature, as the text report's
  // note and wall-clock view give it (none with --feature).
  noFeature(frag) {
    const { total, period, maxTime } = this.ctx;
    const x = { name: '(no feature)', samples: this.sum.uncharged, offcpu_ns: this.sum.uncharged_offcpu_ns, events: null };
    if (this.D.filter.features || (!x.samples && !x.offcpu_ns)) return;
    const tr = el('tr', { class: 'none', 'data-name': x.name }, this.cells(this.item(x, total, period, true), total, maxTime, 0));
    tr.firstChild.append(el('span', { class: 'label muted' }, x.name));
    frag.appendChild(tr);
  }

  rows(g, kids, frag) {
    const { total, period, maxTime } = this.ctx;
    const name = g.row.x.name;
    const open = !this.closed.has(name);
    const ftr = el('tr', { class: 'feature', 'data-name': name }, this.cells(g.row, total, maxTime, 0));
    const toggle = el('button', { class: 'toggle', title: open ? 'hide its instances' : 'show its instances', onclick: () => {
      if (open) this.closed.add(name);
      else this.closed.delete(name);
      this.table.draw();
    } }, open ? '\u25be' : '\u25b8');
    ftr.firstChild.append(toggle, el('span', { class: 'label' }, name));
    frag.appendChild(ftr);
    if (!open) return;
    const limit = g.showAll ? kids.length : Math.min(kids.length, INSTANCE_ROWS);
    for (let i = 0; i < limit; i++) {
      const r = kids[i];
      const tr = el('tr', { class: 'instance', 'data-feature': name, 'data-name': r.x.name, tabindex: 0 }, this.cells(r, total, maxTime, 1));
      tr.firstChild.appendChild(el('a', { class: 'label', href: '#', onclick: (e) => { e.preventDefault(); this.choose(g.row.x, r.x, tr); } }, r.x.name));
      if (this.chosen && this.chosen.f === name && this.chosen.i === r.x.name) tr.classList.add('chosen');
      frag.appendChild(tr);
    }
    if (limit < kids.length)
      frag.appendChild(el('tr', { class: 'more' }, el('td', { colspan: this.table.columns.length },
        el('button', { onclick: () => { g.showAll = true; this.table.draw(); } }, `show ${kids.length - limit} more instances of ${name}`))));
  }

  update() {
    const D = this.D, period = D.meta.period_ns;
    this.sum = summarize(D, this.sel);
    const total = this.sum.samples;
    const groups = this.sum.features.map((f) => ({ row: this.item(f, total, period, true), children: f.instances.map((x) => this.item(x, total, period, false)) }));
    const maxTime = Math.max(0, ...this.sum.features.map((f) => f.samples * period));
    this.ctx = { total, period, maxTime };
    this.table.setGroups(groups);
    this.note.textContent = `Each sample is charged to every feature with a live mark in its thread, so shares may sum to more than 100%, and samples in no feature (here ${pct(this.sum.uncharged, total)}) make them sum to less.` +
      (this.hasEvents && this.sum.events ? " Calls are counted by the probes, not sampled: time per call and max are of the calls that returned, from enter to leave less the feature's antimarks, time off CPU and in nested features included." : '') +
      (this.hasEvents && !this.sum.events ? ' Calls are counted per process, not per thread: choose all threads to see them.' : '') +
      (this.hasOff ? ' Off-CPU time is charged by the same rule as samples, but is not in the shares.' : '');
    if (this.chosen) this.showDetail();
    this.onSelect(this.sel);
  }

  choose(f, x, tr) {
    this.chosen = { f: f.name, i: x.name };
    for (const r of this.table.tbody.querySelectorAll('tr.chosen')) r.classList.remove('chosen');
    tr.classList.add('chosen');
    this.showDetail();
  }

  // The source view (lines colored by the time of the instances on them,
  // any feature) and the event view of the chosen instance.
  showDetail() {
    const { f, i } = this.chosen, period = this.D.meta.period_ns;
    const feat = this.sum.features.find((x) => x.name === f);
    const inst = feat && feat.instances.find((x) => x.name === i);
    const fl = fileLine(i);
    const lines = new Map();
    if (fl) {
      for (const ff of this.sum.features)
        for (const x of ff.instances) {
          const o = fileLine(x.name);
          if (o && o[0] === fl[0]) {
            const l = lines.get(o[1]) || { time: 0, who: [] };
            l.time += x.samples * period + x.offcpu_ns;
            l.who.push(`${ff.name}: ${ms(x.samples * period)} ms on CPU${x.offcpu_ns ? ', ' + ms(x.offcpu_ns) + ' ms off CPU' : ''}`);
            lines.set(o[1], l);
          }
        }
    }
    const max = Math.max(0, ...[...lines.values()].map((l) => l.time));
    const color = (n) => (lines.has(n) ? heat(max ? lines.get(n).time / max : 0) : null);
    const title = (n) => lines.get(n).who.join('\n');
    const total = this.sum.samples;
    this.detail.replaceChildren(
      el('h2', { id: 'detail-title' }, el('span', { class: 'label' }, f), ' / ', el('span', { class: 'label' }, i)),
      inst ? facts([
        ['time', `${ms(inst.samples * period)} ms (${pct(inst.samples, total)}), ${inst.samples} samples`],
        ['off CPU', this.hasOff ? ms(inst.offcpu_ns) + ' ms' : null],
      ]) : el('p', { class: 'muted' }, 'Not in this selection.'),
      el('h3', {}, 'Source'),
      sourceView(this.D.sources, i, color, title),
      el('h3', {}, 'Calls'),
      histogram(inst ? inst.events : null, this.sum.events));
  }
}

// The choice between the selected calls and the others, above the tabs.
function callBanner(banner, choice, which, onWhich) {
  banner.hidden = !choice;
  if (!choice) return banner.replaceChildren();
  const pick = el('select', { id: 'call-which', onchange: (e) => onWhich(e.target.value) },
    el('option', { value: 'selected' }, `the ${choice.info.selected} selected calls`),
    el('option', { value: 'others' }, `the ${choice.info.calls - choice.info.selected} other calls`));
  pick.value = which;
  banner.replaceChildren(el('span', {}, 'Summary, flame graph and native functions show the samples of '), pick,
    el('span', {}, ` of ${choice.sel.feature}${choice.sel.instance !== null ? ':' + choice.sel.instance : ''} (`), el('code', { id: 'call-banner-selector' }, choice.text),
    el('span', {}, `: ${which === 'selected' ? choice.info.selected_samples : choice.info.other_samples} samples). `),
    el('button', { id: 'call-banner-clear', onclick: () => onWhich(null) }, 'show the whole profile'));
}

// The selector in the page's address (#calls=SELECTOR), or null.
function fragment() {
  const m = /^#calls=(.*)$/s.exec(location.hash);
  if (!m) return null;
  try {
    return decodeURIComponent(m[1]);
  } catch {
    return m[1];
  }
}

export function profilePage(D, root) {
  document.title = `fsp-bpf: ${D.meta.target ?? 'profile'}`;
  root.appendChild(header(D));
  const banner = el('div', { id: 'call-banner', class: 'banner', hidden: true });
  const fragError = el('p', { id: 'call-fragment-error', class: 'missing', hidden: true });
  root.append(banner, fragError);
  let flame = null, native = null, calls = null, sel = { process: -1, thread: -1 };
  let V = D, choice = null, which = 'selected';
  const onSel = (s) => { sel = s; if (flame) flame.setSelection(s); if (native) native.setSelection(s); };
  const list = [
    { id: 'summary', label: 'Summary', build: (p) => new Summary(V, p, onSel, sel) },
    { id: 'flame', label: 'Flame graph', build: (p) => { flame = new Flame(V, p); flame.setSelection(sel); flame.draw(); } },
  ];
  // native stacks (record --stacks): the hottest functions per feature
  if (D.native_stacks && D.native_stacks.length) list.push({ id: 'native', label: 'Native functions', build: (p) => { native = new NativeView(V, p); native.setSelection(sel); } });
  // the calls (record --calls): the latency histograms and the selection
  const allCalls = callList(D);
  list.push({ id: 'calls', label: 'Calls', build: (p) => { calls = new CallsView(D, p, choice, (c) => setChoice(c, 'selected')); } });
  if (D.plugins && D.plugins.length) list.push({ id: 'plugins-tab', label: 'Plug-ins', build: (p) => p.appendChild(pluginSections(D.plugins)) });
  const show = tabs(root, list);
  // a new choice (null: none) or side: the views that show samples again
  function setChoice(c, w) {
    choice = c;
    which = w || 'selected';
    V = choice ? callsData(D, which === 'others' ? choice.others : choice.selected) : D;
    callBanner(banner, choice, which, (x) => (x ? setChoice(choice, x) : setChoice(null)));
    const want = choice ? '#calls=' + encodeURIComponent(choice.text) : '';
    if (location.hash !== want) history.replaceState(null, '', want || location.pathname + location.search);
    flame = null;
    native = null;
    show.reset(['summary', 'flame', 'native']);
    if (calls) calls.show(choice);
    document.body.dataset.calls = choice ? choice.text : '';
  }
  function fromAddress() {
    const text = fragment() ?? D.call_selection ?? null;
    fragError.hidden = true;
    if (text === null) return;
    const why = noCalls(D);
    const c = why ? { error: why } : choose(D, allCalls, text);
    if (c.error) {
      fragError.textContent = `#calls=${text}: ${c.error}`;
      fragError.hidden = false;
      return;
    }
    if (!choice || choice.text !== c.text) setChoice(c, 'selected');
  }
  window.addEventListener('hashchange', fromAddress);
  show('summary');
  fromAddress();
}
