// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
// The profile page's model: the embedded rows (docs/output-formats.md,
// "HTML") summed for a selection of processes and threads, as the text
// report sums the attribution of the same selection.

// A selection: process index or -1 (all), thread index or -1 (all of the process).
export function selectedThreads(D, sel) {
  const out = [];
  D.threads.forEach((t, i) => {
    if (sel.thread >= 0 ? i === sel.thread : sel.process < 0 || t[0] === sel.process) out.push(i);
  });
  return out;
}

function addStats(a, e) {
  if (!a) a = { enters: 0, leaves: 0, total_ns: 0, max_ns: 0, hist: [] };
  a.enters += e[3];
  a.leaves += e[4];
  a.total_ns += e[5];
  a.max_ns = Math.max(a.max_ns, e[6]);
  e[7].forEach((v, i) => (a.hist[i] = (a.hist[i] || 0) + v));
  return a;
}

function sumStats(list) {
  let a = null;
  for (const s of list) if (s) a = addStats(a, [0, 0, 0, s.enters, s.leaves, s.total_ns, s.max_ns, s.hist]);
  return a;
}

/*
 * The features of the selection: [{name, samples, offcpu_ns, events,
 * instances: [{name, samples, offcpu_ns, events}]}] and the totals.
 * Events are per process: with one thread selected there are none (as the
 * text report's --by thread).
 */
export function summarize(D, sel) {
  const S = D.strings;
  const threads = new Set(selectedThreads(D, sel));
  const feats = new Map();
  const feature = (fi) => {
    let f = feats.get(fi);
    if (!f) feats.set(fi, (f = { name: S[fi], samples: 0, offcpu_ns: 0, events: null, inst: new Map() }));
    return f;
  };
  const instance = (f, ii) => {
    let x = f.inst.get(ii);
    if (!x) f.inst.set(ii, (x = { name: S[ii], samples: 0, offcpu_ns: 0, events: null }));
    return x;
  };
  for (const c of D.charges) {
    if (!threads.has(c[0])) continue;
    const f = feature(c[1]);
    const x = instance(f, c[2]);
    f.samples += c[3];
    x.samples += c[3];
    f.offcpu_ns += c[4];
    x.offcpu_ns += c[4];
  }
  const events = sel.thread < 0;
  if (events) {
    for (const e of D.events) {
      if (sel.process >= 0 && e[0] !== sel.process) continue;
      const x = instance(feature(e[1]), e[2]);
      x.events = addStats(x.events, e);
    }
  }
  const features = [];
  for (const f of feats.values()) {
    f.instances = [...f.inst.values()];
    delete f.inst;
    f.events = sumStats(f.instances.map((x) => x.events));
    features.push(f);
  }
  let samples = 0, offcpu = 0, uncharged = 0, unchargedOff = 0;
  for (const i of threads) {
    const t = D.threads[i];
    samples += t[3];
    offcpu += t[4];
    uncharged += t[5];
    unchargedOff += t[6];
  }
  return { features, samples, offcpu_ns: offcpu, uncharged, uncharged_offcpu_ns: unchargedOff, events };
}

export function procName(D, i) {
  const p = D.processes[i];
  const main = D.threads.find((t) => t[0] === i && t[1] === p[1]);
  const comm = main ? D.strings[main[2]] : '';
  const pid = D.meta.sources > 1 ? `${p[0]}:${p[1]}` : String(p[1]);
  return `${comm || '[unknown]'} (${pid}${p[2] ? ', ' + p[2] + ' in its namespace' : ''})`;
}

export function threadName(D, i) {
  const t = D.threads[i];
  return `${D.strings[t[2]] || '[unknown]'} (${t[1]})`;
}
