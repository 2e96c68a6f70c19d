// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
// The Calls tab (record --calls; docs/calls.md): the latency histogram of a
// feature's (or an instance's) calls, and a range of it selected by a drag
// or a click on its bars, the arrow keys, a click on a row of its table,
// the selector typed (report --calls's grammar) or the URL's fragment
// (#calls=SELECTOR). The selection restricts the summary table, the flame
// graph and the native functions to the samples of the selected calls (or
// of the other calls); this tab says what the selected calls do more.
import { Chart, BarController, BarElement, CategoryScale, LinearScale, Tooltip, Legend } from 'chart.js';
import { el, ms, cfixed, dur, plural } from './common.js';
import { summarize } from './model.js';
import { parseSelector, rangeSelector, callList, selectCalls, describe, callsData, edges, weighed } from './callsel.js';

Chart.register(BarController, BarElement, CategoryScale, LinearScale, Tooltip, Legend);

const MORE_ROWS = 40; // rows of "what the selected calls do more" before "show all"
const ALL = { process: -1, thread: -1 };

// A selector's calls in D: {sel, selected, others, info, text} or {error}.
export function choose(D, calls, text) {
  const sel = parseSelector(text);
  if (sel.error) return sel;
  const r = selectCalls(calls, sel);
  return r.error ? r : { sel, text: sel.text, ...r };
}

// Why the page has no calls to select, or null.
export function noCalls(D) {
  const c = D.calls;
  if (!c || c.state === 'none') return 'This profile has no calls: record it with --calls (sudo fsp-bpf record --calls --json prof.json ...) to select calls by their duration.';
  if (c.state === 'filtered') return 'The call selection needs the whole profile: this page was rendered with --comm or --pid (use the page\u2019s own process filter instead).';
  if (!c.kept) return 'No sample of this profile fell in a call of its features.';
  return null;
}

function notes(D) {
  const c = D.calls, out = [];
  if (c.kept < c.total)
    out.push(`The page keeps ${c.kept} of the profile's ${c.total} calls (its bound is ${c.bound}: an equal share for each feature, its slowest calls, each with its weight): the histograms and selections are of those and count the others nowhere, where report --calls of the profile file counts them all; with every call kept, the page's numbers are report --calls's.`);
  if (c.dropped_calls)
    out.push(`Bounded (--calls-keep): ${c.dropped_calls} calls of the profile were dropped when it was recorded; per instance its slowest calls are kept and a uniform sample of the others, each standing for several: every count, sum, percentile and histogram bin here counts a sampled call as the calls it stands for, as report --calls does.`);
  if (c.dropped_samples) out.push(`${c.dropped_samples} charged samples are in no call (their call records were lost, or their calls were beyond the recording's bound): no selection has them.`);
  if (c.unknown_samples) out.push(`${c.unknown_samples} charged samples have no call number (a binary built before call numbers): no selection has them.`);
  out.push(c.exact === c.kept ? 'Durations are exact (--events: measured by each call\u2019s leave).'
    : `Durations: ${c.exact} of ${c.kept} exact (--events); the others estimated from each call's first and last sample plus one period.`);
  return out;
}

// The rows of "what the selected calls do more": per feature and instance,
// its share of the selected calls' samples against the other calls'.
function moreRows(D, choice) {
  const a = summarize(callsData(D, choice.selected), ALL), b = summarize(callsData(D, choice.others), ALL);
  const rows = new Map();
  const put = (key, f, i, x, side) => {
    let r = rows.get(key);
    if (!r) rows.set(key, (r = { feature: f, instance: i, s: 0, o: 0, soff: 0, ooff: 0 }));
    r[side] += x.samples;
    r[side + 'off'] += x.offcpu_ns;
  };
  for (const [sum, side] of [[a, 's'], [b, 'o']])
    for (const f of sum.features) {
      put(f.name + '\0', f.name, null, f, side);
      for (const x of f.instances) put(f.name + '\0' + x.name, f.name, x.name, x, side);
    }
  const all = [...rows.values()];
  for (const r of all) r.diff = (a.samples ? r.s / a.samples : 0) - (b.samples ? r.o / b.samples : 0);
  const cmp = (x, y) => Math.abs(y.diff) - Math.abs(x.diff) || (x.feature + '\0' + (x.instance ?? '') < y.feature + '\0' + (y.instance ?? '') ? -1 : 1);
  // features by their difference, each followed by its instances by theirs
  const out = [];
  for (const f of all.filter((r) => r.instance === null).sort(cmp))
    out.push(f, ...all.filter((r) => r.instance !== null && r.feature === f.feature).sort(cmp));
  return { rows: out, a, b };
}

export class CallsView {
  constructor(D, pane, choice, onChoose) {
    this.D = D;
    this.onChoose = onChoose;
    this.calls = callList(D);
    this.chart = null;
    const why = noCalls(D);
    if (why) {
      pane.appendChild(el('p', { id: 'calls-none', class: 'muted' }, why));
      return;
    }
    const feats = [...new Set(this.calls.map((c) => c.feature))].sort();
    this.feature = choice ? choice.sel.feature : feats[0];
    this.instance = choice ? choice.sel.instance : null;
    this.fsel = el('select', { id: 'calls-feature', onchange: () => { this.feature = this.fsel.value; this.instance = null; this.fillInstances(); this.draw(); } },
      feats.map((f) => el('option', { value: f }, f)));
    this.isel = el('select', { id: 'calls-instance', onchange: () => { this.instance = this.isel.value === '\0all' ? null : this.isel.value; this.draw(); } });
    this.input = el('input', { id: 'call-selector', type: 'text', size: 40, placeholder: 'request>=50ms, request:/api p99, request>=2ms<5ms',
      onkeydown: (e) => { if (e.key === 'Enter') this.apply(this.input.value); } });
    this.error = el('p', { id: 'call-error', class: 'missing', hidden: true });
    this.featNote = el('p', { id: 'calls-feature-note', class: 'missing', hidden: true });
    this.info = el('pre', { id: 'call-info', class: 'info' });
    this.command = el('p', { id: 'call-command', class: 'muted' });
    this.box = el('div', { class: 'chart' });
    this.bins = el('table', { id: 'calls-bins', class: 'hist' });
    this.more = el('div', { id: 'calls-more' });
    pane.append(
      el('p', { class: 'muted' }, 'Select calls by their duration: drag over (or click, shift-click) the histogram\u2019s bars, use its arrow keys, click a row of its table, or type a selector as report --calls takes it. The summary, the flame graph and the native functions then show the samples of the selected calls only (or of the other calls: the choice above the tabs), and the table below what the selected calls do more than the others. The page\u2019s address (#calls=...) keeps the selection.'),
      el('ul', { id: 'calls-notes', class: 'muted' }, notes(D).map((n) => el('li', {}, n))),
      el('div', { class: 'controls' },
        el('label', {}, 'feature ', this.fsel), el('label', {}, 'instance ', this.isel),
        el('label', {}, 'selector ', this.input),
        el('button', { id: 'call-apply', onclick: () => this.apply(this.input.value) }, 'select'),
        ['p50', 'p90', 'p99'].map((p) => el('button', { class: 'pct', 'data-pct': p, onclick: () => this.apply(`${this.name()} ${p}`) }, p)),
        el('button', { id: 'call-clear', onclick: () => this.apply(null) }, 'clear')),
      this.error, this.featNote, this.box, this.bins, this.info, this.command,
      el('h3', {}, 'What the selected calls do more than the others'), this.more);
    this.choice = choice;
    this.fsel.value = this.feature;
    this.fillInstances();
    this.draw();
  }

  name() {
    return this.feature + (this.instance !== null ? ':' + this.instance : '');
  }

  fillInstances() {
    const inst = [...new Set(this.calls.filter((c) => c.feature === this.feature).map((c) => c.instance))].sort();
    this.isel.replaceChildren(el('option', { value: '\0all' }, 'all instances'), inst.map((i) => el('option', { value: i }, i)));
    this.isel.value = this.instance === null ? '\0all' : this.instance;
  }

  // A selector typed, clicked or dragged (null: none).
  apply(text) {
    if (text === null || text === '') {
      this.error.hidden = true;
      this.onChoose(null);
      return;
    }
    const c = choose(this.D, this.calls, text);
    if (c.error) {
      this.error.textContent = c.error;
      this.error.hidden = false;
      return;
    }
    this.error.hidden = true;
    this.onChoose(c);
  }

  // The page's choice changed (here, or by the address): redraw.
  show(choice) {
    this.choice = choice;
    if (!this.fsel) return;
    if (choice) {
      this.feature = choice.sel.feature;
      this.instance = choice.sel.instance;
      this.fsel.value = this.feature;
      this.fillInstances();
    }
    this.draw();
  }

  // The calls of the histogram: those of the feature (instance) shown.
  shown() {
    return this.calls.filter((c) => c.feature === this.feature && (this.instance === null || c.instance === this.instance));
  }

  draw() {
    const mine = this.shown(), choice = this.choice;
    const ours = choice && choice.sel.feature === this.feature && choice.sel.instance === this.instance;
    const picked = new Set(ours ? choice.selected.map((c) => c.k) : []);
    const lo = Math.min(...mine.map((c) => c.dur)), hi = Math.max(...mine.map((c) => c.dur));
    const E = (this.edges = edges(lo, hi));
    const S = this.D.strings, fc = (this.D.call_features || []).find((r) => S[r[0]] === this.feature);
    this.featNote.hidden = !fc || fc[2] >= fc[1];
    if (fc && fc[2] < fc[1])
      this.featNote.textContent = `${this.feature}: the page keeps the ${fc[2]} slowest of its ${fc[1]} calls (the page's bound): the faster calls, and the other calls beside a selection, are of those only; report --calls of the profile file has them all.`;
    const nb = E.length - 1;
    const sel = new Array(nb).fill(0), oth = new Array(nb).fill(0);
    for (const c of mine) {
      let b = 0;
      while (b + 1 < nb && E[b + 1] <= c.dur) b++;
      (picked.has(c.k) ? sel : oth)[b] += c.weight;
    }
    // each call counted as the calls it stands for (--calls-keep): the
    // bins' running sum (the selected bins, then the others) rounded as
    // report --calls rounds its counts, so that the selected bins add up to
    // its selected calls and all bins to its calls
    let run = 0, shown = 0;
    for (const a of [sel, oth])
      for (let b = 0; b < nb; b++) {
        run += a[b];
        const r = Math.floor(run + 0.5);
        a[b] = r - shown;
        shown = r;
      }
    this.counts = { sel, oth };
    const labels = E.slice(0, nb).map((e) => dur(e));
    this.input.value = ours ? choice.text : '';
    this.info.textContent = ours ? describe(choice.sel, choice.info, this.D.calls.dropped_calls) : `${plural(weighed(mine), 'call', 'calls')} of ${this.name()}: none selected.`;
    this.command.textContent = ours ? `The same as: fsp-bpf report --calls '${choice.text}' PROFILE.json` : '';
    this.bins.replaceChildren(el('thead', {}, el('tr', {}, el('th', {}, 'duration'), el('th', {}, 'selected'), el('th', {}, 'other calls'))),
      el('tbody', {}, E.slice(0, nb).map((e, b) => el('tr', { 'data-bin': b, tabindex: 0, class: sel[b] ? 'picked' : '',
        onclick: (ev) => this.pickBins(ev.shiftKey && this.anchor !== undefined ? this.anchor : b, b),
        onkeydown: (ev) => { if (ev.key === 'Enter' || ev.key === ' ') { ev.preventDefault(); this.pickBins(b, b); } } },
      el('td', {}, `[${dur(e)}, ${b + 1 < nb ? dur(E[b + 1]) : 'inf'})`), el('td', { class: 'num' }, String(sel[b])), el('td', { class: 'num' }, String(oth[b]))))));
    const focused = this.canvas && document.activeElement === this.canvas;
    this.chartDraw(labels, sel, oth);
    if (focused) this.canvas.focus();
    this.moreTable(ours ? choice : null);
  }

  chartDraw(labels, sel, oth) {
    if (this.chart) this.chart.destroy();
    const canvas = el('canvas', { id: 'calls-histogram', width: 720, height: 240, tabindex: 0 });
    this.box.replaceChildren(canvas);
    this.chart = new Chart(canvas, {
      type: 'bar',
      data: { labels, datasets: [
        { label: 'selected calls', data: sel, backgroundColor: '#e76f51', stack: 'c' },
        { label: 'other calls', data: oth, backgroundColor: '#9db4c0', stack: 'c' }] },
      options: {
        animation: false, responsive: false, events: ['mousemove', 'mouseout'],
        plugins: { tooltip: { enabled: true } },
        scales: { x: { stacked: true, title: { display: true, text: 'duration of a call (from the bin\u2019s lower bound)' } },
          y: { stacked: true, beginAtZero: true, title: { display: true, text: 'calls' } } },
      },
    });
    // where the bars are (for the browser test: bars are drawn, not elements)
    canvas.dataset.bins = JSON.stringify(labels.map((_, i) => this.chart.scales.x.getPixelForValue(i)));
    const binAt = (e) => {
      const v = this.chart.scales.x.getValueForPixel(e.offsetX);
      return Math.max(0, Math.min(labels.length - 1, Math.round(v)));
    };
    let drag = null;
    canvas.addEventListener('pointerdown', (e) => {
      const b = binAt(e);
      drag = { from: e.shiftKey && this.anchor !== undefined ? this.anchor : b, to: b };
      canvas.setPointerCapture(e.pointerId);
      this.paint(drag.from, drag.to);
    });
    canvas.addEventListener('pointermove', (e) => {
      if (!drag) return;
      drag.to = binAt(e);
      this.paint(drag.from, drag.to);
    });
    canvas.addEventListener('pointerup', () => {
      if (!drag) return;
      const d = drag;
      drag = null;
      this.pickBins(d.from, d.to);
    });
    // keys: left and right move the selected range's lower bound, with
    // shift its upper bound; Escape clears
    canvas.addEventListener('keydown', (e) => {
      const r = this.range();
      if (e.key === 'Escape') return this.apply(null);
      if (e.key !== 'ArrowLeft' && e.key !== 'ArrowRight') return;
      e.preventDefault();
      const step = e.key === 'ArrowLeft' ? -1 : 1, last = labels.length - 1;
      if (!r) return this.pickBins(step < 0 ? last : 0, last);
      if (e.shiftKey) this.pickBins(r[0], Math.max(r[0], Math.min(last, r[1] + step)));
      else this.pickBins(Math.max(0, Math.min(r[1], r[0] + step)), r[1]);
    });
    this.canvas = canvas;
  }

  // The bins [from, to] highlighted while dragging.
  paint(from, to) {
    const [a, b] = from <= to ? [from, to] : [to, from];
    const ds = this.chart.data.datasets;
    ds[1].backgroundColor = ds[1].data.map((_, i) => (i >= a && i <= b ? '#f4a261' : '#9db4c0'));
    this.chart.update('none');
  }

  // The bins of the current selection, [first, last], or null.
  range() {
    const s = this.counts.sel;
    const first = s.findIndex((v) => v > 0);
    if (first < 0) return null;
    let last = s.length - 1;
    while (last > first && !s[last]) last--;
    return [first, last];
  }

  // Selects the calls of bins [from, to]: [lower edge of from, upper edge
  // of to), no upper bound when to is the last bin.
  pickBins(from, to) {
    const [a, b] = from <= to ? [from, to] : [to, from];
    const E = this.edges, nb = E.length - 1;
    this.anchor = a;
    this.apply(rangeSelector(this.feature, this.instance, E[a], b + 1 < nb ? E[b + 1] : null));
  }

  moreTable(choice) {
    if (!choice) {
      this.more.replaceChildren(el('p', { class: 'muted' }, 'Select calls first.'));
      return;
    }
    if (!choice.info.selected || !choice.info.other_samples) {
      this.more.replaceChildren(el('p', { class: 'muted' }, choice.info.selected ? 'All calls of it are selected: nothing to compare with.' : 'No call selected.'));
      return;
    }
    const period = this.D.meta.period_ns;
    const { rows, a, b } = moreRows(this.D, choice);
    const off = a.offcpu_ns || b.offcpu_ns;
    const pc = (v, t) => cfixed(t ? (100 * v) / t : 0, 2) + '%';
    const draw = (all) => {
      const shown = all ? rows : rows.slice(0, MORE_ROWS);
      const t = el('table', { class: 'more', id: 'calls-more-table' },
        el('thead', {}, el('tr', {}, ['feature / instance', 'selected ms', 'selected %', 'other ms', 'other %', 'difference (pp)', 'more in the selected (ms)']
          .concat(off ? ['off-CPU selected ms', 'off-CPU other ms'] : []).map((h) => el('th', {}, h)))),
        el('tbody', {}, shown.map((r) => el('tr', { class: r.instance === null ? 'feature' : 'instance', 'data-feature': r.feature, 'data-name': r.instance ?? r.feature },
          el('td', { class: 'name' }, r.instance === null ? el('b', {}, r.feature) : el('span', {}, '\u2003', r.instance)),
          el('td', { class: 'num' }, ms(r.s * period)), el('td', { class: 'num' }, pc(r.s, a.samples)),
          el('td', { class: 'num' }, ms(r.o * period)), el('td', { class: 'num' }, pc(r.o, b.samples)),
          el('td', { class: 'num diff' }, (r.diff >= 0 ? '+' : '') + cfixed(100 * r.diff, 2)),
          el('td', { class: 'num' }, ms(r.diff * a.samples * period)),
          off ? [el('td', { class: 'num offsel' }, ms(r.soff)), el('td', { class: 'num offoth' }, ms(r.ooff))] : null))));
      this.more.replaceChildren(el('p', { class: 'muted' }, `Shares of the selected calls' ${a.samples} samples against the other calls' ${b.samples}, largest differences first (report --calls's diff, scaled to the selected calls' samples).`), t);
      if (!all && rows.length > MORE_ROWS) this.more.appendChild(el('button', { class: 'more', onclick: () => draw(true) }, `show ${rows.length - MORE_ROWS} more rows`));
    };
    draw(false);
  }
}
