// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * wl_tasks - drives examples/libtasks (a fork-join task runtime) for the
 * tasks plug-in's test, measuring each task's self and inclusive CPU time.
 *
 *   wl_tasks TRUTH MS    one tree of tasks taking about MS ms of CPU time
 *
 * The tree (self time in ms for MS = 1530, scaled to MS; each task burns
 * part of its self time before spawning its children and the rest after
 * task_sync() has run them):
 *
 *   server 100
 *     conn 200                 request 300, request 150
 *     conn 100                 split 50 (split 80 (split 60), split 40): a recursive kind
 *     conn 250                 request 200
 *
 * Self time is measured inside each task's function less the time in
 * task_sync(); inclusive time is self plus the children's inclusive time.
 * The runtime's own time inside the tasks' marks (spawning, the probes) is
 * the whole tree's CPU time less the sum of self times: ambiguous, written
 * as overhead_ns.
 *
 * Truth keys: cpu_total_ns, tasks, task.N.{id,kind,parent,self_ns,total_ns}
 * (N from 0, parent -1 for the root), kind.K.{self_ns,total_ns,tasks} for K
 * in server, conn, request, split (total: each sample once per kind),
 * split_summed_ns (the split tasks' inclusive times summed: what counting a
 * recursive kind at every depth would give), overhead_ns.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tasks.h"
#include "wl_common.h"

#define NR_TASKS 11
#define PLAN_MS 1530

struct spec {
	const char *kind;
	uint64_t self_ms[2]; /* before spawning, after the children */
	int children[3];
	int nr_children;
};

static const struct spec tree[NR_TASKS] = {
	{"server", {40, 60}, {1, 2, 3}, 3}, {"conn", {100, 100}, {4, 5}, 2},
	{"conn", {50, 50}, {6}, 1},	    {"conn", {150, 100}, {7}, 1},
	{"request", {150, 150}, {0}, 0},    {"request", {80, 70}, {0}, 0},
	{"split", {25, 25}, {8, 9}, 2},	    {"request", {100, 100}, {0}, 0},
	{"split", {40, 40}, {10}, 1},	    {"split", {20, 20}, {0}, 0},
	{"split", {30, 30}, {0}, 0},
};

struct measured {
	uint64_t id;
	int parent;
	uint64_t self_ns, total_ns;
};

static struct measured m[NR_TASKS];
static uint64_t scale_ms; /* MS */

static uint64_t scaled(uint64_t ms)
{
	return ms * scale_ms * WL_NS_PER_MS / PLAN_MS;
}

static void run_task(struct task *self, void *arg)
{
	int i = (int)(intptr_t)arg;
	const struct spec *s = &tree[i];
	uint64_t t0 = wl_thread_ns(), y0, y1;

	m[i].id = task_id(self);
	wl_burn(scaled(s->self_ms[0]));
	for (int c = 0; c < s->nr_children; c++) {
		m[s->children[c]].parent = i;
		task_spawn(self, tree[s->children[c]].kind, run_task,
			   (void *)(intptr_t)s->children[c]);
	}
	y0 = wl_thread_ns();
	task_sync(self);
	y1 = wl_thread_ns();
	wl_burn(scaled(s->self_ms[1]));
	m[i].self_ns = (wl_thread_ns() - t0) - (y1 - y0);
}

/* Inclusive time: self plus the children's (a tree, so each once). */
static uint64_t total_of(int i)
{
	uint64_t t = m[i].self_ns;

	for (int c = 0; c < tree[i].nr_children; c++)
		t += total_of(tree[i].children[c]);
	return m[i].total_ns = t;
}

static void out_kind(FILE *f, const char *kind)
{
	uint64_t self = 0, total = 0, n = 0;
	char key[64];

	for (int i = 0; i < NR_TASKS; i++) {
		if (strcmp(tree[i].kind, kind))
			continue;
		n++;
		self += m[i].self_ns;
		/* once per kind: only tasks whose parent is of another kind */
		if (m[i].parent < 0 || strcmp(tree[m[i].parent].kind, kind))
			total += m[i].total_ns;
	}
	snprintf(key, sizeof(key), "kind.%s.self_ns", kind);
	wl_out_u64(f, key, self);
	snprintf(key, sizeof(key), "kind.%s.total_ns", kind);
	wl_out_u64(f, key, total);
	snprintf(key, sizeof(key), "kind.%s.tasks", kind);
	wl_out_u64(f, key, n);
}

int main(int argc, char **argv)
{
	uint64_t a, d, self_sum = 0, split_summed = 0, total;
	char key[64];
	FILE *f;

	if (argc != 3)
		wl_die("usage: wl_tasks TRUTH MS");
	scale_ms = wl_arg_u64(argv[2], "MS");
	m[0].parent = -1;
	a = wl_thread_ns();
	task_run(tree[0].kind, run_task, (void *)(intptr_t)0);
	d = wl_thread_ns();
	total = wl_process_ns();
	total_of(0);
	for (int i = 0; i < NR_TASKS; i++) {
		self_sum += m[i].self_ns;
		if (!strcmp(tree[i].kind, "split"))
			split_summed += m[i].total_ns;
	}

	f = wl_out_open(argv[1]);
	wl_out_u64(f, "cpu_total_ns", total);
	wl_out_u64(f, "tasks", NR_TASKS);
	for (int i = 0; i < NR_TASKS; i++) {
		snprintf(key, sizeof(key), "task.%d.id", i);
		wl_out_u64(f, key, m[i].id);
		snprintf(key, sizeof(key), "task.%d.kind", i);
		wl_out_str(f, key, tree[i].kind);
		snprintf(key, sizeof(key), "task.%d.parent", i);
		wl_out_u64(f, key, (uint64_t)(int64_t)m[i].parent);
		snprintf(key, sizeof(key), "task.%d.self_ns", i);
		wl_out_u64(f, key, m[i].self_ns);
		snprintf(key, sizeof(key), "task.%d.total_ns", i);
		wl_out_u64(f, key, m[i].total_ns);
	}
	out_kind(f, "server");
	out_kind(f, "conn");
	out_kind(f, "request");
	out_kind(f, "split");
	wl_out_u64(f, "split_summed_ns", split_summed);
	wl_out_u64(f, "overhead_ns", (d - a) - self_sum);
	return wl_out_close(f, argv[1]) || wl_integrity_errors() ? 3 : 0;
}
