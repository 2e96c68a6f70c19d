// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Unit tests of merging profiles (analysis/model/merge.c). */
#include <errno.h>
#include <stdio.h>

#include "attrib.h"
#include "merge.h"
#include "test_seed.h"
#include "unit_helpers.h"

#ifndef FSP_VERSION
#define FSP_VERSION "unknown"
#endif

#define MS 1000000ULL /* period_ns of 1 ms */

static struct profile_meta meta_of(const char *target, const char *host, double start,
				   double duration)
{
	struct profile_meta m = {
		.target = target,
		.command_line = "fsp-bpf record",
		.host = host,
		.kernel = "6.1.0-test",
		.tool_version = "0.0.9",
		.frequency_hz = 1000,
		.period_ns = MS,
		.start_time = start,
		.end_time = start + duration,
		.duration_s = duration,
	};

	return m;
}

static struct profile *recording(const struct profile_meta *m)
{
	struct profile *p = profile__new();

	assert_non_null(p);
	assert_int_equal(profile__set_meta(p, m), 0);
	return p;
}

/* Recording "A": pid 100 (threads 100 "a-main", 101 "a-worker"). */
static struct profile *rec_a(void)
{
	struct profile_meta m = meta_of("./app A", "host1", 1700000100.0, 2.0);
	struct profile *p = recording(&m);

	assert_int_equal(profile__add_thread(p, 100, 100, "a-main"), 0);
	assert_int_equal(profile__add_thread(p, 100, 101, "a-worker"), 0);
	ADD_STACK(p, 100, 1, MARK("Output", "out.c:1"));
	ADD_STACK(p, 100, 2, MARK("Sequences", "seq.c:3"), MARK("Output", "out.c:2"));
	ADD_STACK(p, 100, 3, MARK("Sequences", "seq.c:3"), ANTI("Sequences"));
	ADD_SAMPLES(p, 100, 100, 1, 10);
	ADD_SAMPLES(p, 100, 101, 2, 4);
	ADD_SAMPLES(p, 100, 100, 3, 2);
	ADD_SAMPLES(p, 100, 100, 0, 1);
	profile__set_diag(p, DIAG_LOST_SAMPLES, 5);
	profile__set_diag(p, DIAG_STALE_MARKS, 1);
	return p;
}

/* Recording "B": the same pid 100 and key 1 as A, other frames and threads. */
static struct profile *rec_b(void)
{
	struct profile_meta m = meta_of("./app B", "host1", 1700000000.0, 3.0);
	struct profile *p = recording(&m);

	assert_int_equal(profile__add_thread(p, 100, 100, "b-main"), 0);
	ADD_STACK(p, 100, 1, MARK("Output", "out.c:9"));
	ADD_STACK(p, 100, 7, MARK("Contracts", NULL));
	ADD_SAMPLES(p, 100, 100, 1, 6);
	ADD_SAMPLES(p, 100, 100, 7, 3);
	/* samples of a stack the session could not store */
	assert_int_equal(profile__add_samples(p, 100, 100, 99, 2), -ENOENT);
	profile__set_diag(p, DIAG_LOST_SAMPLES, 7);
	profile__set_diag(p, DIAG_UNKNOWN_STACKS, 2);
	return p;
}

/* Recording "C": another host, pid 200. */
static struct profile *rec_c(void)
{
	struct profile_meta m = meta_of("./app C", "host2", 1700000050.0, 1.5);
	struct profile *p = recording(&m);

	m.kernel = "6.2.0-other";
	assert_int_equal(profile__set_meta(p, &m), 0);
	ADD_STACK(p, 200, 5, MARK("Output", "out.c:1"), MARK("Contracts", "c.c:4"));
	ADD_SAMPLES(p, 200, 201, 5, 8);
	profile__set_diag(p, DIAG_LOST_SAMPLES, 1);
	return p;
}

static void merge_ok(struct profile *dst, const struct profile *src)
{
	char err[256] = "";

	if (profile__merge(dst, src, err, sizeof(err)))
		fail_msg("profile__merge: %s", err);
}

static void finish_ok(struct profile *dst, const char *cmd)
{
	char err[256] = "";

	if (profile__merge_finish(dst, cmd, err, sizeof(err)))
		fail_msg("profile__merge_finish: %s", err);
}

static const struct profile_meta *source_meta(const struct profile *p, size_t i)
{
	struct profile_source s;

	assert_int_equal(profile__source(p, i, &s), 0);
	return s.meta;
}

static const uint64_t *source_diag(const struct profile *p, size_t i)
{
	struct profile_source s;

	assert_int_equal(profile__source(p, i, &s), 0);
	return s.diag;
}

/* The thread (source, pid, tid) of p, failing when absent. */
static struct profile_thread thread_of(const struct profile *p, uint32_t src, uint32_t pid,
				       uint32_t tid)
{
	struct profile_thread t;
	size_t i;

	for (i = 0; i < profile__nr_threads(p); i++) {
		assert_int_equal(profile__thread(p, i, &t), 0);
		if (t.source == src && t.pid == pid && t.tid == tid)
			return t;
	}
	fail_msg("no thread %u/%u/%u", src, pid, tid);
	return t;
}

/* Feature samples in a, 0 when absent. */
static uint64_t feature_samples(const struct attrib *a, const char *name)
{
	const struct attrib_feature *f;
	size_t i;

	for (i = 0; i < attrib__nr_features(a); i++) {
		f = attrib__feature(a, i);
		if (!strcmp(f->name, name))
			return f->samples;
	}
	return 0;
}

/* Instance samples in a, 0 when absent. */
static uint64_t instance_samples(const struct attrib *a, const char *name, const char *inst)
{
	const struct attrib_feature *f;
	size_t i, j;

	for (i = 0; i < attrib__nr_features(a); i++) {
		f = attrib__feature(a, i);
		if (strcmp(f->name, name))
			continue;
		for (j = 0; j < f->nr_instances; j++)
			if (!strcmp(f->instances[j].name, inst))
				return f->instances[j].samples;
	}
	return 0;
}

static void test_invalid(void **state)
{
	struct profile *a = rec_a(), *dst = profile__new();
	char err[128];

	(void)state;
	assert_non_null(dst);
	err[0] = 0;
	assert_int_equal(profile__merge(NULL, a, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "merge: invalid arguments");
	assert_int_equal(profile__merge(dst, NULL, NULL, 0), -EINVAL);
	assert_int_equal(profile__merge(a, a, err, sizeof(err)), -EINVAL);
	err[0] = 0;
	assert_int_equal(profile__merge_finish(dst, NULL, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "merge: no profile was merged");
	assert_int_equal(profile__merge_finish(NULL, NULL, NULL, 0), -EINVAL);
	/* a short error buffer is truncated, not overrun */
	err[3] = 'x';
	assert_int_equal(profile__merge_finish(dst, NULL, err, 3), -EINVAL);
	assert_string_equal(err, "me");
	assert_int_equal(err[3], 'x');
	profile__free(a);
	profile__free(dst);
}

static void test_same_pid_kept_apart(void **state)
{
	struct profile *a = rec_a(), *b = rec_b(), *dst = profile__new();
	struct profile_process proc;
	struct profile_stack st;
	struct profile_sample s;
	struct profile_thread t;
	struct attrib *m;
	size_t i, unknown = 0;

	(void)state;
	assert_non_null(dst);
	merge_ok(dst, a);
	merge_ok(dst, b);

	assert_int_equal(profile__nr_sources(dst), 2);
	assert_string_equal(source_meta(dst, 0)->target, "./app A");
	assert_string_equal(source_meta(dst, 1)->target, "./app B");
	assert_string_equal(source_meta(dst, 1)->command_line, "fsp-bpf record");

	/* pid 100 twice: once per source */
	assert_int_equal(profile__nr_pids(dst), 2);
	assert_int_equal(profile__process(dst, 0, &proc), 0);
	assert_int_equal(proc.source, 0);
	assert_int_equal(proc.pid, 100);
	assert_int_equal(profile__process(dst, 1, &proc), 0);
	assert_int_equal(proc.source, 1);
	assert_int_equal(proc.pid, 100);

	assert_int_equal(profile__nr_threads(dst), 3);
	t = thread_of(dst, 0, 100, 100);
	assert_string_equal(t.comm, "a-main");
	assert_int_equal(t.samples, 13);
	t = thread_of(dst, 0, 100, 101);
	assert_string_equal(t.comm, "a-worker");
	assert_int_equal(t.samples, 4);
	t = thread_of(dst, 1, 100, 100);
	assert_string_equal(t.comm, "b-main");
	assert_int_equal(t.samples, 11);

	/* key 1 of pid 100 in both, with different frames */
	assert_int_equal(profile__nr_stacks(dst), 5);
	for (i = 0; i < profile__nr_stacks(dst); i++) {
		assert_int_equal(profile__stack(dst, i, &st), 0);
		if (st.key != 1)
			continue;
		assert_int_equal(st.depth, 1);
		assert_string_equal(st.frames[0].instance, st.source ? "out.c:9" : "out.c:1");
	}
	assert_int_equal(profile__total_samples(dst), 17 + 11);
	for (i = 0; i < profile__nr_samples(dst); i++) {
		assert_int_equal(profile__sample(dst, i, &s), 0);
		if (!s.known) {
			unknown++;
			assert_int_equal(s.source, 1);
			assert_int_equal(s.key, 99);
			assert_int_equal(s.count, 2);
		}
	}
	assert_int_equal(unknown, 1);

	m = attrib__compute(dst, NULL);
	assert_non_null(m);
	assert_int_equal(instance_samples(m, "Output", "out.c:1"), 10);
	assert_int_equal(instance_samples(m, "Output", "out.c:9"), 6);
	assert_int_equal(instance_samples(m, "Contracts", "(no instance)"), 3);
	attrib__free(m);

	/* attribution restricted to one process of one source */
	m = attrib__compute(dst, &(struct attrib_opts){.pid = 100, .source = 1});
	assert_non_null(m);
	assert_int_equal(attrib__total_samples(m), 11);
	assert_int_equal(feature_samples(m, "Output"), 6);
	assert_int_equal(feature_samples(m, "Sequences"), 0);
	attrib__free(m);

	profile__free(a);
	profile__free(b);
	profile__free(dst);
}

static void test_merge_of_merge(void **state)
{
	struct profile *a = rec_a(), *b = rec_b(), *c = rec_c();
	struct profile *ab = profile__new(), *dst = profile__new();
	struct profile_process proc;
	struct profile_stack st;
	struct profile_thread t;
	size_t i;

	(void)state;
	assert_non_null(ab);
	assert_non_null(dst);
	merge_ok(ab, a);
	merge_ok(ab, b);
	finish_ok(ab, "fsp-bpf merge -o ab.json a.json b.json");

	merge_ok(dst, c);
	merge_ok(dst, ab);
	assert_int_equal(profile__nr_sources(dst), 3);
	assert_string_equal(source_meta(dst, 0)->target, "./app C");
	assert_string_equal(source_meta(dst, 1)->target, "./app A");
	assert_string_equal(source_meta(dst, 2)->target, "./app B");
	/* the sources' own diagnostics travel with them, not ab's sums */
	assert_int_equal(source_diag(dst, 1)[DIAG_LOST_SAMPLES], 5);
	assert_int_equal(source_diag(dst, 2)[DIAG_LOST_SAMPLES], 7);
	assert_int_equal(source_diag(dst, 2)[DIAG_UNKNOWN_STACKS], 2);

	assert_int_equal(profile__nr_pids(dst), 3);
	assert_int_equal(profile__process(dst, 0, &proc), 0);
	assert_true(proc.source == 0 && proc.pid == 200);
	assert_int_equal(profile__process(dst, 1, &proc), 0);
	assert_true(proc.source == 1 && proc.pid == 100);
	assert_int_equal(profile__process(dst, 2, &proc), 0);
	assert_true(proc.source == 2 && proc.pid == 100);

	t = thread_of(dst, 2, 100, 100);
	assert_string_equal(t.comm, "b-main");
	t = thread_of(dst, 1, 100, 101);
	assert_string_equal(t.comm, "a-worker");
	t = thread_of(dst, 0, 200, 201);
	assert_string_equal(t.comm, "");

	for (i = 0; i < profile__nr_stacks(dst); i++) {
		assert_int_equal(profile__stack(dst, i, &st), 0);
		if (st.key == 1)
			assert_string_equal(st.frames[0].instance,
					    st.source == 1 ? "out.c:1" : "out.c:9");
		if (st.key == 5)
			assert_int_equal(st.source, 0);
	}
	assert_int_equal(profile__total_samples(dst), 17 + 11 + 8);

	finish_ok(dst, NULL);
	assert_string_equal(profile__meta(dst)->target,
			    "merge of 3 profiles: ./app C, ./app A, ./app B");
	assert_null(profile__meta(dst)->command_line);
	assert_int_equal(profile__diag(dst, DIAG_LOST_SAMPLES), 13);

	profile__free(a);
	profile__free(b);
	profile__free(c);
	profile__free(ab);
	profile__free(dst);
}

/* Namespace PIDs (processes in containers) travel with their processes,
 * through a merge of merges and into a dst that holds a recording. */
static uint32_t nspid_of(const struct profile *p, uint32_t src, uint32_t pid)
{
	struct profile_process proc;
	size_t i;

	for (i = 0; i < profile__nr_pids(p); i++) {
		assert_int_equal(profile__process(p, i, &proc), 0);
		if (proc.source == src && proc.pid == pid)
			return proc.nspid;
	}
	fail_msg("no process %u of source %u", pid, src);
	return 0;
}

static void test_nspid_carried(void **state)
{
	struct profile *a = rec_a(), *b = rec_b(), *c = rec_c();
	struct profile *ab = profile__new(), *dst = profile__new();

	(void)state;
	assert_non_null(ab);
	assert_non_null(dst);
	assert_int_equal(profile__set_process_nspid(b, 100, 7), 0);
	assert_int_equal(profile__set_process_nspid(c, 200, 1), 0);
	merge_ok(ab, a);
	merge_ok(ab, b);
	finish_ok(ab, NULL);
	assert_int_equal(nspid_of(ab, 0, 100), 0);
	assert_int_equal(nspid_of(ab, 1, 100), 7);
	merge_ok(dst, c);
	merge_ok(dst, ab);
	assert_int_equal(nspid_of(dst, 0, 200), 1);
	assert_int_equal(nspid_of(dst, 1, 100), 0);
	assert_int_equal(nspid_of(dst, 2, 100), 7);
	/* a recording merged into keeps its own */
	merge_ok(c, a);
	assert_int_equal(nspid_of(c, 0, 200), 1);
	assert_int_equal(nspid_of(c, 1, 100), 0);
	profile__free(a);
	profile__free(b);
	profile__free(c);
	profile__free(ab);
	profile__free(dst);
}

/* Off-CPU time and the event view's calls are merged too, per source. */
static void test_offcpu_and_events_carried(void **state)
{
	struct profile *a = rec_a(), *b = rec_a(), *dst = profile__new();
	struct profile_event_stats st = {.enters = 3, .leaves = 2, .total_ns = 500, .max_ns = 300};
	struct profile_event ev;
	size_t n = 0;

	(void)state;
	assert_non_null(dst);
	st.hist[8] = 2;
	assert_int_equal(profile__add_offcpu(a, 100, 100, 1, 777), 0);
	/* off-CPU time alone, with no samples of that (thread, stack) */
	assert_int_equal(profile__add_offcpu(a, 100, 101, 1, 23), 0);
	assert_int_equal(profile__add_events(a, 100, "Output", "out.c:1", &st), 0);
	assert_int_equal(profile__add_events(b, 100, "Output", "out.c:1", &st), 0);
	merge_ok(dst, a);
	merge_ok(dst, b);
	finish_ok(dst, NULL);
	assert_int_equal(profile__total_offcpu_ns(dst), 800);
	assert_int_equal(profile__total_samples(dst), 2 * profile__total_samples(a));
	for (size_t i = 0; i < profile__nr_events(dst); i++) {
		assert_int_equal(profile__event(dst, i, &ev), 0);
		assert_string_equal(ev.feature, "Output");
		assert_int_equal(ev.stats->enters, 3);
		assert_int_equal(ev.stats->total_ns, 500);
		assert_int_equal(ev.stats->hist[8], 2);
		assert_int_equal(ev.source, n);
		n++;
	}
	assert_int_equal(n, 2); /* one per source: the runs stay apart */
	profile__free(a);
	profile__free(b);
	profile__free(dst);
}

/* A dst that holds a recording becomes source 0 of the merge. */
static void test_into_recording(void **state)
{
	struct profile *a = rec_a(), *b = rec_b();
	struct profile_process proc;

	(void)state;
	merge_ok(a, b);
	assert_int_equal(profile__nr_sources(a), 2);
	assert_string_equal(source_meta(a, 0)->target, "./app A");
	assert_int_equal(source_diag(a, 0)[DIAG_LOST_SAMPLES], 5);
	assert_string_equal(source_meta(a, 1)->target, "./app B");
	assert_int_equal(profile__process(a, 0, &proc), 0);
	assert_true(proc.source == 0 && proc.pid == 100);
	assert_int_equal(profile__process(a, 1, &proc), 0);
	assert_true(proc.source == 1 && proc.pid == 100);
	assert_int_equal(profile__total_samples(a), 28);
	finish_ok(a, NULL);
	assert_string_equal(profile__meta(a)->target, "merge of 2 profiles: ./app A, ./app B");
	assert_int_equal(profile__diag(a, DIAG_LOST_SAMPLES), 12);
	profile__free(a);
	profile__free(b);
}

static void test_finish_meta_and_diag_sums(void **state)
{
	struct profile *a = rec_a(), *b = rec_b(), *c = rec_c(), *dst = profile__new();
	const struct profile_meta *m;
	enum profile_diag d;

	(void)state;
	assert_non_null(dst);
	profile__set_diag(c, DIAG_STALE_MARKS, UINT64_MAX - 1);
	profile__set_diag(c, DIAG_ATTACH_ERRORS, 4);
	merge_ok(dst, a);
	merge_ok(dst, b);
	finish_ok(dst, "fsp-bpf merge -o ab.json a.json b.json");

	m = profile__meta(dst);
	assert_string_equal(m->target, "merge of 2 profiles: ./app A, ./app B");
	assert_string_equal(m->command_line, "fsp-bpf merge -o ab.json a.json b.json");
	assert_string_equal(m->host, "host1");
	assert_string_equal(m->kernel, "6.1.0-test");
	assert_string_equal(m->tool_version, FSP_VERSION);
	assert_int_equal(m->frequency_hz, 1000);
	assert_int_equal(m->period_ns, MS);
	assert_true(m->start_time == 1700000000.0); /* B's, the earlier */
	assert_true(m->end_time == 1700000102.0); /* A's, the later */
	assert_true(m->duration_s == 5.0);
	assert_int_equal(profile__diag(dst, DIAG_LOST_SAMPLES), 12);
	assert_int_equal(profile__diag(dst, DIAG_STALE_MARKS), 1);
	assert_int_equal(profile__diag(dst, DIAG_UNKNOWN_STACKS), 2);
	assert_int_equal(profile__diag(dst, DIAG_ATTACH_ERRORS), 0);

	/* a third source on another host and kernel, a counter near the limit */
	merge_ok(dst, c);
	finish_ok(dst, NULL);
	m = profile__meta(dst);
	assert_string_equal(m->target, "merge of 3 profiles: ./app A, ./app B, ./app C");
	assert_null(m->host);
	assert_null(m->kernel);
	assert_true(m->duration_s == 6.5);
	assert_int_equal(profile__diag(dst, DIAG_LOST_SAMPLES), 13);
	assert_int_equal(profile__diag(dst, DIAG_STALE_MARKS), UINT64_MAX); /* saturated */
	assert_int_equal(profile__diag(dst, DIAG_ATTACH_ERRORS), 4);
	/* every counter is the saturated sum of the sources' */
	for (d = 0; d < DIAG__COUNT; d++) {
		uint64_t sum = 0, v;
		size_t i;

		for (i = 0; i < 3; i++) {
			v = source_diag(dst, i)[d];
			sum = sum > UINT64_MAX - v ? UINT64_MAX : sum + v;
		}
		assert_int_equal(profile__diag(dst, d), sum);
	}

	profile__free(a);
	profile__free(b);
	profile__free(c);
	profile__free(dst);
}

/* Unknown start times are ignored; differing frequencies of one period give 0. */
static void test_finish_unknown_start(void **state)
{
	struct profile_meta m1 = meta_of("one", NULL, 0, 1.0);
	struct profile_meta m2 = meta_of("two", NULL, 1700000000.5, 1.0);
	struct profile *p1, *p2, *dst = profile__new();

	(void)state;
	m2.frequency_hz = 0; /* period_ns alone */
	p1 = recording(&m1);
	p2 = recording(&m2);
	merge_ok(dst, p1);
	merge_ok(dst, p2);
	finish_ok(dst, NULL);
	assert_true(profile__meta(dst)->start_time == 1700000000.5);
	assert_true(profile__meta(dst)->end_time == 1700000001.5);
	assert_int_equal(profile__meta(dst)->frequency_hz, 0);
	assert_int_equal(profile__meta(dst)->period_ns, MS);
	assert_null(profile__meta(dst)->host);
	profile__free(p1);
	profile__free(p2);
	profile__free(dst);
}

static void test_period_mismatch(void **state)
{
	struct profile_meta m = meta_of("./app fast", "host1", 1700000000.0, 1.0);
	struct profile *a = rec_a(), *fast, *derived, *dst = profile__new(), *mixed;
	char err[256] = "";

	(void)state;
	m.frequency_hz = 999;
	m.period_ns = 0; /* derived: round(1e9 / 999) = 1001001 */
	fast = recording(&m);
	ADD_SAMPLES(fast, 1, 1, 0, 3);

	merge_ok(dst, a);
	assert_int_equal(profile__merge(dst, fast, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "./app fast was sampled every 1001001 ns but the others every "
				 "1000000 ns: merge profiles of the same frequency");
	/* dst unchanged */
	assert_int_equal(profile__nr_sources(dst), 1);
	assert_int_equal(profile__total_samples(dst), 17);
	assert_int_equal(profile__nr_pids(dst), 1);

	/* 1000 Hz without period_ns derives 1 ms: accepted */
	m.target = "./app derived";
	m.frequency_hz = 1000;
	derived = recording(&m);
	merge_ok(dst, derived);
	assert_int_equal(profile__nr_sources(dst), 2);

	/* a profile without any period against one with */
	m.target = NULL;
	m.frequency_hz = 0;
	assert_int_equal(profile__set_meta(derived, &m), 0);
	assert_int_equal(profile__merge(dst, derived, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "an unnamed target was sampled at an unknown period but the "
				 "others every 1000000 ns: merge profiles of the same frequency");

	/* a merge whose second source disagrees with dst: nothing is appended */
	mixed = profile__new();
	assert_non_null(mixed);
	assert_int_equal(profile__add_source(mixed, profile__meta(a), NULL), 0);
	assert_int_equal(profile__add_source(mixed, profile__meta(fast), NULL), 1);
	assert_int_equal(profile__merge(dst, mixed, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "./app fast was sampled every 1001001 ns"));
	assert_int_equal(profile__nr_sources(dst), 2);

	/* into an empty dst, the first source sets the period */
	profile__free(dst);
	dst = profile__new();
	assert_non_null(dst);
	assert_int_equal(profile__merge(dst, mixed, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "./app fast was sampled every 1001001 ns but the others every "
				 "1000000 ns: merge profiles of the same frequency");
	assert_int_equal(profile__nr_sources(dst), 0);

	/* sources added by hand with different periods: finish refuses */
	assert_int_equal(profile__add_source(dst, profile__meta(a), NULL), 0);
	assert_int_equal(profile__add_source(dst, profile__meta(fast), NULL), 1);
	assert_int_equal(profile__merge_finish(dst, NULL, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "merge profiles of the same frequency"));

	profile__free(a);
	profile__free(fast);
	profile__free(derived);
	profile__free(mixed);
	profile__free(dst);
}

static void test_overflow(void **state)
{
	struct profile_meta m = meta_of("./app big", "host1", 1700000000.0, 1.0);
	struct profile *big = recording(&m), *small, *dst = profile__new();
	char err[256] = "";
	size_t nr_samples;

	(void)state;
	m.target = "./app small";
	small = recording(&m);
	ADD_STACK(big, 1, 1, MARK("Output", "o"));
	ADD_SAMPLES(big, 1, 1, 1, UINT64_MAX - 5);
	ADD_SAMPLES(small, 1, 1, 0, 6);

	merge_ok(dst, big);
	nr_samples = profile__nr_samples(dst);
	assert_int_equal(profile__merge(dst, small, err, sizeof(err)), -EOVERFLOW);
	assert_string_equal(err, "merging ./app small would overflow the sample count: "
				 "18446744073709551610 + 6 samples exceed 18446744073709551615");
	assert_int_equal(profile__nr_sources(dst), 1);
	assert_int_equal(profile__nr_samples(dst), nr_samples);
	assert_int_equal(profile__total_samples(dst), UINT64_MAX - 5);

	/* exactly up to the limit is fine */
	profile__free(small);
	small = recording(&m);
	ADD_SAMPLES(small, 1, 1, 0, 5);
	merge_ok(dst, small);
	assert_int_equal(profile__total_samples(dst), UINT64_MAX);
	assert_int_equal(profile__merge(dst, small, err, sizeof(err)), -EOVERFLOW);

	profile__free(big);
	profile__free(small);
	profile__free(dst);
}

/* A small pseudo-random recording over a few features, instances and pids. */
static struct profile *random_recording(unsigned int *seed, int n)
{
	static const char *const features[] = {"Output", "Sequences", "Contracts", "GC"};
	static const char *const instances[] = {"a.c:1", "a.c:2", "b.c:7", NULL};
	struct profile_meta m = meta_of("random", "host1", 1700000000.0 + n, 1.0);
	struct profile *p = recording(&m);
	struct profile_frame fr[6];
	uint64_t key;
	size_t depth, i;

	for (key = 1; key <= 12; key++) {
		depth = (size_t)(rand_r(seed) % 6);
		for (i = 0; i < depth; i++) {
			fr[i].kind = rand_r(seed) % 4 ? PROFILE_MARK : PROFILE_ANTIMARK;
			fr[i].feature = features[rand_r(seed) % 4];
			fr[i].instance =
				fr[i].kind == PROFILE_MARK ? instances[rand_r(seed) % 4] : NULL;
			fr[i].payload = 0;
		}
		assert_int_equal(profile__add_stack(p, 10 + key % 2, key, fr, depth), 0);
	}
	for (i = 0; i < 40; i++) {
		key = (uint64_t)(rand_r(seed) % 13);
		assert_int_equal(profile__add_samples(p, 10 + key % 2, 100 + rand_r(seed) % 3, key,
						      1 + rand_r(seed) % 50),
				 0);
	}
	return p;
}

static void test_attribution_is_sum(void **state)
{
	struct profile *in[4], *dst = profile__new();
	struct attrib *a[4], *m;
	const struct attrib_feature *f;
	unsigned int seed = (unsigned int)test_seed("test_attribution_is_sum");
	uint64_t sum, total = 0, uncharged = 0;
	size_t i, j, k;

	(void)state;
	assert_non_null(dst);
	for (k = 0; k < 4; k++) {
		in[k] = random_recording(&seed, (int)k);
		a[k] = attrib__compute(in[k], NULL);
		assert_non_null(a[k]);
		total += attrib__total_samples(a[k]);
		uncharged += attrib__uncharged_samples(a[k]);
		merge_ok(dst, in[k]);
	}
	finish_ok(dst, NULL);
	m = attrib__compute(dst, NULL);
	assert_non_null(m);
	assert_int_equal(attrib__total_samples(m), total);
	assert_int_equal(attrib__uncharged_samples(m), uncharged);
	assert_true(attrib__nr_features(m) > 0);
	for (i = 0; i < attrib__nr_features(m); i++) {
		f = attrib__feature(m, i);
		sum = 0;
		for (k = 0; k < 4; k++)
			sum += feature_samples(a[k], f->name);
		assert_int_equal(f->samples, sum);
		for (j = 0; j < f->nr_instances; j++) {
			sum = 0;
			for (k = 0; k < 4; k++)
				sum += instance_samples(a[k], f->name, f->instances[j].name);
			assert_int_equal(f->instances[j].samples, sum);
		}
	}
	/* and no feature of an input is missing from the merge */
	for (k = 0; k < 4; k++)
		for (i = 0; i < attrib__nr_features(a[k]); i++)
			assert_true(feature_samples(m, attrib__feature(a[k], i)->name) > 0);
	attrib__free(m);
	for (k = 0; k < 4; k++) {
		attrib__free(a[k]);
		profile__free(in[k]);
	}
	profile__free(dst);
}

static void test_target_bounded(void **state)
{
	struct profile *dst = profile__new(), *p;
	struct profile_meta m;
	char name[200], *huge;
	const char *t;
	size_t i;

	(void)state;
	assert_non_null(dst);
	for (i = 0; i < 40; i++) {
		snprintf(name, sizeof(name),
			 "./a-rather-long-program-name-%02zu --with --arguments", i);
		m = meta_of(name, "host1", 1700000000.0, 1.0);
		p = recording(&m);
		merge_ok(dst, p);
		profile__free(p);
	}
	finish_ok(dst, NULL);
	t = profile__meta(dst)->target;
	assert_true(strlen(t) < MERGE_TARGET_MAX);
	assert_true(strlen(t) > MERGE_TARGET_MAX - 60);
	assert_int_equal(
		strncmp(t, "merge of 40 profiles: ./a-rather-long-program-name-00 --with", 60), 0);
	assert_string_equal(t + strlen(t) - 5, ", ...");
	profile__free(dst);

	/* a single target longer than the bound */
	dst = profile__new();
	assert_non_null(dst);
	huge = malloc(MERGE_TARGET_MAX * 2);
	assert_non_null(huge);
	memset(huge, 'x', MERGE_TARGET_MAX * 2 - 1);
	huge[MERGE_TARGET_MAX * 2 - 1] = 0;
	m = meta_of(huge, NULL, 0, 0);
	p = recording(&m);
	merge_ok(dst, p);
	finish_ok(dst, NULL);
	assert_string_equal(profile__meta(dst)->target, "merge of 1 profile: ...");
	free(huge);
	profile__free(p);
	profile__free(dst);
}

/* Merging an empty recording keeps its metadata as a source. */
static void test_empty_recording(void **state)
{
	struct profile_meta m = meta_of("./idle", "host1", 1700000000.0, 1.0);
	struct profile *idle = recording(&m), *dst = profile__new();

	(void)state;
	assert_non_null(dst);
	merge_ok(dst, idle);
	merge_ok(dst, idle);
	assert_int_equal(profile__nr_sources(dst), 2);
	assert_int_equal(profile__total_samples(dst), 0);
	finish_ok(dst, NULL);
	assert_string_equal(profile__meta(dst)->target, "merge of 2 profiles: ./idle, ./idle");
	profile__free(idle);
	profile__free(dst);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_invalid),
		cmocka_unit_test(test_same_pid_kept_apart),
		cmocka_unit_test(test_merge_of_merge),
		cmocka_unit_test(test_nspid_carried),
		cmocka_unit_test(test_offcpu_and_events_carried),
		cmocka_unit_test(test_into_recording),
		cmocka_unit_test(test_finish_meta_and_diag_sums),
		cmocka_unit_test(test_finish_unknown_start),
		cmocka_unit_test(test_period_mismatch),
		cmocka_unit_test(test_overflow),
		cmocka_unit_test(test_attribution_is_sum),
		cmocka_unit_test(test_target_bounded),
		cmocka_unit_test(test_empty_recording),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
