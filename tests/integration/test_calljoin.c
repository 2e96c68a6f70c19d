// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The slow-call view's join, call by call (record --calls, issue 30), on
 * tests/workloads/wl_calljoin, whose every call has an instance label of its
 * own, so that each call of the profile is matched to the workload's:
 *
 *   calls_exact_join  short calls (0.1 ms, shorter than a sampling period)
 *               right beside long ones (20 ms), a call nested in another of
 *               the same feature, a recursion of four levels, in two
 *               threads, and a call open when the session ends: per thread,
 *               each call's share of the thread's calls' samples within
 *               max(2 pp, 4 sigma) of its share of their CPU time outside
 *               the calls nested in it (a short call gets none of its long
 *               neighbours' samples, the outer call and each recursion level
 *               only their own); every call on its own thread; each estimated
 *               duration at least its CPU time less two periods and at most
 *               its wall time plus one (docs/calls.md); the open call keeps
 *               its samples
 *   calls_exact_join_events  the same with --events: each call of two
 *               periods or more has its exact duration, between its CPU time
 *               with its nested calls and the wall time the workload's clock
 *               reads bracket; shorter calls and the open one are estimated
 *               (ABI v1 marks always trap: their durations are exact in
 *               both tests)
 *
 * Under FSP_ABI=v1 the workload is the ABI v1 build (call numbers from the
 * BPF mark stack).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "itest.h"

/* k / n within max(2 pp, 4 sigma) of p. */
static bool share_ok(const char *what, uint64_t k, uint64_t n, double p)
{
	return itest_share_ok(what, k, n, p, fmax(0, 0.02 - itest_tolerance(p, n, 0)));
}

/* A call of the profile's "calls" list, found by its instance label. */
struct pcall {
	int n; /* rows with that label (one at most) */
	long long tid, samples, first, last, exact;
};

static void find_call(json_object *prof, const char *name, struct pcall *out)
{
	json_object *calls = NULL, *strs = NULL, *list = NULL;

	memset(out, 0, sizeof(*out));
	if (!json_object_object_get_ex(prof, "calls", &calls) ||
	    !json_object_object_get_ex(prof, "strings", &strs) ||
	    !json_object_object_get_ex(calls, "list", &list))
		return;
	for (size_t i = 0; i < json_object_array_length(list); i++) {
		json_object *row = json_object_array_get_idx(list, i);
		long long idx = json_object_get_int64(json_object_array_get_idx(row, 4));
		const char *inst = json_object_get_string(json_object_array_get_idx(strs, idx));
		long long v[9];

		if (!inst || strcmp(inst, name))
			continue;
		for (int k = 0; k < 9; k++)
			v[k] = json_object_get_int64(json_object_array_get_idx(row, k));
		out->n++;
		*out = (struct pcall){out->n, v[1], v[5], v[6], v[7], v[8]};
	}
}

#define JOIN_PAIRS 8
#define JOIN_LEVELS 4

/* wl_calljoin's calls of thread t: names[] (static buffers), n of them. */
static size_t thread_calls(int t, char names[][16])
{
	size_t n = 0;

	for (int k = 0; k < JOIN_PAIRS; k++) {
		snprintf(names[n++], 16, "L%d.%d", t, k);
		snprintf(names[n++], 16, "S%d.%d", t, k);
	}
	snprintf(names[n++], 16, "N%d", t);
	snprintf(names[n++], 16, "M%d", t);
	for (int d = 0; d < JOIN_LEVELS; d++)
		snprintf(names[n++], 16, "R%d.%d", t, d);
	return n;
}

/* CPU time of call `name` with the calls nested in it (N: with M; R<t>.<d>:
 * with the deeper levels), as its leave's duration must at least be. */
static uint64_t inclusive_cpu(const struct itest_truth *tr, const char *name)
{
	uint64_t ns = itest_truth_u64(tr, "%s.cpu_ns", name);
	int t, d;

	if (name[0] == 'N')
		ns += itest_truth_u64(tr, "M%s.cpu_ns", name + 1);
	if (name[0] == 'R' && sscanf(name, "R%d.%d", &t, &d) == 2)
		for (d++; d < JOIN_LEVELS; d++)
			ns += itest_truth_u64(tr, "R%d.%d.cpu_ns", t, d);
	return ns;
}

/* One call against the truth: its thread; its duration, exact (between
 * its CPU time with its nested calls and the wall time the workload's
 * clock reads around its marks bracket) or estimated (at least its own CPU
 * time less two periods, at most its wall time plus one: docs/calls.md). */
static bool call_ok(const struct itest_truth *tr, const char *name, const struct pcall *c,
		    bool events, double period_ns)
{
	double cpu = (double)itest_truth_u64(tr, "%s.cpu_ns", name);
	double wall = (double)itest_truth_u64(tr, "%s.wall_ns", name);
	double est = (double)(c->last - c->first) + period_ns;
	bool open = !strcmp(name, "open"), ok = c->n <= 1;

	if (!c->n)
		return ok;
	ok &= c->tid == (long long)itest_truth_u64(tr, "%s.tid", name);
	/* ABI v1 marks trap, and are timed, without --events too */
	if ((events || itest_abi_v1()) && !open && wall >= 2 * period_ns) {
		double lo = (double)inclusive_cpu(tr, name);

		ok &= c->exact > 0 && (double)c->exact >= lo - 1000 &&
		      (double)c->exact <= wall + 1000;
		print_message("  %-7s exact %8.3f ms (CPU with nested %8.3f, wall %8.3f): %s\n",
			      name, c->exact / 1e6, lo / 1e6, wall / 1e6, ok ? "ok" : "FAIL");
		return ok;
	}
	/* shorter than two periods (or never left): not sent, estimated */
	ok &= c->exact == 0 && est >= cpu - 2 * period_ns && (open || est <= wall + period_ns);
	print_message("  %-7s ~%8.3f ms (CPU %8.3f, wall %8.3f): %s\n", name, est / 1e6, cpu / 1e6,
		      wall / 1e6, ok ? "ok" : "FAIL");
	return ok;
}

/*
 * calls_exact_join(_events): wl_calljoin's calls, each with a label of its
 * own. Per thread, each call's share of the thread's calls' samples within
 * max(2 pp, 4 sigma) of its share of their CPU time (outside the calls
 * nested in it): a short call beside long ones gets none of theirs, the
 * outer of two nested calls and each level of a recursion only their own;
 * every call on its own thread; each duration against the workload's
 * (call_ok); the call open at the end has its samples.
 */
static void exact_join(bool events)
{
	const char *prof = itest_tmp("p.json"), *truth = itest_tmp("truth");
	double period_ns = 1e9 / atof(ITEST_HZ);
	struct itest_truth *tr;
	struct itest_proc p;
	struct pcall c;
	json_object *j;
	bool ok = true;

	itest_run_fsp(&p, "fsp", 120, events ? "--events" : "--calls", "--calls", "-F", ITEST_HZ,
		      "--json", prof, "--", itest_workload("wl_calljoin"), truth, NULL);
	itest_assert_exit(&p, 0);
	free(p.out);
	free(p.err);
	tr = itest_truth_load(truth);
	j = itest_json_load(prof);
	for (int t = 0; t < 2; t++) {
		char names[2 * JOIN_PAIRS + 2 + JOIN_LEVELS][16];
		size_t n = thread_calls(t, names);
		uint64_t cpu = 0, samples = 0;

		for (size_t i = 0; i < n; i++) {
			find_call(j, names[i], &c);
			cpu += itest_truth_u64(tr, "%s.cpu_ns", names[i]);
			samples += (uint64_t)c.samples;
		}
		for (size_t i = 0; i < n; i++) {
			find_call(j, names[i], &c);
			ok &= share_ok(names[i], (uint64_t)c.samples, samples,
				       (double)itest_truth_u64(tr, "%s.cpu_ns", names[i]) /
					       (double)cpu);
			ok &= call_ok(tr, names[i], &c, events, period_ns);
		}
	}
	find_call(j, "open", &c);
	{
		double cpu = (double)itest_truth_u64(tr, "open.cpu_ns");
		double lo = cpu - 2 * period_ns - itest_steal_bound_ns();
		bool kept = c.n == 1 && (double)c.samples * period_ns >= lo;

		/* open when the session ended: its samples (30 ms of CPU) are
		 * kept, less two periods and what the VM's steal time took (the
		 * timer ticks late then: one sample for several periods) */
		print_message("  open    %lld samples x %.3f ms (CPU %8.3f, at least %8.3f): %s\n",
			      (long long)c.samples, period_ns / 1e6, cpu / 1e6, lo / 1e6,
			      kept ? "ok" : "FAIL");
		ok &= kept;
		ok &= call_ok(tr, "open", &c, events, period_ns);
	}
	json_object_put(j);
	itest_truth_free(tr);
	ITEST_ASSERT_OK(ok);
}

static void test_calls_exact_join(void **state)
{
	(void)state;
	exact_join(false);
}

static void test_calls_exact_join_events(void **state)
{
	(void)state;
	exact_join(true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		ITEST(test_calls_exact_join),
		ITEST(test_calls_exact_join_events),
	};

	return ITEST_MAIN("calljoin", tests);
}
