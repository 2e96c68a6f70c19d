// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
// The event view of an instance: the log2 latency histogram of its returned
// calls (Chart.js), with the text report's bucket bounds.
import { Chart, BarController, BarElement, CategoryScale, LinearScale, Tooltip } from 'chart.js';
import { el, bound, dur } from './common.js';

Chart.register(BarController, BarElement, CategoryScale, LinearScale, Tooltip);

const BUCKETS = 40;

// "[LOW, HIGH)" of bucket i: [0 ns, 2 ns) for 0, [2^i, 2^(i+1)) ns, the last open.
export function bucketLabel(i) {
  const lo = bound(i ? 2 ** i : 0);
  const hi = i + 1 < BUCKETS ? bound(2 ** (i + 1)) : 'inf';
  return `[${lo}, ${hi})`;
}

let charts = [];

/* st: {enters, leaves, total_ns, max_ns, hist} or null; counted: whether
 * events apply to the selection (not for one thread). */
export function histogram(st, counted) {
  for (const c of charts) c.destroy();
  charts = [];
  const box = el('div', { id: 'event-view' });
  if (!counted) {
    box.appendChild(el('p', { class: 'muted' }, 'Calls are counted per process, not per thread: choose all threads to see them.'));
    return box;
  }
  if (!st) {
    box.appendChild(el('p', { class: 'muted' }, 'No calls counted for this instance (recorded with --no-events, or its marks were never entered while fsp-bpf counted).'));
    return box;
  }
  box.appendChild(el('p', {}, `${st.enters} calls, ${st.leaves} returned` +
    (st.leaves ? `, ${dur(st.total_ns / st.leaves)} per call, max ${dur(st.max_ns)}` : '')));
  const first = st.hist.findIndex((v) => v > 0);
  if (first < 0) return box;
  const last = st.hist.length - 1;
  const labels = [], values = [];
  for (let i = first; i <= last; i++) {
    labels.push(bucketLabel(i));
    values.push(st.hist[i] || 0);
  }
  const canvas = el('canvas', { id: 'histogram', width: 480, height: 220 });
  box.appendChild(el('div', { class: 'chart' }, canvas));
  box.appendChild(el('table', { class: 'hist', id: 'hist-table' },
    el('tbody', {}, labels.map((l, k) => (values[k] ? el('tr', {}, el('td', {}, l), el('td', { class: 'num' }, String(values[k]))) : null)))));
  charts.push(new Chart(canvas, {
    type: 'bar',
    data: { labels, datasets: [{ label: 'calls', data: values, backgroundColor: '#e76f51' }] },
    options: {
      animation: false,
      responsive: false,
      plugins: { tooltip: { enabled: true } },
      scales: { x: { title: { display: true, text: 'duration of a returned call' } }, y: { beginAtZero: true, title: { display: true, text: 'calls' } } },
    },
  }));
  return box;
}
