// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Unit tests of the profile model (analysis/model/profile.c). */
#include <errno.h>

#include "attrib.h"
#include "unit_helpers.h"

static int setup(void **state)
{
	*state = profile__new();
	return *state ? 0 : -1;
}

static int teardown(void **state)
{
	profile__free(*state);
	return 0;
}

static void test_null_safety(void **state)
{
	struct profile_sample s;
	struct profile_thread t;
	struct profile_stack st;

	(void)state;
	profile__free(NULL);
	assert_null(profile__meta(NULL));
	assert_int_equal(profile__set_meta(NULL, NULL), -EINVAL);
	assert_int_equal(profile__add_pid(NULL, 1), -EINVAL);
	assert_int_equal(profile__add_thread(NULL, 1, 1, "x"), -EINVAL);
	assert_int_equal(profile__add_stack(NULL, 1, 1, NULL, 0), -EINVAL);
	assert_int_equal(profile__add_samples(NULL, 1, 1, 0, 1), -EINVAL);
	assert_int_equal(profile__nr_pids(NULL), 0);
	assert_int_equal(profile__pid(NULL, 0), 0);
	assert_int_equal(profile__nr_threads(NULL), 0);
	assert_int_equal(profile__nr_stacks(NULL), 0);
	assert_int_equal(profile__nr_samples(NULL), 0);
	assert_int_equal(profile__total_samples(NULL), 0);
	assert_int_equal(profile__diag(NULL, DIAG_LOST_SAMPLES), 0);
	profile__set_diag(NULL, DIAG_LOST_SAMPLES, 3);
	assert_int_equal(profile__sample(NULL, 0, &s), -EINVAL);
	assert_int_equal(profile__thread(NULL, 0, &t), -EINVAL);
	assert_int_equal(profile__stack(NULL, 0, &st), -EINVAL);
}

static void test_empty(void **state)
{
	struct profile *p = *state;
	const struct profile_meta *m = profile__meta(p);
	struct profile_sample s;
	int d;

	assert_non_null(m);
	assert_null(m->target);
	assert_null(m->tool_version);
	assert_int_equal(m->frequency_hz, 0);
	assert_int_equal(profile__nr_pids(p), 0);
	assert_int_equal(profile__nr_threads(p), 0);
	assert_int_equal(profile__nr_stacks(p), 0);
	assert_int_equal(profile__nr_samples(p), 0);
	assert_int_equal(profile__total_samples(p), 0);
	assert_int_equal(profile__sample(p, 0, &s), -EINVAL);
	for (d = 0; d < DIAG__COUNT; d++)
		assert_int_equal(profile__diag(p, d), 0);
}

static void test_meta_is_copied(void **state)
{
	struct profile *p = *state;
	char target[] = "pid 42 (demo)", host[] = "box";
	struct profile_meta in = {
		.target = target,
		.command_line = "fsp-bpf -p 42",
		.host = host,
		.kernel = NULL,
		.tool_version = "9.9.9",
		.frequency_hz = 999,
		.period_ns = 1001001,
		.start_time = 1700000000.5,
		.end_time = 1700000003.5,
		.duration_s = 3.0,
	};
	const struct profile_meta *m;

	assert_int_equal(profile__set_meta(p, &in), 0);
	target[0] = 'X';
	host[0] = 'X';
	m = profile__meta(p);
	assert_string_equal(m->target, "pid 42 (demo)");
	assert_ptr_not_equal(m->target, target);
	assert_string_equal(m->host, "box");
	assert_string_equal(m->command_line, "fsp-bpf -p 42");
	assert_ptr_not_equal(m->command_line, in.command_line);
	assert_null(m->kernel);
	assert_string_equal(m->tool_version, "9.9.9");
	assert_int_equal(m->frequency_hz, 999);
	assert_int_equal(m->period_ns, 1001001);
	assert_true(m->start_time == 1700000000.5);
	assert_true(m->end_time == 1700000003.5);
	assert_true(m->duration_s == 3.0);

	/* Replacing frees the old strings (ASan checks) and NULLs stay NULL. */
	in.target = NULL;
	in.kernel = "6.1.0";
	assert_int_equal(profile__set_meta(p, &in), 0);
	m = profile__meta(p);
	assert_null(m->target);
	assert_string_equal(m->kernel, "6.1.0");
	assert_int_equal(profile__set_meta(p, NULL), -EINVAL);
	assert_string_equal(profile__meta(p)->kernel, "6.1.0");
}

static void test_pids_idempotent(void **state)
{
	struct profile *p = *state;

	assert_int_equal(profile__add_pid(p, 30), 0);
	assert_int_equal(profile__add_pid(p, 10), 0);
	assert_int_equal(profile__add_pid(p, 30), 0);
	assert_int_equal(profile__add_pid(p, 20), 0);
	assert_int_equal(profile__add_pid(p, 10), 0);
	assert_int_equal(profile__nr_pids(p), 3);
	assert_int_equal(profile__pid(p, 0), 30);
	assert_int_equal(profile__pid(p, 1), 10);
	assert_int_equal(profile__pid(p, 2), 20);
	assert_int_equal(profile__pid(p, 3), 0);
}

static void test_threads(void **state)
{
	struct profile *p = *state;
	struct profile_thread t;
	char comm[] = "worker";

	assert_int_equal(profile__add_thread(p, 100, 100, NULL), 0);
	assert_int_equal(profile__add_thread(p, 100, 101, comm), 0);
	assert_int_equal(profile__add_thread(p, 200, 100, ""), 0); /* same tid, other pid */
	assert_int_equal(profile__nr_threads(p), 3);
	/* add_thread records the process */
	assert_int_equal(profile__nr_pids(p), 2);
	assert_int_equal(profile__pid(p, 0), 100);
	assert_int_equal(profile__pid(p, 1), 200);

	comm[0] = 'X'; /* copied */
	assert_int_equal(profile__thread(p, 1, &t), 0);
	assert_int_equal(t.pid, 100);
	assert_int_equal(t.tid, 101);
	assert_string_equal(t.comm, "worker");
	assert_int_equal(t.samples, 0);

	/* unknown comm reads "" (never NULL) and a later name replaces it */
	assert_int_equal(profile__thread(p, 0, &t), 0);
	assert_non_null(t.comm);
	assert_string_equal(t.comm, "");
	assert_int_equal(profile__add_thread(p, 100, 100, "main"), 0);
	assert_int_equal(profile__thread(p, 0, &t), 0);
	assert_string_equal(t.comm, "main");

	/* ... but a non-empty name is not replaced, nor erased */
	assert_int_equal(profile__add_thread(p, 100, 100, "other"), 0);
	assert_int_equal(profile__add_thread(p, 100, 100, ""), 0);
	assert_int_equal(profile__add_thread(p, 100, 100, NULL), 0);
	assert_int_equal(profile__thread(p, 0, &t), 0);
	assert_string_equal(t.comm, "main");
	assert_int_equal(profile__nr_threads(p), 3);

	/* rename replaces a name (exec, pthread_setname_np) but never erases it */
	assert_int_equal(profile__rename_thread(NULL, 1, 1, "x"), -EINVAL);
	assert_int_equal(profile__rename_thread(p, 100, 100, "renamed"), 0);
	assert_int_equal(profile__rename_thread(p, 100, 100, ""), 0);
	assert_int_equal(profile__rename_thread(p, 100, 100, NULL), 0);
	assert_int_equal(profile__thread(p, 0, &t), 0);
	assert_string_equal(t.comm, "renamed");
	assert_int_equal(profile__nr_threads(p), 3);

	assert_int_equal(profile__thread(p, 2, &t), 0);
	assert_int_equal(t.pid, 200);
	assert_int_equal(t.tid, 100);
	assert_int_equal(profile__thread(p, 3, &t), -EINVAL);
}

static void test_stack_interning(void **state)
{
	struct profile *p = *state;
	char *f1 = test_strdup("Output"), *f2 = test_strdup("Output");
	char *i1 = test_strdup("fizzbuzz.c:8");
	struct profile_frame a[] = {MARKP(f1, i1, 7), ANTI(f1)};
	struct profile_frame b[] = {MARK(f2, NULL)};
	struct profile_stack sa, sb;

	assert_ptr_not_equal(f1, f2);
	assert_int_equal(profile__add_stack(p, 1, 0xa, a, 2), 0);
	assert_int_equal(profile__add_stack(p, 1, 0xb, b, 1), 0);
	/* copies: the caller's buffers may go away */
	f1[0] = 'X';
	i1[0] = 'X';
	free(f1);
	free(f2);
	free(i1);

	assert_int_equal(profile__nr_stacks(p), 2);
	assert_int_equal(profile__stack(p, 0, &sa), 0);
	assert_int_equal(profile__stack(p, 1, &sb), 0);
	assert_int_equal(sa.pid, 1);
	assert_int_equal(sa.key, 0xa);
	assert_int_equal(sa.depth, 2);
	assert_int_equal(sa.frames[0].kind, PROFILE_MARK);
	assert_string_equal(sa.frames[0].feature, "Output");
	assert_string_equal(sa.frames[0].instance, "fizzbuzz.c:8");
	assert_int_equal(sa.frames[0].payload, 7);
	assert_int_equal(sa.frames[1].kind, PROFILE_ANTIMARK);
	assert_null(sa.frames[1].instance);
	assert_int_equal(sb.key, 0xb);
	assert_null(sb.frames[0].instance);
	/* equal strings are one pointer */
	assert_ptr_equal(sa.frames[0].feature, sa.frames[1].feature);
	assert_ptr_equal(sa.frames[0].feature, sb.frames[0].feature);
	assert_int_equal(profile__stack(p, 2, &sa), -EINVAL);
}

static void test_stack_errors(void **state)
{
	struct profile *p = *state;
	struct profile_frame ok[] = {MARK("F", "i")};
	struct profile_frame other[] = {MARK("G", "j")};
	struct profile_frame bad_kind[] = {{4, "F", NULL, 0}};
	struct profile_frame no_feature[] = {MARK("F", "i"), MARK(NULL, "i")};
	struct profile_stack st;

	assert_int_equal(profile__add_stack(p, 1, 0, ok, 1), -EINVAL);
	assert_int_equal(profile__add_stack(p, 1, 5, NULL, 1), -EINVAL);
	assert_int_equal(profile__add_stack(p, 1, 5, bad_kind, 1), -EINVAL);
	assert_int_equal(profile__add_stack(p, 1, 5, no_feature, 2), -EINVAL);
	assert_int_equal(profile__nr_stacks(p), 0);

	assert_int_equal(profile__add_stack(p, 1, 5, ok, 1), 0);
	assert_int_equal(profile__add_stack(p, 1, 5, other, 1), -EEXIST);
	assert_int_equal(profile__add_stack(p, 1, 5, ok, 1), -EEXIST);
	/* the same key in another process is another stack */
	assert_int_equal(profile__add_stack(p, 2, 5, other, 1), 0);
	/* an empty stack under a non-zero key is accepted */
	assert_int_equal(profile__add_stack(p, 1, 6, NULL, 0), 0);
	assert_int_equal(profile__nr_stacks(p), 3);

	/* the failed -EEXIST did not overwrite the first registration */
	assert_int_equal(profile__stack(p, 0, &st), 0);
	assert_string_equal(st.frames[0].feature, "F");
	assert_int_equal(profile__stack(p, 1, &st), 0);
	assert_int_equal(st.pid, 2);
	assert_string_equal(st.frames[0].feature, "G");
	assert_int_equal(profile__stack(p, 2, &st), 0);
	assert_int_equal(st.depth, 0);
	assert_null(st.frames);
}

static void test_samples_accumulate(void **state)
{
	struct profile *p = *state;
	struct profile_sample s;
	struct profile_thread t;

	ADD_STACK(p, 10, 0x77, MARK("F", "a"), MARK("G", "b"));
	ADD_SAMPLES(p, 10, 11, 0x77, 3);
	ADD_SAMPLES(p, 10, 11, 0, 2);
	ADD_SAMPLES(p, 10, 12, 0x77, 5);
	ADD_SAMPLES(p, 10, 11, 0x77, 4); /* accumulates into the first */
	assert_int_equal(profile__nr_samples(p), 3);
	assert_int_equal(profile__total_samples(p), 14);

	assert_int_equal(profile__sample(p, 0, &s), 0);
	assert_int_equal(s.pid, 10);
	assert_int_equal(s.tid, 11);
	assert_int_equal(s.key, 0x77);
	assert_int_equal(s.count, 7);
	assert_int_equal(s.known, 1);
	assert_int_equal(s.stack, 0);
	assert_int_equal(s.depth, 2);
	assert_string_equal(s.frames[1].feature, "G");
	assert_string_equal(s.frames[1].instance, "b");

	/* the empty stack: known, no frames */
	assert_int_equal(profile__sample(p, 1, &s), 0);
	assert_int_equal(s.key, 0);
	assert_int_equal(s.count, 2);
	assert_int_equal(s.known, 1);
	assert_int_equal(s.depth, 0);
	assert_null(s.frames);
	assert_true(s.stack == PROFILE_NO_STACK);

	assert_int_equal(profile__sample(p, 2, &s), 0);
	assert_int_equal(s.tid, 12);
	assert_int_equal(s.count, 5);
	assert_int_equal(profile__sample(p, 3, &s), -EINVAL);

	/* samples register their thread and process, and count per thread */
	assert_int_equal(profile__nr_pids(p), 1);
	assert_int_equal(profile__nr_threads(p), 2);
	assert_int_equal(profile__thread(p, 0, &t), 0);
	assert_int_equal(t.tid, 11);
	assert_int_equal(t.samples, 9);
	assert_string_equal(t.comm, "");
	assert_int_equal(profile__thread(p, 1, &t), 0);
	assert_int_equal(t.samples, 5);
}

static void test_samples_unknown_key(void **state)
{
	struct profile *p = *state;
	struct profile_sample s;

	ADD_STACK(p, 1, 0x10, MARK("F", "a"));
	/* a key of another process is unknown here */
	assert_int_equal(profile__add_samples(p, 2, 2, 0x10, 4), -ENOENT);
	assert_int_equal(profile__add_samples(p, 1, 1, 0x99, 6), -ENOENT);
	assert_int_equal(profile__add_samples(p, 1, 1, 0x99, 1), -ENOENT);
	assert_int_equal(profile__total_samples(p), 11);
	assert_int_equal(profile__nr_samples(p), 2);
	assert_int_equal(profile__sample(p, 0, &s), 0);
	assert_int_equal(s.known, 0);
	assert_int_equal(s.count, 4);
	assert_true(s.stack == PROFILE_NO_STACK);
	assert_int_equal(s.depth, 0);
	assert_null(s.frames);
	assert_int_equal(profile__sample(p, 1, &s), 0);
	assert_int_equal(s.known, 0);
	assert_int_equal(s.count, 7);
	/* unknown stacks are not diagnosed by the model: the caller sets diags */
	assert_int_equal(profile__diag(p, DIAG_UNKNOWN_STACKS), 0);

	/* registered late, the stack is matched when the samples are read */
	ADD_STACK(p, 1, 0x99, MARK("H", "z"));
	assert_int_equal(profile__sample(p, 1, &s), 0);
	assert_int_equal(s.known, 1);
	assert_int_equal(s.stack, 1);
	assert_int_equal(s.depth, 1);
	assert_string_equal(s.frames[0].feature, "H");
	ADD_SAMPLES(p, 1, 1, 0x99, 2);
	assert_int_equal(profile__sample(p, 1, &s), 0);
	assert_int_equal(s.count, 9);
	assert_int_equal(s.known, 1);
	assert_int_equal(profile__sample(p, 0, &s), 0);
	assert_int_equal(s.known, 0);
}

static void test_samples_zero_count(void **state)
{
	struct profile *p = *state;

	ADD_STACK(p, 1, 0x10, MARK("F", "a"));
	assert_int_equal(profile__add_samples(p, 1, 1, 0x10, 0), 0);
	assert_int_equal(profile__add_samples(p, 1, 1, 0, 0), 0);
	assert_int_equal(profile__add_samples(p, 1, 1, 0x11, 0), -ENOENT);
	assert_int_equal(profile__nr_samples(p), 0);
	assert_int_equal(profile__total_samples(p), 0);
}

static void test_sample_keys_distinct(void **state)
{
	struct profile *p = *state;
	struct profile_sample s;
	size_t i;

	/* (pid, tid) pairs that would collide if packed carelessly */
	ADD_SAMPLES(p, 1, 2, 0, 1);
	ADD_SAMPLES(p, 2, 1, 0, 10);
	ADD_SAMPLES(p, 0, 0x100000002ULL & 0xffffffff, 0, 100);
	ADD_SAMPLES(p, 0xffffffff, 0xffffffff, 0, 1000);
	assert_int_equal(profile__nr_samples(p), 4);
	for (i = 0; i < 4; i++) {
		assert_int_equal(profile__sample(p, i, &s), 0);
		assert_int_equal(s.count, i == 0 ? 1 : i == 1 ? 10 : i == 2 ? 100 : 1000);
	}
	assert_int_equal(profile__sample(p, 3, &s), 0);
	assert_int_equal(s.pid, 0xffffffff);
	assert_int_equal(s.tid, 0xffffffff);
	assert_int_equal(profile__total_samples(p), 1111);
	assert_int_equal(profile__nr_threads(p), 4);
}

static void test_diag(void **state)
{
	struct profile *p = *state;
	int d, e;

	for (d = 0; d < DIAG__COUNT; d++)
		profile__set_diag(p, d, 100 + d);
	profile__set_diag(p, DIAG_LOST_SAMPLES, UINT64_MAX);
	profile__set_diag(p, DIAG__COUNT, 5); /* ignored */
	profile__set_diag(p, (enum profile_diag) - 1, 5);
	assert_true(profile__diag(p, DIAG_LOST_SAMPLES) == UINT64_MAX);
	for (d = 1; d < DIAG__COUNT; d++)
		assert_int_equal(profile__diag(p, d), 100 + d);
	assert_int_equal(profile__diag(p, DIAG__COUNT), 0);
	profile__set_diag(p, DIAG_STALE_MARKS, 0);
	assert_int_equal(profile__diag(p, DIAG_STALE_MARKS), 0);
	/* diagnostics are not samples */
	assert_int_equal(profile__total_samples(p), 0);

	/* names: non-empty, unique, JSON-friendly; descriptions non-empty */
	for (d = 0; d < DIAG__COUNT; d++) {
		const char *n = profile_diag__name(d);

		assert_non_null(n);
		assert_true(strlen(n) > 0);
		assert_true(strspn(n, "abcdefghijklmnopqrstuvwxyz_") == strlen(n));
		assert_true(strlen(profile_diag__describe(d)) > 10);
		for (e = 0; e < d; e++)
			assert_string_not_equal(n, profile_diag__name(e));
	}
	assert_string_equal(profile_diag__name(DIAG_LOST_SAMPLES), "lost_samples");
	assert_string_equal(profile_diag__name(DIAG_UNKNOWN_STACKS), "unknown_stacks");
	assert_string_equal(profile_diag__name(DIAG_UNMATCHED_LEAVES), "unmatched_leaves");
	assert_string_equal(profile_diag__name(DIAG__COUNT), "unknown");
	assert_non_null(profile_diag__describe(DIAG__COUNT));
}

static void test_many(void **state)
{
	struct profile *p = *state;
	struct profile_sample s;
	struct profile_stack st;
	char feat[32], inst[32];
	uint64_t key;
	size_t i;

	/* enough to grow every table many times */
	for (i = 0; i < 20000; i++) {
		struct profile_frame fr[2];

		snprintf(feat, sizeof(feat), "feature%zu", i % 37);
		snprintf(inst, sizeof(inst), "inst%zu", i % 101);
		fr[0] = MARKP(feat, inst, i);
		fr[1] = ANTI(feat);
		key = 0x9e3779b97f4a7c15ULL * (i + 1);
		assert_int_equal(profile__add_stack(p, (uint32_t)(i % 3), key, fr, 1 + i % 2), 0);
		ADD_SAMPLES(p, (uint32_t)(i % 3), (uint32_t)(i % 7), key, i + 1);
	}
	assert_int_equal(profile__nr_stacks(p), 20000);
	assert_int_equal(profile__nr_samples(p), 20000);
	assert_int_equal(profile__total_samples(p), 20000ULL * 20001 / 2);
	assert_int_equal(profile__nr_pids(p), 3);
	for (i = 0; i < 20000; i += 997) {
		assert_int_equal(profile__sample(p, i, &s), 0);
		assert_int_equal(s.count, i + 1);
		assert_int_equal(s.stack, i);
		assert_int_equal(profile__stack(p, i, &st), 0);
		assert_int_equal(st.depth, 1 + i % 2);
		assert_ptr_equal(st.frames, s.frames);
		assert_int_equal(st.frames[0].payload, i);
		snprintf(feat, sizeof(feat), "feature%zu", i % 37);
		assert_string_equal(st.frames[0].feature, feat);
	}
}

/* Sources (merged profiles): equal PIDs of two sessions stay two processes,
 * each source keeps its metadata and diagnostics. */
static void test_sources(void **state)
{
	struct profile *p = *state;
	struct profile_meta m1 = {.host = "alpha", .frequency_hz = 99};
	struct profile_meta m2 = {.host = "beta", .frequency_hz = 999};
	uint64_t diag[DIAG__COUNT] = {[DIAG_OVERFLOWS] = 7};
	struct profile_frame f = {.kind = PROFILE_MARK, .feature = "f", .instance = "i"};
	struct profile_source src;
	struct profile_process pr;
	struct profile_sample s;
	struct profile_thread t;
	struct attrib_opts ao = {.pid = 10, .source = 1};
	struct attrib *a;

	assert_int_equal(profile__use_source(p, 1), -EINVAL); /* not yet added */
	assert_int_equal(profile__add_source(p, &m1, NULL), 0);
	assert_int_equal(profile__add_source(p, &m2, diag), 1);
	assert_int_equal(profile__nr_sources(p), 2);
	assert_int_equal(profile__source(p, 1, &src), 0);
	assert_string_equal(src.meta->host, "beta");
	assert_int_equal(src.meta->frequency_hz, 999);
	assert_int_equal(src.diag[DIAG_OVERFLOWS], 7);
	assert_int_equal(profile__source(p, 2, &src), -EINVAL);

	for (uint32_t i = 0; i < 2; i++) {
		assert_int_equal(profile__use_source(p, i), 0);
		/* the same key means different stacks in different sources */
		assert_int_equal(profile__add_stack(p, 10, 5, &f, i + 1 == 2 ? 1 : 0), 0);
		assert_int_equal(profile__add_thread(p, 10, 11, i ? "b" : "a"), 0);
		assert_int_equal(profile__add_samples(p, 10, 11, 5, 3 + i), 0);
	}
	assert_int_equal(profile__nr_pids(p), 2);
	assert_int_equal(profile__process(p, 1, &pr), 0);
	assert_int_equal(pr.source, 1);
	assert_int_equal(pr.pid, 10);
	assert_int_equal(profile__nr_threads(p), 2);
	assert_int_equal(profile__thread(p, 1, &t), 0);
	assert_int_equal(t.source, 1);
	assert_string_equal(t.comm, "b");
	assert_int_equal(profile__nr_samples(p), 2);
	assert_int_equal(profile__sample(p, 0, &s), 0);
	assert_int_equal(s.source, 0);
	assert_int_equal(s.depth, 0);
	assert_int_equal(profile__sample(p, 1, &s), 0);
	assert_int_equal(s.source, 1);
	assert_int_equal(s.depth, 1);
	assert_int_equal(s.count, 4);

	a = attrib__compute(p, &ao);
	assert_non_null(a);
	assert_int_equal(attrib__total_samples(a), 4);
	assert_int_equal(attrib__nr_features(a), 1);
	attrib__free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_null_safety),
		cmocka_unit_test_setup_teardown(test_empty, setup, teardown),
		cmocka_unit_test_setup_teardown(test_meta_is_copied, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pids_idempotent, setup, teardown),
		cmocka_unit_test_setup_teardown(test_threads, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stack_interning, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stack_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_samples_accumulate, setup, teardown),
		cmocka_unit_test_setup_teardown(test_samples_unknown_key, setup, teardown),
		cmocka_unit_test_setup_teardown(test_samples_zero_count, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sample_keys_distinct, setup, teardown),
		cmocka_unit_test_setup_teardown(test_diag, setup, teardown),
		cmocka_unit_test_setup_teardown(test_many, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sources, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
