/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * libtasks - a small fork-join task runtime: a task spawns child tasks and
 * waits for them with task_sync(), which runs them on the calling thread,
 * depth first. Marked for fsp-bpf: each task runs under a mark of feature
 * "task" with its kind as instance label and its id as payload, and its
 * children run inside it, so a core sample holds the task and its whole
 * ancestry: the convention the tasks plug-in reads (fsp-bpf --plugin tasks;
 * usdt/README.md).
 *
 *	static void fetch(struct task *self, void *url) { ... }
 *
 *	static void crawl(struct task *self, void *arg)
 *	{
 *		for (int i = 0; i < n; i++)
 *			task_spawn(self, "fetch", fetch, urls[i]);
 *		task_sync(self);             // the fetches run here
 *		merge_results();             // crawl's own work
 *	}
 *
 *	task_run("crawl", crawl, NULL);
 *
 * Trees on different threads are independent; a tree belongs to the
 * thread that runs it.
 */
#ifndef TASKS_H
#define TASKS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct task;

typedef void (*task_fn)(struct task *self, void *arg);

/* Runs fn(root, arg) as the root task of a new tree on the calling thread,
 * then its remaining children; returns the root's id when the whole tree is
 * done. `kind` names what the task is: a string literal (the profiler keeps
 * its address). Ids are unique in the process, from 1. */
uint64_t task_run(const char *kind, task_fn fn, void *arg);

/* Spawns a child of self (the running task): it runs at self's next
 * task_sync(), or when self's function returns. Returns its id. */
uint64_t task_spawn(struct task *self, const char *kind, task_fn fn, void *arg);

/* Runs self's pending children, in the order spawned, each with its own
 * descendants, until none is pending. */
void task_sync(struct task *self);

uint64_t task_id(const struct task *t);
const char *task_kind(const struct task *t);
struct task *task_parent(const struct task *t); /* NULL for a root */

#ifdef __cplusplus
}
#endif

#endif /* TASKS_H */
