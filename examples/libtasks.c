// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libtasks (tasks.h): a fork-join task runtime, marked for fsp-bpf. A task
 * runs under a mark of feature "task" (instance: its kind; payload: its id)
 * entered in task_exec()'s frame; its children run deeper in the same
 * thread's stack, inside that mark, so every core sample holds the running
 * task's whole ancestry. The tasks plug-in (fsp-bpf --plugin tasks) turns
 * that into the tree of tasks with self and inclusive cost.
 */
#include <stdlib.h>

#include <fsp/fsp.h>

#include "tasks.h"

#define TASK_FEATURE "task"

struct task {
	uint64_t id;
	const char *kind;
	task_fn fn;
	void *arg;
	struct task *parent;
	struct task *head, *tail; /* pending children, in spawn order */
	struct task *next;
};

static uint64_t next_id = 1;

static uint64_t new_id(void)
{
	return __atomic_fetch_add(&next_id, 1, __ATOMIC_RELAXED);
}

/* Runs t, then its children that are still pending. */
static void task_exec(struct task *t)
{
	FSP_SCOPED_MARK(TASK_FEATURE, t->kind, t->id);
	t->fn(t, t->arg);
	task_sync(t);
}

uint64_t task_run(const char *kind, task_fn fn, void *arg)
{
	struct task root = {.id = new_id(), .kind = kind, .fn = fn, .arg = arg};

	task_exec(&root);
	return root.id;
}

uint64_t task_spawn(struct task *self, const char *kind, task_fn fn, void *arg)
{
	struct task *c = calloc(1, sizeof(*c));

	if (!c) { /* out of memory: run it now, which fork-join allows */
		struct task now = {
			.id = new_id(), .kind = kind, .fn = fn, .arg = arg, .parent = self};

		task_exec(&now);
		return now.id;
	}
	*c = (struct task){.id = new_id(), .kind = kind, .fn = fn, .arg = arg, .parent = self};
	if (self->tail)
		self->tail->next = c;
	else
		self->head = c;
	self->tail = c;
	return c->id;
}

void task_sync(struct task *self)
{
	struct task *c;

	while ((c = self->head)) {
		self->head = c->next;
		if (!self->head)
			self->tail = NULL;
		task_exec(c);
		free(c);
	}
}

uint64_t task_id(const struct task *t)
{
	return t->id;
}

const char *task_kind(const struct task *t)
{
	return t->kind;
}

struct task *task_parent(const struct task *t)
{
	return t->parent;
}
