/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The profiles the renderer tests share (test_report.c, test_render_*.c,
 * test_charges.c; fixture_profiles.c saves them for
 * scripts/render-equivalence.sh): the demo profile and the same with the
 * event view and off-CPU time, the profiles of orders, of a merge, of
 * containers and of every kind of frame.
 */
#ifndef FSP_RENDER_FIXTURE_H
#define FSP_RENDER_FIXTURE_H

#include <stdbool.h>
#include <stdint.h>

#include "charges.h"
#include "profile.h"
#include "unit_helpers.h"

static const struct profile_meta demo_meta = {
	.target = "pid 1234 (demo)",
	.command_line = "fsp-bpf -p 1234 -o demo.json",
	.host = "testhost",
	.kernel = "6.1.0-test",
	.tool_version = "0.1.0",
	.frequency_hz = 1000,
	.period_ns = 1000000,
	.start_time = 1700000000.25,
	.end_time = 1700000003.25,
	.duration_s = 3.0,
};

/*
 * 100 samples of 1 ms: Output 80 (fizzbuzz.c:8 70, fizzbuzz.c:7 10), Generic
 * sequences 20 (nested with Output), 20 uncharged (antimark, empty). Thread
 * 1234 (demo): 50 Output fizzbuzz.c:8, 20 Generic sequences fizzbuzz.c:3 with
 * Output fizzbuzz.c:8 inside (its payload UINT64_MAX), 15 empty. Thread 1235
 * (worker): 10 Output fizzbuzz.c:7, 5 under Generic sequences' antimark
 * (uncharged).
 */
static __attribute__((unused)) struct profile *demo_profile(void)
{
	struct profile *p = profile__new();

	assert_non_null(p);
	assert_int_equal(profile__set_meta(p, &demo_meta), 0);
	assert_int_equal(profile__add_pid(p, 1234), 0);
	assert_int_equal(profile__add_thread(p, 1234, 1234, "demo"), 0);
	assert_int_equal(profile__add_thread(p, 1234, 1235, "worker"), 0);
	ADD_STACK(p, 1234, 0x1, MARK("Output", "fizzbuzz.c:8"));
	ADD_STACK(p, 1234, 0x2, MARK("Output", "fizzbuzz.c:7"));
	ADD_STACK(p, 1234, 0x3, MARK("Generic sequences", "fizzbuzz.c:3"),
		  MARKP("Output", "fizzbuzz.c:8", UINT64_MAX));
	ADD_STACK(p, 1234, 0x4, MARK("Generic sequences", "fizzbuzz.c:3"),
		  ANTI("Generic sequences"));
	ADD_SAMPLES(p, 1234, 1234, 0x1, 50);
	ADD_SAMPLES(p, 1234, 1235, 0x2, 10);
	ADD_SAMPLES(p, 1234, 1234, 0x3, 20);
	ADD_SAMPLES(p, 1234, 1235, 0x4, 5);
	ADD_SAMPLES(p, 1234, 1234, 0, 15);
	return p;
}

static __attribute__((unused)) int setup(void **state)
{
	*state = demo_profile();
	return 0;
}

static __attribute__((unused)) int teardown(void **state)
{
	profile__free(*state);
	return 0;
}

/* Event statistics: enters, leaves, total and max ns, and two histogram
 * buckets: leaves - 1 calls in the bucket of `typical`, one of max_ns. */
static __attribute__((unused)) void add_events(struct profile *p, uint32_t pid, const char *feature,
					       const char *instance, uint64_t enters,
					       uint64_t leaves, uint64_t total_ns, uint64_t max_ns,
					       uint64_t typical)
{
	struct profile_event_stats st = {
		.enters = enters,
		.leaves = leaves,
		.total_ns = total_ns,
		.max_ns = max_ns,
	};

	if (leaves) {
		st.hist[profile_hist_bucket(typical)] += leaves - 1;
		st.hist[profile_hist_bucket(max_ns)] += 1;
	}
	assert_int_equal(profile__add_events(p, pid, feature, instance, &st), 0);
}

#define ADD_OFFCPU(p, pid, tid, key, ns)                                                           \
	assert_int_equal(profile__add_offcpu((p), (pid), (tid), (key), (ns)), 0)

/*
 * The demo profile with, when `events`, the event view of process 1234:
 * Output fizzbuzz.c:8 1000 calls of 110 us (max 1.204 ms), fizzbuzz.c:7 200
 * calls (199 returned) of 50.25 us (max 90 us), and two features sampling
 * never saw: Short (short.c:1 5000 calls of 50 ns, short.c:2 3 calls none
 * returned) and Tiny (2 calls of 1 us, no instance). When `offcpu`: thread
 * 1234 40 ms off CPU in Output fizzbuzz.c:8 and 2.5 ms outside features,
 * thread 1235 30 ms under Generic sequences' antimark (uncharged).
 */
static __attribute__((unused)) struct profile *rich_profile(bool events, bool offcpu)
{
	struct profile *p = demo_profile();

	if (events) {
		add_events(p, 1234, "Output", "fizzbuzz.c:8", 1000, 1000, 110000000, 1204000,
			   110000);
		add_events(p, 1234, "Output", "fizzbuzz.c:7", 200, 199, 10000000, 90000, 50000);
		add_events(p, 1234, "Short", "short.c:1", 5000, 5000, 250000, 120, 50);
		add_events(p, 1234, "Short", "short.c:2", 3, 0, 0, 0, 0);
		add_events(p, 1234, "Tiny", NULL, 2, 2, 2000, 1200, 800);
	}
	if (offcpu) {
		ADD_OFFCPU(p, 1234, 1234, 0x1, 40000000);
		ADD_OFFCPU(p, 1234, 1235, 0x4, 30000000);
		ADD_OFFCPU(p, 1234, 1234, 0, 2500000);
	}
	return p;
}

/*
 * Two processes, for orders: process 10 "zeta" (thread 10 zeta 60 samples,
 * thread 11 "alpha" 30), process 20 "alpha" (thread 20 alpha 30). Features:
 * B 30 (b1), A 30 (a2 20, a1 10), C 60 (c1).
 */
static __attribute__((unused)) struct profile *order_profile(void)
{
	struct profile *p = profile__new();

	assert_non_null(p);
	assert_int_equal(profile__set_meta(p, &demo_meta), 0);
	assert_int_equal(profile__add_thread(p, 10, 10, "zeta"), 0);
	assert_int_equal(profile__add_thread(p, 10, 11, "alpha"), 0);
	assert_int_equal(profile__add_thread(p, 20, 20, "alpha"), 0);
	ADD_STACK(p, 10, 1, MARK("C", "c1"));
	ADD_STACK(p, 10, 2, MARK("B", "b1"));
	ADD_STACK(p, 20, 1, MARK("A", "a2"));
	ADD_STACK(p, 20, 2, MARK("A", "a1"));
	ADD_SAMPLES(p, 10, 10, 1, 60);
	ADD_SAMPLES(p, 10, 11, 2, 30);
	ADD_SAMPLES(p, 20, 20, 1, 20);
	ADD_SAMPLES(p, 20, 20, 2, 10);
	return p;
}

/* A merged profile: sources with hosts "alpha", "beta" and "beta", and one
 * without, each with a process 100 "app". */
static __attribute__((unused)) struct profile *merged_profile(void)
{
	static const char *hosts[] = {"alpha", "beta", "beta", NULL};
	struct profile *p = profile__new();
	struct profile_meta m = demo_meta;
	uint32_t i;

	assert_non_null(p);
	assert_int_equal(profile__set_meta(p, &demo_meta), 0);
	for (i = 0; i < 4; i++) {
		m.host = hosts[i];
		assert_int_equal(profile__add_source(p, &m, NULL), (int)i);
	}
	for (i = 0; i < 4; i++) {
		assert_int_equal(profile__use_source(p, i), 0);
		assert_int_equal(profile__add_thread(p, 100, 100, "app"), 0);
		ADD_STACK(p, 100, 1, MARK("F", "f"));
		ADD_SAMPLES(p, 100, 100, 1, 10 * (i + 1));
	}
	assert_int_equal(profile__use_source(p, 0), 0);
	return p;
}

/*
 * Three processes, 160 samples of 1 ms: 1234 "demo" (the host's; thread
 * 1234 60 Output fizzbuzz.c:8, thread 1235 "worker" 40 outside features),
 * 5000 "nginx", pid 1 in its container (thread 5000 30 Output srv.c:1 with
 * 100 calls of 50 us, thread 5001 10 Parse req.c:4), 6000 "redis-server",
 * pid 1 in another container (20 Parse cmd.c:2).
 */
static __attribute__((unused)) struct profile *container_profile(void)
{
	struct profile *p = profile__new();

	assert_non_null(p);
	assert_int_equal(profile__set_meta(p, &demo_meta), 0);
	assert_int_equal(profile__add_thread(p, 1234, 1234, "demo"), 0);
	assert_int_equal(profile__add_thread(p, 1234, 1235, "worker"), 0);
	ADD_STACK(p, 1234, 1, MARK("Output", "fizzbuzz.c:8"));
	ADD_SAMPLES(p, 1234, 1234, 1, 60);
	ADD_SAMPLES(p, 1234, 1235, 0, 40);
	assert_int_equal(profile__set_process_nspid(p, 5000, 1), 0);
	assert_int_equal(profile__add_thread(p, 5000, 5000, "nginx"), 0);
	assert_int_equal(profile__add_thread(p, 5000, 5001, "nginx"), 0);
	ADD_STACK(p, 5000, 1, MARK("Output", "srv.c:1"));
	ADD_STACK(p, 5000, 2, MARK("Parse", "req.c:4"));
	ADD_SAMPLES(p, 5000, 5000, 1, 30);
	ADD_SAMPLES(p, 5000, 5001, 2, 10);
	add_events(p, 5000, "Output", "srv.c:1", 100, 100, 5000000, 90000, 50000);
	assert_int_equal(profile__set_process_nspid(p, 6000, 1), 0);
	assert_int_equal(profile__add_thread(p, 6000, 6000, "redis-server"), 0);
	ADD_STACK(p, 6000, 1, MARK("Parse", "cmd.c:2"));
	ADD_SAMPLES(p, 6000, 6000, 1, 20);
	return p;
}

#define KINDS_PID 100

/*
 * Every kind of frame, for the attribution rule (test_charges.c): samples
 * of thread KINDS_PID (K3 and K8 of thread KINDS_PID + 1):
 *   K1 [F a]                 10  mark
 *   K2 [F a, anti F]          7  antimark: F nothing
 *   K3 [G g1, other F b]      5  a mark of another thread (and G)
 *   K4 [F a, F b]             4  nested, one feature: b
 *   K5 [F a, G g2]            3  nested, different features: both
 *   K6 [F -]                  2  no instance
 *   K7 [F "(no instance)"]    1  the label of no instance: the same instance
 *   K8 [F a, anti F, other F c] 6  another thread's mark above an antimark
 *   K9 [anti G]               8  nothing
 *   empty                     9  nothing
 * F: 31 (a 13, b 9, c 6, no instance 3), G: 8 (g1 5, g2 3); 55 samples.
 */
static __attribute__((unused)) struct profile *kinds_profile(void)
{
	struct profile_meta m = {.target = "kinds", .frequency_hz = 1000, .period_ns = 1000000};
	struct profile *p = profile__new();

	assert_non_null(p);
	assert_int_equal(profile__set_meta(p, &m), 0);
	assert_int_equal(profile__add_thread(p, KINDS_PID, KINDS_PID, "main"), 0);
	assert_int_equal(profile__add_thread(p, KINDS_PID, KINDS_PID + 1, "gc"), 0);
	ADD_STACK(p, KINDS_PID, 1, MARK("F", "a"));
	ADD_STACK(p, KINDS_PID, 2, MARK("F", "a"), ANTI("F"));
	ADD_STACK(p, KINDS_PID, 3, MARK("G", "g1"), OTHER("F", "b"));
	ADD_STACK(p, KINDS_PID, 4, MARK("F", "a"), MARK("F", "b"));
	ADD_STACK(p, KINDS_PID, 5, MARK("F", "a"), MARK("G", "g2"));
	ADD_STACK(p, KINDS_PID, 6, MARK("F", NULL));
	ADD_STACK(p, KINDS_PID, 7, MARK("F", ATTRIB_NO_INSTANCE));
	ADD_STACK(p, KINDS_PID, 8, MARK("F", "a"), ANTI("F"), OTHER("F", "c"));
	ADD_STACK(p, KINDS_PID, 9, ANTI("G"));
	ADD_SAMPLES(p, KINDS_PID, KINDS_PID, 1, 10);
	ADD_SAMPLES(p, KINDS_PID, KINDS_PID, 2, 7);
	ADD_SAMPLES(p, KINDS_PID, KINDS_PID + 1, 3, 5);
	ADD_SAMPLES(p, KINDS_PID, KINDS_PID, 4, 4);
	ADD_SAMPLES(p, KINDS_PID, KINDS_PID, 5, 3);
	ADD_SAMPLES(p, KINDS_PID, KINDS_PID, 6, 2);
	ADD_SAMPLES(p, KINDS_PID, KINDS_PID, 7, 1);
	ADD_SAMPLES(p, KINDS_PID, KINDS_PID + 1, 8, 6);
	ADD_SAMPLES(p, KINDS_PID, KINDS_PID, 9, 8);
	ADD_SAMPLES(p, KINDS_PID, KINDS_PID, 0, 9);
	return p;
}

#endif /* FSP_RENDER_FIXTURE_H */
