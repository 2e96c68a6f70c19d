// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
// What the profile page and the diff page share: building elements (text
// only: labels come from the profiled target and are never parsed as HTML),
// number formats that print what the text report prints, sortable tables,
// the source view and the plug-in sections.

// An element with attributes and children; strings become text nodes.
export function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') e.className = v;
    else if (k === 'text') e.textContent = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else if (k === 'style') Object.assign(e.style, v);
    else e.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) {
    if (c === undefined || c === null || c === false) continue;
    e.appendChild(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c);
  }
  return e;
}

// x with d decimals as C's printf("%.*f") prints it: exact binary value,
// ties (exactly representable halves) to even, where toFixed rounds them up.
export function cfixed(x, d) {
  if (!Number.isFinite(x)) return String(x);
  const neg = x < 0 || Object.is(x, -0);
  const a = Math.abs(x);
  let s = a.toFixed(d);
  const long = a.toFixed(Math.min(d + 30, 100));
  const rest = long.slice(long.length - 30);
  if (/^50*$/.test(rest)) {
    // a tie: toFixed went up; go down when the kept last digit is odd
    let down = long.slice(0, long.length - 30);
    if (down.endsWith('.')) down = down.slice(0, -1);
    const last = down.charCodeAt(down.length - 1) - 48;
    if (last % 2 === 0) s = down;
  }
  return (neg ? '-' : '') + s;
}

// printf("%+.*f"): with a sign; -0.0 prints as +0.0 (diff_report.c's no_neg_zero).
export function signed(x, d) {
  if (x === 0) x = 0;
  const s = cfixed(x, d);
  return s.startsWith('-') ? s : '+' + s;
}

export const ms = (ns) => cfixed(ns / 1e6, 1);
export const pct = (part, total) => cfixed(total ? (100 * part) / total : 0, 2) + '%';

// A duration as the text report's text_dur: 3 significant digits, unit.
export function dur(ns) {
  const units = ['ns', 'us', 'ms', 's'];
  let u = 0;
  while (u + 1 < units.length && ns >= 999.5) {
    ns /= 1000;
    u++;
  }
  const d = ns < 9.995 ? 2 : ns < 99.95 ? 1 : 0;
  return cfixed(ns, d) + ' ' + units[u];
}

// A histogram bound: exact below 1 us, else as dur.
export const bound = (ns) => (ns < 1000 ? ns + ' ns' : dur(ns));

// "file.c:42" -> ["file.c", 42]; null for other labels (as report_html_source.c).
export function fileLine(label) {
  const m = /^(.+):([0-9]{1,9})$/s.exec(label);
  return m ? [m[1], Number(m[2])] : null;
}

// A heat color for a cost in [0, 1] (0: pale yellow, 1: red).
export function heat(f) {
  f = Math.max(0, Math.min(1, f));
  return `hsl(${Math.round(50 - 50 * f)}, 100%, ${Math.round(88 - 33 * f)}%)`;
}

// A diverging color for a change in [-1, 1]: blue (less) to red (more).
export function diverging(f) {
  f = Math.max(-1, Math.min(1, f));
  const hue = f >= 0 ? 0 : 215;
  return `hsl(${hue}, 85%, ${Math.round(96 - 36 * Math.abs(f))}%)`;
}

/*
 * A table sortable by clicking any column header. columns: [{key, label,
 * num (numeric: descending first), cls}]; groups: [{row, children: [rows]}]
 * where a row is {cells: {key: {text, value}}, ...}: groups are sorted by
 * the key and each group's children too (a feature and its instances).
 * render(group, sortedChildren, tbody) appends the rows; footer(tbody),
 * when set, appends rows that stay after them whatever the order.
 */
export class SortTable {
  constructor(columns, render, initial) {
    this.columns = columns;
    this.render = render;
    this.key = initial.key;
    this.desc = initial.desc;
    this.table = el('table', { class: 'sortable' });
    this.thead = el('thead');
    this.tbody = el('tbody');
    this.table.append(this.thead, this.tbody);
    this.groups = [];
    this.footer = null;
  }

  header() {
    const tr = el('tr');
    for (const c of this.columns) {
      const arrow = c.key === this.key ? (this.desc ? ' \u25bc' : ' \u25b2') : '';
      tr.appendChild(
        el('th', {
          class: (c.cls || '') + (c.key === this.key ? ' sorted' : ''),
          'data-key': c.key,
          title: c.title || 'sort by ' + c.label,
          onclick: () => this.sortBy(c.key),
        }, c.label + arrow));
    }
    this.thead.replaceChildren(tr);
  }

  sortBy(key) {
    const col = this.columns.find((c) => c.key === key);
    if (key === this.key) this.desc = !this.desc;
    else this.desc = col ? !!col.num : false;
    this.key = key;
    this.draw();
  }

  cmp() {
    const k = this.key, sign = this.desc ? -1 : 1;
    return (a, b) => {
      const va = a.sort[k], vb = b.sort[k];
      let r = 0;
      if (typeof va === 'string' || typeof vb === 'string') r = String(va).localeCompare(String(vb));
      else r = (va ?? -Infinity) - (vb ?? -Infinity);
      if (r) return sign * r;
      // ties: the text report's (descending samples, then name)
      return (b.sort.tie || 0) - (a.sort.tie || 0) || (a.sort.name < b.sort.name ? -1 : a.sort.name > b.sort.name ? 1 : 0);
    };
  }

  setGroups(groups) {
    this.groups = groups;
    this.draw();
  }

  draw() {
    this.header();
    const cmp = this.cmp();
    const groups = [...this.groups].sort((a, b) => cmp(a.row, b.row));
    const frag = document.createDocumentFragment();
    for (const g of groups) this.render(g, [...g.children].sort(cmp), frag);
    if (this.footer) this.footer(frag); // rows after the sorted ones
    this.tbody.replaceChildren(frag);
  }
}

// A cell: the text shown, the value it sorts by as data-value.
export function td(text, value, cls) {
  return el('td', { class: cls, 'data-value': value === undefined ? undefined : String(value) }, text);
}

// A bar of width f (0..1) of the cell.
export function bar(f, color) {
  return el('div', { class: 'bar', style: { width: (Math.max(0, Math.min(1, f)) * 100).toFixed(2) + '%', background: color } });
}

/*
 * The source view: the lines of the file of `label` around its line, each
 * line that is an instance colored by color(line) (a CSS color or null),
 * with title(line) as its tooltip. sources: the data's "sources".
 */
export function sourceView(sources, label, color, title) {
  const fl = fileLine(label);
  const box = el('div', { class: 'source', id: 'source-view' });
  if (!fl) {
    box.appendChild(el('p', { class: 'muted' }, 'This instance is not labelled FILE:LINE: no source to show.'));
    return box;
  }
  const [file, line] = fl;
  const src = sources.find((s) => s.file === file);
  box.appendChild(el('div', { class: 'source-name' }, (src && src.path) || file, ':', String(line)));
  if (!src || src.text === null || src.text === undefined) {
    box.appendChild(el('p', { class: 'missing' }, src && src.error ? src.error : file + ': not embedded'));
    return box;
  }
  const lines = src.text.split('\n');
  const ctx = 15;
  const draw = (from, to) => {
    const pre = el('div', { class: 'code' });
    for (let n = from; n <= to; n++) {
      const c = color(n);
      pre.appendChild(
        el('div', {
          class: 'line' + (n === line ? ' current' : '') + (c ? ' cost' : ''),
          'data-line': n,
          style: c ? { background: c } : undefined,
          title: c ? title(n) : undefined,
        }, el('span', { class: 'ln' }, String(n)), el('span', { class: 'lt' }, lines[n - 1] ?? '')));
    }
    return pre;
  };
  let from = Math.max(1, line - ctx), to = Math.min(lines.length, line + ctx);
  if (line > lines.length) {
    box.appendChild(el('p', { class: 'missing' }, `${file} has ${lines.length} lines: line ${line} is not in it (an older or newer file?)`));
    from = Math.max(1, lines.length - 2 * ctx);
    to = lines.length;
  }
  let code = draw(from, to);
  box.appendChild(code);
  if (from > 1 || to < lines.length) {
    const more = el('button', {
      class: 'more',
      onclick: () => {
        const all = draw(1, lines.length);
        code.replaceWith(all);
        code = all;
        more.remove();
        all.querySelector('.current')?.scrollIntoView({ block: 'center' });
      },
    }, `show all ${lines.length} lines`);
    box.appendChild(more);
  }
  return box;
}

// The plug-in sections: text as text, tables as tables (docs/output-formats.md).
export function pluginSections(plugins) {
  const out = el('div', { id: 'plugins' });
  for (const p of plugins || []) {
    const sec = el('section', { class: 'plugin' }, el('h2', {}, String(p.name ?? 'plug-in')));
    for (const s of p.sections || []) {
      sec.appendChild(el('h3', {}, String(s.title ?? '')));
      if (s.text !== null && s.text !== undefined) sec.appendChild(el('p', { class: 'plugin-text' }, String(s.text)));
      if (Array.isArray(s.columns) && s.columns.length) {
        const t = el('table', { class: 'plugin-table' });
        t.appendChild(el('thead', {}, el('tr', {}, s.columns.map((c) => el('th', {}, String(c))))));
        t.appendChild(el('tbody', {}, (s.rows || []).map((r) => el('tr', {}, r.map((c) => el('td', {}, String(c ?? '')))))));
        sec.appendChild(t);
      }
    }
    out.appendChild(sec);
  }
  return out;
}

// Tabs: [{id, label, build()}]; a tab's content is built when first shown.
export function tabs(container, list) {
  const nav = el('nav', { class: 'tabs' });
  const panes = {};
  const show = (id) => {
    for (const t of list) {
      const on = t.id === id;
      panes[t.id].hidden = !on;
      nav.querySelector(`[data-tab="${t.id}"]`).classList.toggle('active', on);
      if (on && !t.built) {
        t.built = true;
        t.build(panes[t.id]);
      } else if (on && t.shown) {
        t.shown(panes[t.id]);
      }
    }
  };
  for (const t of list) {
    nav.appendChild(el('button', { 'data-tab': t.id, id: 'tab-' + t.id, onclick: () => show(t.id) }, t.label));
    panes[t.id] = el('section', { id: t.id, class: 'pane', hidden: true });
  }
  container.append(nav, ...Object.values(panes));
  // builds tabs again (their data changed): now if shown, else when shown
  show.reset = (ids) => {
    for (const t of list) {
      if (!ids.includes(t.id) || !t.built) continue;
      t.built = false;
      panes[t.id].replaceChildren();
      if (!panes[t.id].hidden) {
        t.built = true;
        t.build(panes[t.id]);
      }
    }
  };
  return show;
}

// A "dt: dd" list of [label, value] pairs (values as text).
export function facts(pairs) {
  const dl = el('dl', { class: 'facts' });
  for (const [k, v] of pairs) {
    if (v === null || v === undefined) continue;
    dl.append(el('dt', {}, k), el('dd', {}, String(v)));
  }
  return dl;
}

// "1 thread", "2 threads"
export const plural = (n, one, many) => `${n} ${n === 1 ? one : many}`;

export function when(t) {
  if (!t) return 'an unknown time';
  return new Date(t * 1000).toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC');
}
