// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
// The call selection's model (record --calls; docs/calls.md): the grammar
// of report --calls's selectors (analysis/model/callsel.c), which calls of
// the page's "call_list" a selector selects, and the selected calls' samples
// as page data of their own, so that the summary table, the flame graph and
// the native functions show them as report --calls shows them.
import { cfixed } from './common.js';

const UNITS = { ns: 1, us: 1e3, ms: 1e6, s: 1e9 };
const CMP = /^(>=|>|<=|<)/;

// "50ms" -> ns (rounded as callsel.c rounds), null if it is not a duration.
function parseDuration(s) {
  const m = /^([0-9][0-9]*(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?)(ns|us|ms|s)$/.exec(s);
  if (!m) return null;
  const v = Number(m[1]) * UNITS[m[2]];
  return Number.isFinite(v) && v < 1.8e19 ? Math.floor(v + 0.5) : null;
}

/*
 * A selector: {feature, instance (null: any), conds: [{op, ns}], pct (or
 * null), text}, or {error}. The grammar of callsel.h:
 *   FEATURE [':' INSTANCE] ( CMP DURATION [CMP DURATION] | ' '* 'p' PERCENT )
 */
export function parseSelector(text) {
  const s = String(text ?? '');
  let at = s.search(/[<>]/);
  if (at < 0) {
    const sp = s.lastIndexOf(' ');
    at = sp >= 0 && s[sp + 1] === 'p' ? sp : -1;
  }
  if (at < 0) return { error: `'${s}' has no condition: expected FEATURE[:INSTANCE] followed by >=DURATION, >DURATION, <=DURATION, <DURATION (ns, us, ms, s), a range (>=2ms<5ms) or ' pNN' (a percentile)` };
  const cond = s.slice(at).replace(/^ +/, '');
  const out = { feature: '', instance: null, conds: [], pct: null, text: s };
  if (cond[0] === 'p') {
    const pct = /^[0-9]/.test(cond.slice(1)) ? Number(cond.slice(1)) : NaN;
    if (!(pct > 0 && pct < 100)) return { error: `'${cond}' is not a percentile: pNN with 0 < NN < 100` };
    out.pct = pct;
  } else {
    let rest = cond;
    while (rest && out.conds.length < 2) {
      const op = CMP.exec(rest)[1];
      const end = rest.slice(op.length).search(/[<>]/);
      const dtext = end < 0 ? rest.slice(op.length) : rest.slice(op.length, op.length + end);
      const ns = parseDuration(dtext);
      if (ns === null) return { error: `'${cond}' is not a condition: expected >=, >, <= or < and a duration with its unit (50ms, 2.5s, 800us, 120ns)` };
      out.conds.push({ op, ns });
      rest = end < 0 ? '' : rest.slice(op.length + end);
    }
    if (rest) return { error: `'${cond}': at most two conditions (a range, >=2ms<5ms)` };
  }
  const name = s.slice(0, at);
  const colon = name.indexOf(':');
  if (colon >= 0) {
    out.instance = name.slice(colon + 1);
    if (!out.instance) return { error: `'${s}': the instance after ':' is empty` };
  }
  out.feature = colon >= 0 ? name.slice(0, colon) : name;
  if (!out.feature) return { error: `'${s}': the feature name is empty` };
  return out;
}

// A duration as a selector writes it: the largest unit that keeps it exact
// to 3 decimals (1500000 -> "1.5ms").
export function selectorDuration(ns) {
  for (const [u, f] of [['s', 1e9], ['ms', 1e6], ['us', 1e3]])
    if (ns >= f && Number.isInteger((ns / f) * 1000)) return `${+(ns / f).toFixed(3)}${u}`;
  return `${ns}ns`;
}

// The selector of the calls of feature (instance) with durations in [lo, hi)
// (hi null: no end).
export function rangeSelector(feature, instance, lo, hi) {
  const name = feature + (instance !== null && instance !== undefined ? ':' + instance : '');
  return name + `>=${selectorDuration(lo)}` + (hi !== null && hi !== undefined ? `<${selectorDuration(hi)}` : '');
}

// The page's calls: [{thread, feature, instance, dur, exact, samples, offcpu,
// weight, row}]; weight: the calls it stands for (record --calls-keep's
// sample; 1 but for a sampled call).
export function callList(D) {
  const S = D.strings;
  return (D.call_list || []).map((c, k) => ({ k, thread: c[0], feature: S[c[1]], instance: S[c[2]], dur: c[3], exact: c[4], samples: c[5], offcpu: c[6],
    weight: c[10] > 1 ? c[10] : 1, row: c }));
}

// n of a call that stands for w calls, as callsel.c scales it: n w rounded
// (native samples: rounded down, never more than the samples).
export function scaled(n, w) {
  return w === 1 ? n : Math.floor(n * w + 0.5);
}
function scaledDown(n, w) {
  return w === 1 ? n : Math.floor(n * w);
}

// The calls that calls stand for (their weights' sum, rounded).
export function weighed(calls) {
  let w = 0;
  for (const c of calls) w += c.weight;
  return Math.floor(w + 0.5);
}

function test(op, d, t) {
  if (op === '>=') return d >= t;
  if (op === '>') return d > t;
  if (op === '<=') return d <= t;
  return d < t;
}

/*
 * The calls sel selects among calls (callList) and the other calls of its
 * feature (instance): {selected, others, info} where info has what
 * callsel_info has (calls, selected, samples, durations, threshold), or
 * {error} when no call is of that feature or instance.
 */
export function selectCalls(calls, sel) {
  const mine = calls.filter((c) => c.feature === sel.feature && (sel.instance === null || c.instance === sel.instance));
  if (!mine.length) return { error: `no call of ${sel.feature}${sel.instance !== null ? ':' + sel.instance : ''} in this page` };
  let threshold = sel.conds.length ? sel.conds[0].ns : 0, total = 0;
  for (const c of mine) total += c.weight;
  if (sel.pct !== null) {
    // nearest rank among the calls each call stands for: the ceiling of
    // pct% of them (as callsel.c's threshold() computes it)
    const d = mine.map((c) => [c.dur, c.weight]).sort((a, b) => a[0] - b[0]);
    const want = (sel.pct / 100) * total - 1e-9;
    let rank = Math.trunc(want), sum = 0, k = 0;
    if (rank < want) rank++;
    for (; k < d.length - 1; k++) {
      sum += d[k][1];
      if (sum >= rank - 1e-9) break;
    }
    threshold = d[k][0];
  }
  const conds = sel.pct !== null ? [{ op: '>=', ns: threshold }] : sel.conds;
  const info = { calls: Math.floor(total + 0.5), selected: 0, selected_kept: 0, sampled: 0, selected_samples: 0, other_samples: 0, threshold_ns: threshold,
    min_ns: Infinity, max_ns: 0, sum_ns: 0, exact: 0, selected_offcpu_ns: 0, other_offcpu_ns: 0 };
  const selected = [], others = [];
  let picked = 0;
  for (const c of mine) {
    const w = c.weight;
    if (conds.every((x) => test(x.op, c.dur, x.ns))) {
      selected.push(c);
      picked += w;
      info.selected_kept++;
      info.sampled += w > 1 ? 1 : 0;
      info.selected_samples += scaled(c.samples, w);
      info.sum_ns += scaled(c.dur, w);
      info.exact += c.exact ? 1 : 0;
      info.min_ns = Math.min(info.min_ns, c.dur);
      info.max_ns = Math.max(info.max_ns, c.dur);
      info.selected_offcpu_ns += scaled(c.offcpu, w);
    } else {
      others.push(c);
      info.other_samples += scaled(c.samples, w);
      info.other_offcpu_ns += scaled(c.offcpu, w);
    }
  }
  info.selected = Math.floor(picked + 0.5);
  if (!info.selected) info.min_ns = 0;
  return { selected, others, info };
}

// The first lines of report --calls's text view (calls_view.c describe()).
// dropped: the profile's calls__dropped_calls (record --calls-keep).
export function describe(sel, info, dropped) {
  const ms3 = (ns) => cfixed(ns / 1e6, 3);
  let s = `Calls of ${sel.feature}${sel.instance !== null ? ':' + sel.instance : ''} selected: ${info.selected} of ${info.calls} ` +
    `(${info.selected_samples} samples; the other calls: ${info.other_samples} samples), durations ${ms3(info.min_ns)} to ${ms3(info.max_ns)} ms, ${ms3(info.sum_ns)} ms in all`;
  if (sel.pct !== null) s += ` (p${sel.pct}: ${ms3(info.threshold_ns)} ms and longer)`;
  if (info.selected_offcpu_ns || info.other_offcpu_ns) s += `; off CPU ${ms3(info.selected_offcpu_ns)} ms (the other calls: ${ms3(info.other_offcpu_ns)} ms)`;
  s += '.\n';
  if (info.exact === info.selected_kept) s += "Durations are exact (--events: measured by each call's leave).";
  else s += `Durations: ${info.exact} of the selected exact (--events), the others estimated from each call's first and last sample plus one period (calls shorter than a few periods count about one period).`;
  if (dropped) s += `\nBounded (--calls-keep): ${dropped} calls of the profile were dropped; per instance its slowest calls are kept and a uniform sample of the others, each standing for several (${info.sampled} of the selected): calls and samples count them so.`;
  return s;
}

/*
 * The page data of the samples of calls (callList entries): D with
 * "charges" and "threads" of those calls only, as callsel__split makes the
 * profile of their samples: each call's samples by mark stack charged by
 * the stack's charges ("call_stacks", the attribution rule applied in C),
 * those with a native stack in rows of their own, its off-CPU time, each
 * scaled by the call's weight as callsel.c's add_call scales it (per stack,
 * rounded; native samples rounded down); no event records (the selected
 * calls' profile has none).
 */
export function callsData(D, calls) {
  const ST = D.call_stacks;
  const rows = new Map();
  const threads = D.threads.map((t) => [t[0], t[1], t[2], 0, 0, 0, 0]);
  let samples = 0, offcpu = 0;
  const add = (th, st, n, off, native) => {
    const ch = ST[st];
    for (let q = 0; q < ch.length; q += 2) {
      const key = `${th},${ch[q]},${ch[q + 1]},${native}`;
      let r = rows.get(key);
      if (!r) rows.set(key, (r = native >= 0 ? [th, ch[q], ch[q + 1], 0, 0, native] : [th, ch[q], ch[q + 1], 0, 0]));
      r[3] += n;
      r[4] += off;
    }
  };
  for (const c of calls) {
    const [th, , , , , , , stacks, natives, offs] = c.row, w = c.weight;
    const withNative = new Map();
    for (let j = 0; j < natives.length; j += 3) {
      const m = scaledDown(natives[j + 2], w);
      withNative.set(natives[j], (withNative.get(natives[j]) || 0) + m);
      if (m) add(th, natives[j], m, 0, natives[j + 1]);
    }
    for (let j = 0; j < stacks.length; j += 2) {
      const n = scaled(stacks[j + 1], w), rest = n - (withNative.get(stacks[j]) || 0);
      threads[th][3] += n;
      samples += n;
      if (rest > 0) add(th, stacks[j], rest, 0, -1);
    }
    for (let j = 0; j < offs.length; j += 2) {
      const off = scaled(offs[j + 1], w);
      threads[th][4] += off;
      offcpu += off;
      add(th, offs[j], 0, off, -1);
    }
  }
  const nthreads = threads.filter((t) => t[3] || t[4]).length;
  return { ...D, charges: [...rows.values()], threads, events: [],
    totals: { ...D.totals, samples, offcpu_ns: offcpu, threads: nthreads } };
}

// Nice histogram edges: 1, 1.5, 2, 3, 4, 5, 6, 8 times powers of ten (ns),
// from the one at or below lo to the first above hi.
export function edges(lo, hi) {
  const M = [1, 1.5, 2, 3, 4, 5, 6, 8];
  const out = [];
  let p = 10 ** Math.floor(Math.log10(Math.max(1, lo)));
  for (;;) {
    for (const m of M) {
      const e = Math.round(m * p);
      if (e > hi) {
        out.push(e);
        while (out.length > 2 && out[1] <= lo) out.shift();
        return out;
      }
      out.push(e);
    }
    p *= 10;
  }
}
