// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
// The HTML report's script (the entry point esbuild bundles with the
// libraries): reads the data embedded in the page and draws the page of a
// profile or of a diff. Labels are only ever put in the page as text.
import { el } from './common.js';
import { profilePage } from './profile.js';
import { diffPage } from './diff.js';

function main() {
  const root = document.getElementById('app');
  let D;
  try {
    D = JSON.parse(document.getElementById('fsp-data').textContent);
  } catch (e) {
    root.appendChild(el('p', { class: 'missing' }, 'The report data cannot be read: ' + e.message));
    throw e;
  }
  if (D.format !== 'fsp-bpf-html' || D.version !== 1) {
    root.appendChild(el('p', { class: 'missing' }, `This page cannot show data of format ${D.format} version ${D.version}.`));
    return;
  }
  const t0 = performance.now();
  if (D.kind === 'diff') diffPage(D, root);
  else profilePage(D, root);
  // for the tests and the curious: how long the first drawing took
  document.body.dataset.renderMs = (performance.now() - t0).toFixed(1);
  document.body.dataset.ready = '1';
}

main();
