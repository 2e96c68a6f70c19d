// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests of the analysis plug-ins (analysis/plugin): the built-in
 * boundary, tasks and backtrack plug-ins on synthetic core samples with
 * known answers (nesting and recursion, antimarks, several threads and
 * processes, merged profiles, empty input), their text and DOT output, the
 * host's JSON writer and escapes, and the --plugin list.
 */
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <unistd.h>

#include "fsp-plugin.h"
#include "json_out.h"
#include "merge.h"
#include "plugin.h"
#include "plugin_helpers.h"
#include "plugin_int.h"
#include "unit_helpers.h"

#define LIBC_PATH "/lib/x86_64-linux-gnu/libc.so.6" /* Debian's, x86-64 */
#define PID 100
#define TID2 101

/* payload of the backtrack convention */
#define BT(branch, off) ((uint64_t)(branch) << 48 | (uint64_t)(off))

static struct profile *new_profile(void)
{
	struct profile_meta m = {.target = "unit", .frequency_hz = 1000, .period_ns = 1000000};
	struct profile *p = profile__new();

	assert_non_null(p);
	assert_int_equal(profile__set_meta(p, &m), 0);
	assert_int_equal(profile__add_thread(p, PID, PID, "main"), 0);
	return p;
}

/* The text of the plug-ins of list over p (free it). */
static char *text_of(const struct profile *p, const char *list, double min_pct)
{
	struct report_opts o = {.min_pct = min_pct};
	struct plugin_set *s = NULL;
	char msg[512], *buf = NULL;
	size_t len = 0;
	int err;
	FILE *f;
	struct plugin_run *r;

	assert_int_equal(plugin_set__new(list, &s, msg, sizeof(msg)), 0);
	r = plugin_run__new(s, p, &o, &err, msg, sizeof(msg));
	assert_non_null(r);
	f = open_memstream(&buf, &len);
	assert_int_equal(plugin_run__text(r, f, msg, sizeof(msg)), 0);
	fclose(f);
	plugin_run__free(r);
	plugin_set__free(s);
	return buf;
}

/* ---- boundary ---------------------------------------------------------------- */

static json_object *edge(json_object *res, const char *client, const char *server)
{
	json_object *e = find2(arr_of(res, "edges"), "client", client, "server", server);

	if (!e)
		fail_msg("no edge %s -> %s", client, server);
	return e;
}

static void test_boundary_edges(void **state)
{
	struct profile *p = new_profile();
	json_object *root, *res, *e, *c;

	(void)state;
	ADD_STACK(p, PID, 1, MARK("contract", "app->matrix:vector"));
	ADD_STACK(p, PID, 2, MARK("contract", "app -> matrix : dims"));
	ADD_STACK(p, PID, 3, MARK("contract", "matrix->blas"));
	ADD_STACK(p, PID, 4, MARK("output", "x.c:1"));
	ADD_SAMPLES(p, PID, PID, 1, 100);
	ADD_SAMPLES(p, PID, PID, 2, 50);
	ADD_SAMPLES(p, PID, PID, 3, 30);
	ADD_SAMPLES(p, PID, PID, 4, 15);
	ADD_SAMPLES(p, PID, PID, 0, 5);
	res = result_of(p, "boundary", &root);
	assert_int_equal(u64_of(res, "samples"), 180);
	e = edge(res, "app", "matrix");
	assert_int_equal(u64_of(e, "samples"), 150);
	c = find2(arr_of(e, "checks"), "name", "vector", NULL, NULL);
	assert_non_null(c);
	assert_int_equal(u64_of(c, "samples"), 100);
	c = find2(arr_of(e, "checks"), "name", "dims", NULL, NULL);
	assert_non_null(c);
	assert_int_equal(u64_of(c, "samples"), 50);
	e = edge(res, "matrix", "blas");
	assert_int_equal(u64_of(e, "samples"), 30);
	assert_non_null(find2(arr_of(e, "checks"), "name", NULL, NULL, NULL));
	/* the costliest edge first */
	assert_string_equal(str_of(json_object_array_get_idx(arr_of(res, "edges"), 0), "client"),
			    "app");
	c = find2(arr_of(res, "components"), "name", "matrix", NULL, NULL);
	assert_int_equal(u64_of(c, "server_samples"), 150);
	assert_int_equal(u64_of(c, "client_samples"), 30);
	c = find2(arr_of(res, "components"), "name", "blas", NULL, NULL);
	assert_int_equal(u64_of(c, "server_samples"), 30);
	assert_int_equal(u64_of(c, "client_samples"), 0);
	/* no event view: calls are null */
	assert_true(json_object_is_type(json_object_object_get(e, "calls"), json_type_null));
	json_object_put(root);
	profile__free(p);
}

/* A check nested in another charges the inner one; antimarks charge nothing. */
static void test_boundary_nesting_antimarks(void **state)
{
	struct profile *p = new_profile();
	json_object *root, *res;

	(void)state;
	ADD_STACK(p, PID, 1, MARK("contract", "a->b"), MARK("contract", "b->c"));
	ADD_STACK(p, PID, 2, MARK("contract", "a->b"), ANTI("contract"));
	ADD_STACK(p, PID, 3, MARK("contract", "a->b"), ANTI("contract"), MARK("x", "y"),
		  MARK("contract", "b->c"));
	ADD_STACK(p, PID, 4, MARK("contract", "a->b"), MARK("x", "y"));
	ADD_SAMPLES(p, PID, PID, 1, 40);
	ADD_SAMPLES(p, PID, PID, 2, 25);
	ADD_SAMPLES(p, PID, PID, 3, 10);
	ADD_SAMPLES(p, PID, PID, 4, 7);
	res = result_of(p, "boundary", &root);
	assert_int_equal(u64_of(res, "samples"), 57);
	assert_int_equal(u64_of(edge(res, "b", "c"), "samples"), 50);
	assert_int_equal(u64_of(edge(res, "a", "b"), "samples"), 7);
	json_object_put(root);
	profile__free(p);
}

/* Threads and processes add up; labels that are no edge are listed apart;
 * the event view gives calls. */
static void test_boundary_threads_events_other(void **state)
{
	struct profile *p = new_profile();
	struct profile_event_stats ev = {.enters = 10, .leaves = 10, .total_ns = 50000};
	json_object *root, *res, *e, *o;

	(void)state;
	ADD_STACK(p, PID, 1, MARK("contract", "app->lib"));
	ADD_STACK(p, PID, 2, MARK("contract", "no arrow here"));
	ADD_STACK(p, PID, 3, MARK("contract", "->server only"));
	ADD_STACK(p, 200, 1, MARK("contract", "app->lib"));
	ADD_SAMPLES(p, PID, PID, 1, 11);
	ADD_SAMPLES(p, PID, TID2, 1, 13);
	ADD_SAMPLES(p, 200, 201, 1, 17);
	ADD_SAMPLES(p, PID, PID, 2, 3);
	ADD_SAMPLES(p, PID, PID, 3, 2);
	assert_int_equal(profile__add_events(p, PID, "contract", "app->lib", &ev), 0);
	assert_int_equal(profile__add_events(p, 200, "contract", "app->lib", &ev), 0);
	res = result_of(p, "boundary", &root);
	e = edge(res, "app", "lib");
	assert_int_equal(u64_of(e, "samples"), 41);
	assert_int_equal(u64_of(e, "calls"), 20);
	assert_int_equal(u64_of(e, "event_ns"), 100000);
	o = arr_of(res, "other");
	assert_int_equal(json_object_array_length(o), 2);
	assert_int_equal(u64_of(find2(o, "instance", "no arrow here", NULL, NULL), "samples"), 3);
	assert_int_equal(u64_of(find2(o, "instance", "->server only", NULL, NULL), "samples"), 2);
	assert_int_equal(json_object_array_length(arr_of(res, "edges")), 1);
	json_object_put(root);
	profile__free(p);
}

/* The feature seen only under its antimarks: nothing charged, no edge. */
static void test_boundary_nothing_charged(void **state)
{
	struct profile *p = new_profile();
	json_object *root, *res;
	char *text;

	(void)state;
	ADD_STACK(p, PID, 1, ANTI("contract"));
	ADD_SAMPLES(p, PID, PID, 1, 10);
	res = result_of(p, "boundary", &root);
	assert_int_equal(u64_of(res, "samples"), 0);
	assert_int_equal(json_object_array_length(arr_of(res, "edges")), 0);
	json_object_put(root);
	text = text_of(p, "boundary", 0.5);
	assert_non_null(strstr(text, "Checks take 0.00% of running time"));
	free(text);
	profile__free(p);
}

static void test_boundary_text_dot(void **state)
{
	struct profile *p = new_profile();
	struct report_opts o = {.min_pct = 10};
	struct plugin_set *s;
	struct plugin_run *r;
	char msg[256], *buf = NULL, *text;
	size_t len = 0;
	int err;
	FILE *f;

	(void)state;
	ADD_STACK(p, PID, 1, MARK("contract", "app->mat\"rix\x1b[2J:vector"));
	ADD_STACK(p, PID, 2, MARK("contract", "app->tiny"));
	ADD_SAMPLES(p, PID, PID, 1, 90);
	ADD_SAMPLES(p, PID, PID, 2, 1);
	ADD_SAMPLES(p, PID, PID, 0, 9);
	text = text_of(p, "boundary", 10);
	/* the escape sequence is shown escaped; the tiny edge is folded */
	assert_null(strchr(text, '\x1b'));
	assert_non_null(strstr(text, "app -> mat\"rix\\x1b[2J"));
	assert_non_null(strstr(text, "(1 more boundary below 10%)"));
	assert_non_null(strstr(text, "    90.0  90.00%"));
	free(text);
	assert_int_equal(plugin_set__new("boundary", &s, msg, sizeof(msg)), 0);
	r = plugin_run__new(s, p, &o, &err, msg, sizeof(msg));
	assert_non_null(r);
	f = open_memstream(&buf, &len);
	assert_int_equal(plugin_run__dot(r, f, msg, sizeof(msg)), 0);
	fclose(f);
	assert_non_null(strstr(buf, "digraph boundary {"));
	assert_non_null(strstr(buf, "label=\"mat\\\"rix\\\\x1b[2J\""));
	assert_non_null(strstr(buf, "n0 -> n1 [label=\"90.0 ms\\n90.00%\""));
	assert_non_null(strstr(buf, "1 boundary below 10% not drawn"));
	free(buf);
	plugin_run__free(r);
	plugin_set__free(s);
	profile__free(p);
}

/* ---- tasks -------------------------------------------------------------------- */

static json_object *task(json_object *res, const char *label, uint64_t id)
{
	json_object *a = arr_of(res, "tasks");

	for (size_t i = 0; i < json_object_array_length(a); i++) {
		json_object *t = json_object_array_get_idx(a, i);

		if (u64_of(t, "id") == id && !strcmp(str_of(t, "label"), label))
			return t;
	}
	fail_msg("no task %s#%llu", label, (unsigned long long)id);
	return NULL;
}

static void assert_task(json_object *res, const char *label, uint64_t id, uint64_t self,
			uint64_t total)
{
	json_object *t = task(res, label, id);

	if (u64_of(t, "self_samples") != self || u64_of(t, "samples") != total)
		fail_msg("task %s#%llu: self %llu total %llu, expected %llu %llu", label,
			 (unsigned long long)id, (unsigned long long)u64_of(t, "self_samples"),
			 (unsigned long long)u64_of(t, "samples"), (unsigned long long)self,
			 (unsigned long long)total);
}

/* The samples of the edge parent -> child (tasks' positions), 0 if none. */
static uint64_t task_edge(json_object *res, json_object *parent, json_object *child)
{
	json_object *tasks = arr_of(res, "tasks"), *edges = arr_of(res, "edges");
	size_t pi = SIZE_MAX, ci = SIZE_MAX;

	for (size_t i = 0; i < json_object_array_length(tasks); i++) {
		if (json_object_array_get_idx(tasks, i) == parent)
			pi = i;
		if (json_object_array_get_idx(tasks, i) == child)
			ci = i;
	}
	for (size_t i = 0; i < json_object_array_length(edges); i++) {
		json_object *e = json_object_array_get_idx(edges, i);

		if (u64_of(e, "parent") == pi && u64_of(e, "child") == ci)
			return u64_of(e, "samples");
	}
	return 0;
}

static struct profile *tree_profile(void)
{
	struct profile *p = new_profile();

	ADD_STACK(p, PID, 1, MARKP("task", "root", 1));
	ADD_STACK(p, PID, 2, MARKP("task", "root", 1), MARKP("task", "worker", 2));
	ADD_STACK(p, PID, 3, MARKP("task", "root", 1), MARKP("task", "worker", 2),
		  MARKP("task", "leaf", 4));
	ADD_STACK(p, PID, 4, MARKP("task", "root", 1), MARKP("task", "worker", 3));
	ADD_SAMPLES(p, PID, PID, 1, 10);
	ADD_SAMPLES(p, PID, PID, 2, 20);
	ADD_SAMPLES(p, PID, PID, 3, 30);
	ADD_SAMPLES(p, PID, TID2, 4, 25); /* another thread */
	ADD_SAMPLES(p, PID, PID, 4, 15);
	ADD_SAMPLES(p, PID, PID, 0, 100);
	return p;
}

static void test_tasks_tree(void **state)
{
	struct profile *p = tree_profile();
	json_object *root, *res, *kinds, *k;

	(void)state;
	res = result_of(p, "tasks", &root);
	assert_int_equal(u64_of(res, "samples"), 100);
	assert_task(res, "root", 1, 10, 100);
	assert_task(res, "worker", 2, 20, 50);
	assert_task(res, "leaf", 4, 30, 30);
	assert_task(res, "worker", 3, 40, 40);
	assert_int_equal(task_edge(res, task(res, "root", 1), task(res, "worker", 2)), 50);
	assert_int_equal(task_edge(res, task(res, "worker", 2), task(res, "leaf", 4)), 30);
	assert_int_equal(task_edge(res, task(res, "root", 1), task(res, "worker", 3)), 40);
	assert_int_equal(json_object_array_length(arr_of(res, "edges")), 3);
	/* the costliest task first */
	assert_int_equal(u64_of(json_object_array_get_idx(arr_of(res, "tasks"), 0), "id"), 1);
	kinds = arr_of(res, "kinds");
	k = find2(kinds, "label", "worker", NULL, NULL);
	assert_int_equal(u64_of(k, "tasks"), 2);
	assert_int_equal(u64_of(k, "samples"), 90);
	assert_int_equal(u64_of(k, "self_samples"), 60);
	json_object_put(root);
	profile__free(p);
}

/* A task inside itself, a recursive kind: each counted once per sample. */
static void test_tasks_recursion(void **state)
{
	struct profile *p = new_profile();
	json_object *root, *res, *k;

	(void)state;
	ADD_STACK(p, PID, 1, MARKP("task", "root", 1), MARKP("task", "a", 2),
		  MARKP("task", "a", 2));
	ADD_STACK(p, PID, 2, MARKP("task", "fib", 5), MARKP("task", "fib", 6),
		  MARKP("task", "fib", 7));
	ADD_STACK(p, PID, 3, MARKP("task", "fib", 5), MARKP("task", "fib", 6),
		  MARKP("task", "fib", 5));
	ADD_SAMPLES(p, PID, PID, 1, 5);
	ADD_SAMPLES(p, PID, PID, 2, 12);
	ADD_SAMPLES(p, PID, PID, 3, 4);
	res = result_of(p, "tasks", &root);
	assert_task(res, "root", 1, 0, 5);
	assert_task(res, "a", 2, 5, 5);
	assert_task(res, "fib", 5, 4, 16);
	assert_task(res, "fib", 6, 0, 16);
	assert_task(res, "fib", 7, 12, 12);
	/* a -> a is no edge; fib 6 -> fib 5 is (a cycle in the graph) */
	assert_int_equal(task_edge(res, task(res, "a", 2), task(res, "a", 2)), 0);
	assert_int_equal(task_edge(res, task(res, "fib", 6), task(res, "fib", 5)), 4);
	assert_int_equal(task_edge(res, task(res, "fib", 5), task(res, "fib", 6)), 16);
	k = find2(arr_of(res, "kinds"), "label", "fib", NULL, NULL);
	assert_int_equal(u64_of(k, "samples"), 16);
	assert_int_equal(u64_of(k, "self_samples"), 16);
	assert_int_equal(u64_of(k, "tasks"), 3);
	json_object_put(root);
	profile__free(p);
}

/* Antimarks: a sample under one charges nothing; one between tasks is
 * skipped in the ancestry. Other features are skipped too. */
static void test_tasks_antimarks(void **state)
{
	struct profile *p = new_profile();
	json_object *root, *res;

	(void)state;
	ADD_STACK(p, PID, 1, MARKP("task", "root", 1), ANTI("task"));
	ADD_STACK(p, PID, 2, MARKP("task", "root", 1), ANTI("task"), MARK("output", "o"),
		  MARKP("task", "b", 3));
	ADD_STACK(p, PID, 3, MARKP("task", "root", 1), MARKP("output", "o", 99));
	ADD_SAMPLES(p, PID, PID, 1, 7);
	ADD_SAMPLES(p, PID, PID, 2, 3);
	ADD_SAMPLES(p, PID, PID, 3, 2);
	res = result_of(p, "tasks", &root);
	assert_int_equal(u64_of(res, "samples"), 5);
	assert_task(res, "root", 1, 2, 5);
	assert_task(res, "b", 3, 3, 3);
	assert_int_equal(task_edge(res, task(res, "root", 1), task(res, "b", 3)), 3);
	assert_int_equal(json_object_array_length(arr_of(res, "tasks")), 2);
	json_object_put(root);
	profile__free(p);
}

/* Equal task ids in two processes (and two sources of a merge) stay apart. */
static void test_tasks_processes_merged(void **state)
{
	struct profile *a = tree_profile(), *b = tree_profile(), *m = profile__new();
	char err[256];
	json_object *root, *res;
	char *text;

	(void)state;
	ADD_STACK(a, 300, 1, MARKP("task", "root", 1));
	ADD_SAMPLES(a, 300, 300, 1, 8);
	assert_int_equal(profile__merge(m, a, err, sizeof(err)), 0);
	assert_int_equal(profile__merge(m, b, err, sizeof(err)), 0);
	assert_int_equal(profile__merge_finish(m, "merge", err, sizeof(err)), 0);
	res = result_of(m, "tasks", &root);
	assert_int_equal(u64_of(res, "samples"), 208);
	assert_int_equal(json_object_array_length(arr_of(res, "tasks")), 9);
	for (size_t i = 0; i < 9; i++) {
		json_object *t = json_object_array_get_idx(arr_of(res, "tasks"), i);

		if (u64_of(t, "id") == 1 && u64_of(t, "pid") == PID)
			assert_int_equal(u64_of(t, "samples"), 100);
		else if (u64_of(t, "id") == 1)
			assert_int_equal(u64_of(t, "samples"), 8);
	}
	json_object_put(root);
	/* the tree names the process of each task in a profile of several */
	text = text_of(m, "tasks", 0);
	assert_non_null(strstr(text, ":100: root#1"));
	assert_non_null(strstr(text, ":300: root#1"));
	free(text);
	profile__free(m);
	profile__free(a);
	profile__free(b);
}

static void test_tasks_text(void **state)
{
	struct profile *p = tree_profile();
	char *text;

	(void)state;
	ADD_STACK(p, PID, 9, MARKP("task", "root", 1), MARKP("task", "tiny", 9));
	ADD_SAMPLES(p, PID, PID, 9, 1);
	text = text_of(p, "tasks", 1);
	/* total then self, the tree indented */
	assert_non_null(strstr(text, "       101.0  50.25%       10.0   4.98%   root#1\n"));
	assert_non_null(strstr(text, "        50.0  24.88%       20.0   9.95%     worker#2\n"));
	assert_non_null(strstr(text, "        30.0  14.93%       30.0  14.93%       leaf#4\n"));
	assert_non_null(strstr(text, "(1 more task below 1%)"));
	assert_non_null(strstr(text, "By kind"));
	free(text);
	profile__free(p);
}

/* ---- backtrack ------------------------------------------------------------------- */

static void assert_branch(json_object *res, const char *choice, uint64_t branch, uint64_t in,
			  uint64_t abandoned)
{
	json_object *a = arr_of(res, "branches");

	for (size_t i = 0; i < json_object_array_length(a); i++) {
		json_object *b = json_object_array_get_idx(a, i);

		if (strcmp(str_of(b, "choice"), choice) || u64_of(b, "branch") != branch)
			continue;
		if (u64_of(b, "samples") != in || u64_of(b, "abandoned_samples") != abandoned)
			fail_msg("%s/%llu: in %llu abandoned %llu, expected %llu %llu", choice,
				 (unsigned long long)branch,
				 (unsigned long long)u64_of(b, "samples"),
				 (unsigned long long)u64_of(b, "abandoned_samples"),
				 (unsigned long long)in, (unsigned long long)abandoned);
		return;
	}
	fail_msg("no branch %s/%llu", choice, (unsigned long long)branch);
}

/* Later branches of the same visit show the earlier ones abandoned; a
 * visit under another enclosing attempt, or in another thread, is another
 * visit. */
static void test_backtrack_visits(void **state)
{
	struct profile *p = new_profile();
	json_object *root, *res;

	(void)state;
	ADD_STACK(p, PID, 1, MARKP("choice", "list", BT(0, 0)));
	ADD_STACK(p, PID, 2, MARKP("choice", "list", BT(1, 0)));
	ADD_STACK(p, PID, 3, MARKP("choice", "list", BT(0, 0)), MARKP("choice", "item", BT(0, 5)));
	ADD_STACK(p, PID, 4, MARKP("choice", "list", BT(0, 0)), MARKP("choice", "item", BT(1, 5)));
	ADD_STACK(p, PID, 5, MARKP("choice", "list", BT(1, 0)), MARKP("choice", "item", BT(0, 5)));
	ADD_STACK(p, PID, 6, MARKP("choice", "list", BT(0, 40)));
	ADD_SAMPLES(p, PID, PID, 1, 10);
	ADD_SAMPLES(p, PID, PID, 2, 6);
	ADD_SAMPLES(p, PID, PID, 3, 4);
	ADD_SAMPLES(p, PID, PID, 4, 3);
	ADD_SAMPLES(p, PID, PID, 5, 2);
	ADD_SAMPLES(p, PID, TID2, 1, 9); /* tid 2 never got to branch 1 */
	ADD_SAMPLES(p, PID, PID, 6, 5); /* another offset: another visit */
	ADD_SAMPLES(p, PID, PID, 0, 61);
	res = result_of(p, "backtrack", &root);
	assert_int_equal(u64_of(res, "samples"), 39);
	assert_branch(res, "list", 0, 10 + 4 + 3 + 9 + 5, 10 + 4 + 3);
	assert_branch(res, "list", 1, 6 + 2, 0);
	assert_branch(res, "item", 0, 4 + 2, 4);
	assert_branch(res, "item", 1, 3, 0);
	/* samples in any abandoned branch, once each */
	assert_int_equal(u64_of(res, "abandoned_samples"), 17);
	/* the most abandoned first */
	assert_string_equal(str_of(json_object_array_get_idx(arr_of(res, "branches"), 0), "choice"),
			    "list");
	json_object_put(root);
	profile__free(p);
}

/* A recursive rule: the same branch at two depths counts once per sample,
 * abandoned when either frame is. */
static void test_backtrack_recursion(void **state)
{
	struct profile *p = new_profile();
	json_object *root, *res;

	(void)state;
	ADD_STACK(p, PID, 1, MARKP("choice", "expr", BT(0, 0)), MARKP("choice", "expr", BT(0, 3)));
	ADD_STACK(p, PID, 2, MARKP("choice", "expr", BT(0, 0)), MARKP("choice", "expr", BT(1, 3)));
	ADD_STACK(p, PID, 3, MARKP("choice", "expr", BT(0, 0)), MARKP("choice", "expr", BT(0, 3)),
		  MARKP("choice", "expr", BT(0, 6)));
	ADD_SAMPLES(p, PID, PID, 1, 5);
	ADD_SAMPLES(p, PID, PID, 2, 2);
	ADD_SAMPLES(p, PID, PID, 3, 4);
	res = result_of(p, "backtrack", &root);
	assert_branch(res, "expr", 0, 11, 9);
	assert_branch(res, "expr", 1, 2, 0);
	assert_int_equal(u64_of(res, "abandoned_samples"), 9);
	json_object_put(root);
	profile__free(p);
}

/* Samples under an antimark are charged nothing, but show the branch their
 * visit had got to. */
static void test_backtrack_antimarks(void **state)
{
	struct profile *p = new_profile();
	json_object *root, *res;

	(void)state;
	ADD_STACK(p, PID, 1, MARKP("choice", "value", BT(2, 9)), ANTI("choice"));
	ADD_STACK(p, PID, 2, MARKP("choice", "value", BT(0, 9)));
	ADD_STACK(p, PID, 3, MARKP("choice", "value", BT(1, 9)), MARK("output", "o"));
	ADD_SAMPLES(p, PID, PID, 1, 4);
	ADD_SAMPLES(p, PID, PID, 2, 3);
	ADD_SAMPLES(p, PID, PID, 3, 6);
	res = result_of(p, "backtrack", &root);
	assert_int_equal(u64_of(res, "samples"), 9);
	assert_branch(res, "value", 0, 3, 3);
	assert_branch(res, "value", 1, 6, 6);
	json_object_put(root);
	profile__free(p);
}

static void test_backtrack_text(void **state)
{
	struct profile *p = new_profile();
	char *text;

	(void)state;
	ADD_STACK(p, PID, 1, MARKP("choice", "list", BT(0, 0)));
	ADD_STACK(p, PID, 2, MARKP("choice", "list", BT(1, 0)));
	ADD_SAMPLES(p, PID, PID, 1, 30);
	ADD_SAMPLES(p, PID, PID, 2, 70);
	text = text_of(p, "backtrack", 0.5);
	assert_non_null(strstr(text, "Abandoned branches take 30.00% of running time (30.0 ms, 30 "
				     "samples) of the 100.00% in choices"));
	assert_non_null(strstr(text, "        30.0  30.00%       30.0  30.00%       0   list\n"));
	assert_non_null(strstr(text, "         0.0   0.00%       70.0  70.00%       1   list\n"));
	free(text);
	profile__free(p);
}

/* ---- the host and the set ----------------------------------------------------------- */

/* A profile without the feature a plug-in reads, an empty profile: one
 * clear message, no run. */
static void test_missing_feature(void **state)
{
	struct profile *p = new_profile();
	char msg[512];
	int err = 0;

	(void)state;
	assert_null(run(p, "tasks", &err, msg, sizeof(msg)));
	assert_int_equal(err, -ENOENT);
	assert_non_null(strstr(msg, "plug-in tasks: the profile has no samples of feature 'task'"));
	ADD_STACK(p, PID, 1, MARKP("task", "t", 1));
	ADD_SAMPLES(p, PID, PID, 1, 1);
	assert_null(run(p, "tasks=job", &err, msg, sizeof(msg)));
	assert_int_equal(err, -ENOENT);
	assert_non_null(strstr(msg, "feature 'job'"));
	profile__free(p);
}

/* Empty input, for each built-in plug-in: a profile with no stacks at all
 * is refused; one whose feature is only under antimarks gives empty
 * results, in every format. */
static void test_empty_input(void **state)
{
	static const char *const names[][2] = {
		{"boundary", "contract"}, {"tasks", "task"}, {"backtrack", "choice"}};
	char msg[512], *text;
	json_object *root, *res;
	int err;

	(void)state;
	for (size_t i = 0; i < 3; i++) {
		struct profile *p = new_profile();

		ADD_SAMPLES(p, PID, PID, 0, 10);
		assert_null(run(p, names[i][0], &err, msg, sizeof(msg)));
		assert_int_equal(err, -ENOENT);
		ADD_STACK(p, PID, 1, ANTI(names[i][1]));
		ADD_SAMPLES(p, PID, TID2, 1, 5);
		res = result_of(p, names[i][0], &root);
		assert_int_equal(u64_of(res, "samples"), 0);
		json_object_put(root);
		text = text_of(p, names[i][0], 0);
		assert_non_null(strstr(text, "0.00% of running time"));
		free(text);
		profile__free(p);
	}
}

/* A process filter: the plug-ins see the processes kept, with their totals. */
static void test_process_filter(void **state)
{
	struct profile *p = tree_profile();
	struct report_opts o = {.pid = "300"};
	struct plugin_set *s;
	struct plugin_run *r;
	char msg[256];
	int err;

	(void)state;
	ADD_STACK(p, 300, 1, MARKP("task", "other", 1));
	ADD_SAMPLES(p, 300, 300, 1, 8);
	assert_int_equal(plugin_set__new("tasks", &s, msg, sizeof(msg)), 0);
	r = plugin_run__new(s, p, &o, &err, msg, sizeof(msg));
	assert_non_null(r);
	plugin_run__free(r);
	o.pid = "999";
	assert_null(plugin_run__new(s, p, &o, &err, msg, sizeof(msg)));
	assert_int_equal(err, -ENOENT);
	plugin_set__free(s);
	profile__free(p);
}

static void test_set_parse(void **state)
{
	struct plugin_set *s = NULL;
	char msg[512];

	(void)state;
	assert_int_equal(
		plugin_set__new("tasks,,boundary=check,tasks,tasks=job", &s, msg, sizeof(msg)), 0);
	assert_int_equal(plugin_set__nr(s), 4 - 1);
	assert_int_equal(plugin_set__nr_dot(s), 3);
	plugin_set__free(s);
	assert_int_equal(plugin_set__new(",", &s, msg, sizeof(msg)), 0);
	assert_null(s);
	assert_int_equal(plugin_set__new("tasks,nosuch", &s, msg, sizeof(msg)), -EINVAL);
	assert_null(s);
	assert_non_null(strstr(msg, "unknown plug-in 'nosuch'"));
	assert_non_null(strstr(msg, "backtrack, boundary or tasks"));
	assert_non_null(strstr(msg, "by its path (./libnosuch.so)"));
	/* A file name is suggested as it is, in the current directory (it was
	 * ./liblibnot.so.so). */
	assert_int_equal(plugin_set__new("libnot.so", &s, msg, sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "by its path (./libnot.so)"));
	assert_int_equal(plugin_set__new("libnot.so.2", &s, msg, sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "by its path (./libnot.so.2)"));
	assert_int_equal(plugin_set__new("libnot", &s, msg, sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "by its path (./libnot.so)"));
	assert_int_equal(plugin_set__new("sonar", &s, msg, sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "by its path (./libsonar.so)"));
	assert_int_equal(plugin_set__new("tasks=", &s, msg, sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "empty"));
	assert_int_equal(plugin_set__new("./no/such/libx.so", &s, msg, sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "cannot load plug-in ./no/such/libx.so"));
	/* a shared object that is not a plug-in: libc exports no entry point */
	if (access(LIBC_PATH, R_OK))
		return;
	assert_int_equal(plugin_set__new(LIBC_PATH, &s, msg, sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "is not an fsp-bpf plug-in"));
}

static int dummy_analyze(const struct fsp_plugin_host *h, const struct fsp_plugin_profile *p,
			 const struct fsp_plugin_args *args, void **state)
{
	(void)h, (void)p, (void)args, (void)state;
	return 0;
}

static int dummy_text(const struct fsp_plugin_host *h, const struct fsp_plugin_profile *p,
		      void *state, FILE *out)
{
	(void)h, (void)p, (void)state, (void)out;
	return 0;
}

static void dummy_release(void *state)
{
	(void)state;
}

static void test_check(void **state)
{
	struct fsp_plugin d = {
		.abi_version = FSP_PLUGIN_ABI_VERSION,
		.size = sizeof(struct fsp_plugin),
		.name = "ok-name_1",
		.analyze = dummy_analyze,
		.render_text = dummy_text,
		.release = dummy_release,
	};
	char msg[512];

	(void)state;
	assert_int_equal(plugin__check(&d, "x.so", msg, sizeof(msg)), 0);
	d.abi_version = 2;
	assert_int_equal(plugin__check(&d, "x.so", msg, sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "x.so is a plug-in of ABI version 2, this fsp-bpf loads "
				    "version 1"));
	d.abi_version = FSP_PLUGIN_ABI_VERSION;
	d.size = 8;
	assert_int_equal(plugin__check(&d, "x.so", msg, sizeof(msg)), -EINVAL);
	d.size = sizeof(struct fsp_plugin);
	d.name = "bad name";
	assert_int_equal(plugin__check(&d, "x.so", msg, sizeof(msg)), -EINVAL);
	d.name = "ok";
	d.release = NULL;
	assert_int_equal(plugin__check(&d, "x.so", msg, sizeof(msg)), -EINVAL);
	assert_int_equal(plugin__check(NULL, "x.so", msg, sizeof(msg)), -EINVAL);
	for (size_t i = 0; i < plugin__nr_builtins(); i++)
		assert_int_equal(plugin__check(plugin__builtin(i), "built-in", msg, sizeof(msg)),
				 0);
}

/* The JSON writer: valid output by construction, misuse reported. */
static char *json_calls(int misuse, int *ret)
{
	const struct fsp_plugin_host *h = &plugin_host;
	struct fsp_plugin_profile pp;
	struct fsp_plugin_json j;
	struct json_out w;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	plugin_profile__init(&pp, NULL);
	assert_int_equal(json_out__begin(&w, f), 0);
	plugin_json__init(&j, &w, &pp);
	h->json_object_begin(&j);
	h->json_key(&j, "a\"b");
	h->json_array_begin(&j);
	h->json_u64(&j, UINT64_MAX);
	h->json_i64(&j, -5);
	h->json_real(&j, 0.5);
	h->json_real(&j, 1.0 / 0.0);
	h->json_string(&j, "x\xffy");
	h->json_string(&j, NULL);
	h->json_bool(&j, 1);
	h->json_null(&j);
	h->json_object_begin(&j);
	h->json_object_end(&j);
	h->json_array_end(&j);
	if (misuse == 1)
		h->json_u64(&j, 1); /* no key */
	if (misuse == 2)
		h->json_array_end(&j); /* not an array */
	if (misuse != 3)
		h->json_object_end(&j); /* 3: left open */
	if (misuse == 4)
		h->json_u64(&j, 1); /* a second value */
	*ret = plugin_json__finish(&j);
	json_out__end(&w);
	fclose(f);
	if (*ret)
		assert_true(pp.has_msg);
	plugin_profile__fini(&pp);
	return buf;
}

static void test_json_writer(void **state)
{
	char *buf;
	int ret;

	(void)state;
	buf = json_calls(0, &ret);
	assert_int_equal(ret, 0);
	assert_string_equal(buf, "{\"a\\\"b\":[18446744073709551615,-5,0.5,null,\"x\xef\xbf\xbdy\","
				 "null,true,null,{}]}");
	free(buf);
	for (int m = 1; m <= 4; m++) {
		buf = json_calls(m, &ret);
		assert_int_equal(ret, -EINVAL);
		free(buf);
	}
}

static void test_text_escape(void **state)
{
	char buf[64];

	size_t n = plugin_host.text_escape(buf, sizeof(buf),
					   "a\\b\n\x1b\xff\xc2\x9b\xe2\x80\xae"
					   "é");

	(void)state;
	assert_int_equal(n, strlen(buf));
	assert_string_equal(buf, "a\\\\b\\x0a\\x1b\\xff\\u009b\\u202eé");
	/* cut before an escape that does not fit */
	assert_int_equal(plugin_host.text_escape(buf, 5, "ab\ncd"), 8);
	assert_string_equal(buf, "ab");
	assert_int_equal(plugin_host.text_escape(buf, sizeof(buf), NULL), 0);
	assert_string_equal(buf, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_boundary_edges),
		cmocka_unit_test(test_boundary_nesting_antimarks),
		cmocka_unit_test(test_boundary_threads_events_other),
		cmocka_unit_test(test_boundary_nothing_charged),
		cmocka_unit_test(test_boundary_text_dot),
		cmocka_unit_test(test_tasks_tree),
		cmocka_unit_test(test_tasks_recursion),
		cmocka_unit_test(test_tasks_antimarks),
		cmocka_unit_test(test_tasks_processes_merged),
		cmocka_unit_test(test_tasks_text),
		cmocka_unit_test(test_backtrack_visits),
		cmocka_unit_test(test_backtrack_recursion),
		cmocka_unit_test(test_backtrack_antimarks),
		cmocka_unit_test(test_backtrack_text),
		cmocka_unit_test(test_missing_feature),
		cmocka_unit_test(test_empty_input),
		cmocka_unit_test(test_process_filter),
		cmocka_unit_test(test_set_parse),
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_json_writer),
		cmocka_unit_test(test_text_escape),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
