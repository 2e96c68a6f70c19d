// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tasks_demo - a merge sort whose halves are tasks of libtasks (tasks.h),
 * under a "job" task that also prepares and checks the data.
 *
 *   tasks_demo [ROUNDS]     sort ROUNDS arrays (default 20)
 *
 *   sudo fsp-bpf --plugin tasks -- .output/examples/tasks_demo
 *
 * "sort" tasks spawn two "sort" children until a slice is small: a recursive
 * kind, which the tasks plug-in counts once per sample in its by-kind table.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tasks.h"

#define N (1 << 20)
#define LEAF 4096

struct slice {
	int *v, *tmp;
	size_t n;
};

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

static void sort_task(struct task *self, void *arg)
{
	struct slice *s = arg, halves[2];
	size_t h = s->n / 2, i = 0, j = h, k = 0;

	if (s->n <= LEAF) {
		qsort(s->v, s->n, sizeof(int), cmp_int);
		return;
	}
	halves[0] = (struct slice){s->v, s->tmp, h};
	halves[1] = (struct slice){s->v + h, s->tmp + h, s->n - h};
	task_spawn(self, "sort", sort_task, &halves[0]);
	task_spawn(self, "sort", sort_task, &halves[1]);
	task_sync(self);
	while (i < h && j < s->n) /* the merge: this task's own work */
		s->tmp[k++] = s->v[i] <= s->v[j] ? s->v[i++] : s->v[j++];
	while (i < h)
		s->tmp[k++] = s->v[i++];
	while (j < s->n)
		s->tmp[k++] = s->v[j++];
	memcpy(s->v, s->tmp, s->n * sizeof(int));
}

static void job(struct task *self, void *arg)
{
	static int v[N], tmp[N];
	static struct slice all = {v, tmp, N};
	unsigned int *seed = arg;

	for (size_t i = 0; i < N; i++)
		v[i] = rand_r(seed);
	task_spawn(self, "sort", sort_task, &all);
	task_sync(self);
	for (size_t i = 1; i < N; i++)
		if (v[i - 1] > v[i])
			abort();
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 20;
	unsigned int seed = 1;

	for (int r = 0; r < rounds; r++)
		task_run("job", job, &seed);
	printf("sorted %d arrays of %d integers\n", rounds, N);
	return 0;
}
