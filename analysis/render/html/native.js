// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
// The native stacks' section (record --stacks): per feature of the
// selection, its hottest functions with their self samples (the function is
// the innermost frame) and total samples (anywhere in the stack, once per
// sample), as the text report lists them. Computed from the charges rows
// that have a native stack (docs/output-formats.md, "HTML").
import { el, cfixed } from './common.js';
import { selectedThreads } from './model.js';

// How many functions each feature lists.
const TOP = 20;

// The functions of each feature of the selection: Map feature string ->
// { samples, native, funcs: Map string -> { self, total } }.
export function nativeFunctions(D, sel) {
  const threads = new Set(selectedThreads(D, sel));
  const feats = new Map();
  for (const c of D.charges) {
    if (!threads.has(c[0])) continue;
    let f = feats.get(c[1]);
    if (!f) feats.set(c[1], (f = { samples: 0, native: 0, funcs: new Map() }));
    f.samples += c[3];
    const stack = c.length > 5 && c[5] >= 0 ? D.native_stacks[c[5]] : null;
    if (!stack || !stack.length) continue;
    f.native += c[3];
    const seen = new Set();
    stack.forEach((s, i) => {
      let fn = f.funcs.get(s);
      if (!fn) f.funcs.set(s, (fn = { self: 0, total: 0 }));
      if (!seen.has(s)) {
        seen.add(s);
        fn.total += c[3];
      }
      if (i === stack.length - 1) fn.self += c[3]; // caller first: the leaf is last
    });
  }
  return feats;
}

export class NativeView {
  constructor(D, container) {
    this.D = D;
    this.box = el('div', { id: 'native-functions' });
    container.append(
      el('p', { class: 'muted' },
        'The hottest functions of each feature in its samples\u2019 native stacks. self: samples whose innermost frame is in the function; total: samples with the function anywhere in their stack (once per sample). Shares are of the feature\u2019s samples. The flame graph shows the stacks below the features.'),
      this.box);
  }

  setSelection(sel) {
    this.sel = sel;
    this.draw();
  }

  draw() {
    const D = this.D, S = D.strings;
    const feats = [...nativeFunctions(D, this.sel || { process: -1, thread: -1 }).entries()]
      .filter(([, f]) => f.native > 0)
      .sort((a, b) => b[1].samples - a[1].samples || (S[a[0]] < S[b[0]] ? -1 : 1));
    this.box.replaceChildren();
    if (!feats.length) {
      this.box.appendChild(el('p', { class: 'muted' }, 'No sample of the selection has a native stack.'));
      return;
    }
    const pc = (v, t) => (t ? cfixed((100 * v) / t, 2) : '0.00') + '%';
    for (const [fi, f] of feats) {
      const rows = [...f.funcs.entries()].filter(([, v]) => v.self > 0)
        .sort((a, b) => b[1].self - a[1].self || b[1].total - a[1].total || (S[a[0]] < S[b[0]] ? -1 : 1));
      const table = el('table', { class: 'native', 'data-feature': S[fi] },
        el('thead', {}, el('tr', {}, el('th', {}, 'self'), el('th', {}, 'self %'), el('th', {}, 'total'), el('th', {}, 'total %'), el('th', {}, 'function'))),
        el('tbody', {}, ...rows.slice(0, TOP).map(([s, v]) => el('tr', {},
          el('td', { class: 'num' }, String(v.self)), el('td', { class: 'num' }, pc(v.self, f.samples)),
          el('td', { class: 'num' }, String(v.total)), el('td', { class: 'num' }, pc(v.total, f.samples)),
          el('td', { class: 'label' }, S[s])))));
      this.box.append(
        el('h3', {}, el('span', { class: 'label' }, S[fi]), `: ${f.samples} samples, ${f.native} with a native stack (${pc(f.native, f.samples)})`),
        table);
      if (rows.length > TOP) this.box.appendChild(el('p', { class: 'muted' }, `\u2026 ${rows.length - TOP} more functions`));
    }
  }
}
