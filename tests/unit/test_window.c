// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Unit tests of a recording's windows, the differences of two snapshots
 * (analysis/model/window.c). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>

#include "attrib.h"
#include "native.h"
#include "unit_helpers.h"
#include "window.h"

#define MS 1000000ULL

static struct profile *snap(double at)
{
	struct profile_meta meta = {.target = "t",
				    .host = "h",
				    .period_ns = MS,
				    .frequency_hz = 1000,
				    .start_time = 100,
				    .end_time = at,
				    .duration_s = at - 100};
	struct profile *p = profile__new();

	assert_non_null(p);
	assert_int_equal(profile__set_meta(p, &meta), 0);
	return p;
}

/* The session's state at one time: pid 10 (threads 10, 11), pid 20 (quiet
 * after the start), n samples of stack 1 on thread 10. */
static struct profile *state(double at, uint64_t n, uint64_t m, uint64_t off)
{
	struct profile *p = snap(at);

	assert_int_equal(profile__add_thread(p, 10, 10, "main"), 0);
	assert_int_equal(profile__add_thread(p, 10, 11, "worker"), 0);
	assert_int_equal(profile__add_thread(p, 20, 20, "idle"), 0);
	assert_int_equal(profile__set_process_nspid(p, 10, 3), 0);
	ADD_STACK(p, 10, 1, MARK("parse", "tok"));
	ADD_STACK(p, 10, 2, MARK("out", "x.c:1"));
	ADD_STACK(p, 20, 1, MARK("parse", "tok"));
	ADD_SAMPLES(p, 10, 10, 1, n);
	ADD_SAMPLES(p, 10, 11, 2, m);
	ADD_SAMPLES(p, 20, 20, 1, 6);
	ADD_SAMPLES(p, 10, 10, 0, 4);
	if (off)
		assert_int_equal(profile__add_offcpu(p, 10, 11, 2, off), 0);
	profile__set_diag(p, DIAG_LOST_SAMPLES, n / 10);
	return p;
}

static uint64_t feature_samples(const struct profile *p, const char *name)
{
	struct attrib *a = attrib__compute(p, NULL);
	uint64_t n = 0;

	assert_non_null(a);
	for (size_t i = 0; i < attrib__nr_features(a); i++)
		if (!strcmp(attrib__feature(a, i)->name, name))
			n = attrib__feature(a, i)->samples;
	attrib__free(a);
	return n;
}

static void test_difference(void **state_)
{
	struct profile *a = state(110, 30, 5, 0), *b = state(115, 50, 5, 7000), *w;
	struct profile_process proc;
	int err;

	(void)state_;
	w = profile__window(a, b, &err);
	assert_non_null(w);
	assert_int_equal(err, 0);
	assert_int_equal(profile__total_samples(w), 20);
	assert_int_equal(feature_samples(w, "parse"), 20);
	assert_int_equal(feature_samples(w, "out"), 0);
	assert_int_equal(profile__total_offcpu_ns(w), 7000);
	/* only what the window used: pid 20 and the empty stack's thread are out */
	assert_int_equal(profile__nr_pids(w), 1);
	assert_int_equal(profile__process(w, 0, &proc), 0);
	assert_int_equal(proc.pid, 10);
	assert_int_equal(proc.nspid, 3);
	assert_int_equal(profile__nr_threads(w), 2); /* 10 (samples), 11 (off-CPU) */
	assert_int_equal(profile__nr_stacks(w), 2);
	assert_int_equal(profile__diag(w, DIAG_LOST_SAMPLES), 2);
	assert_true(profile__meta(w)->start_time == 110);
	assert_true(profile__meta(w)->end_time == 115);
	assert_true(profile__meta(w)->duration_s == 5);
	assert_string_equal(profile__meta(w)->host, "h");
	profile__free(w);
	profile__free(a);
	profile__free(b);
}

/* Records that went down (a retired process folded away) are left out;
 * an empty window is a valid, empty profile. */
static void test_decrease_and_empty(void **state_)
{
	struct profile *a = state(110, 30, 5, 0), *b = state(115, 20, 5, 0), *w;
	int err;

	(void)state_;
	w = profile__window(a, b, &err);
	assert_non_null(w);
	assert_int_equal(profile__total_samples(w), 0);
	assert_int_equal(profile__nr_pids(w), 0);
	profile__free(w);
	w = profile__window(a, a, &err);
	assert_non_null(w);
	assert_int_equal(profile__total_samples(w), 0);
	profile__free(w);
	profile__free(a);
	profile__free(b);
}

static void test_events(void **state_)
{
	struct profile_event_stats s1 = {.enters = 3, .leaves = 2, .total_ns = 200, .max_ns = 150};
	struct profile_event_stats s2 = {.enters = 8, .leaves = 7, .total_ns = 900, .max_ns = 300};
	struct profile *a = snap(110), *b = snap(120), *w;
	struct profile_event ev;
	int err;

	(void)state_;
	s1.hist[7] = 2;
	s2.hist[7] = 3;
	s2.hist[8] = 4;
	assert_int_equal(profile__add_events(a, 10, "q", NULL, &s1), 0);
	assert_int_equal(profile__add_events(a, 10, "r", "x", &s1), 0);
	assert_int_equal(profile__add_events(b, 10, "q", NULL, &s2), 0);
	assert_int_equal(profile__add_events(b, 10, "r", "x", &s1), 0); /* unchanged */
	w = profile__window(a, b, &err);
	assert_non_null(w);
	assert_int_equal(profile__nr_events(w), 1);
	assert_int_equal(profile__event(w, 0, &ev), 0);
	assert_string_equal(ev.feature, "q");
	assert_null(ev.instance);
	assert_int_equal(ev.stats->enters, 5);
	assert_int_equal(ev.stats->leaves, 5);
	assert_int_equal(ev.stats->total_ns, 700);
	assert_int_equal(ev.stats->hist[7], 1);
	assert_int_equal(ev.stats->hist[8], 4);
	assert_int_equal(ev.stats->max_ns, 300);
	profile__free(w);
	profile__free(a);
	profile__free(b);
}

/* Native stacks: the window's native samples are the differences, found
 * by content (the snapshots number their tables independently). */
static void native(struct profile *p, uint64_t n1, uint64_t n2, bool reorder)
{
	struct profile_module mod = {.kind = PROFILE_MODULE_USER, .path = "/bin/app"};
	struct profile_location l1 = {.address = 0x100}, l2 = {.address = 0x200};
	uint32_t s1[1], s2[2];
	struct profile_native_stack ns = {.method = PROFILE_UNWIND_DWARF};
	int64_t st1, st2;
	int m = profile__add_module(p, &mod);

	assert_true(m >= 0);
	l1.module = l2.module = (uint32_t)m;
	if (reorder) {
		s2[1] = (uint32_t)profile__add_location(p, &l2);
		s1[0] = s2[0] = (uint32_t)profile__add_location(p, &l1);
	} else {
		s1[0] = s2[0] = (uint32_t)profile__add_location(p, &l1);
		s2[1] = (uint32_t)profile__add_location(p, &l2);
	}
	ns.locs = s2;
	ns.depth = 2;
	st2 = profile__add_native_stack(p, &ns);
	ns.locs = s1;
	ns.depth = 1;
	st1 = profile__add_native_stack(p, &ns);
	assert_true(st1 >= 0 && st2 >= 0);
	assert_int_equal(profile__add_native_samples(p, 10, 10, 1, (size_t)st1, n1), 0);
	assert_int_equal(profile__add_native_samples(p, 10, 10, 1, (size_t)st2, n2), 0);
}

static void test_native(void **state_)
{
	struct profile *a = state(110, 30, 5, 0), *b = state(115, 50, 5, 0), *w;
	struct profile_native_sample s;
	struct profile_native_stack st;
	int err;

	(void)state_;
	native(a, 10, 20, false);
	native(b, 10, 40, true);
	w = profile__window(a, b, &err);
	assert_non_null(w);
	assert_int_equal(profile__nr_native_samples(w), 1);
	assert_int_equal(profile__native_sample(w, 0, &s), 0);
	assert_int_equal(s.count, 20);
	assert_int_equal(profile__native_stack(w, s.stack, &st), 0);
	assert_int_equal(st.depth, 2);
	assert_int_equal(profile__nr_modules(w), 1);
	assert_int_equal(profile__nr_locations(w), 2);
	profile__free(w);
	profile__free(a);
	profile__free(b);
}

static void test_invalid(void **state_)
{
	struct profile *a = snap(110), *m = profile__new();
	struct profile_meta meta = {.target = "x"};
	int err;

	(void)state_;
	assert_null(profile__window(NULL, a, &err));
	assert_int_equal(err, -EINVAL);
	assert_true(profile__add_source(m, &meta, NULL) >= 0);
	assert_null(profile__window(a, m, &err));
	assert_int_equal(err, -EINVAL);
	profile__free(a);
	profile__free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_difference), cmocka_unit_test(test_decrease_and_empty),
		cmocka_unit_test(test_events),	   cmocka_unit_test(test_native),
		cmocka_unit_test(test_invalid),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
