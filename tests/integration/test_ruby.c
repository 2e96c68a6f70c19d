// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * fsp-bpf --map ruby against Ruby 3.1's probes (maps/ruby.map), measured
 * against what tests/workloads/wl_ruby.rb measures itself: GC.stat (count,
 * time) and the calls it makes.
 *
 *   ruby_gc_calls  --feature gc-mark,gc-sweep,require,method: every
 *                  collection's marking counted (one gc-mark call per
 *                  GC.stat[:count]), each left; 'set' required once; Wl#hot
 *                  and Wl#outer called and returned exactly as often as the
 *                  script says (under its TracePoint, without which Ruby 3.1
 *                  fires no method probe); the share of the collector's
 *                  features against GC.stat[:time].
 *
 * Tolerances. Counts are exact (fsp-bpf launches ruby: every probe is armed
 * before the first collection). GC.stat[:time] (Ruby 3.1) is the process's
 * CPU time between the collector's entry and exit, in ms, which contain its
 * mark and sweep steps: the collector features' share (a sample in either
 * of them; they never nest) against GC.stat's share of the process's CPU
 * time C, within 4 sigma + 1/n + delta, delta = 1 ms of the reading plus
 * 10 ms of the script's own work around its clock reads, over C. Measured
 * under the integration lock: 23.67% against 24.70%. Run while other
 * integration tests loaded the machine, fsp-bpf found 4.0-4.4% of the run
 * more than GC.stat[:time] (docs/probe-maps.md, "ruby"): not explained, not
 * reproduced under the lock.
 *
 * One call of the script stays open: TracePoint#disable, whose return
 * event is off by the time it returns; its frame-bound mark is dropped as
 * stale (one stale mark). The returns of the calls running when the
 * TracePoint was enabled have no entry: unmatched leaves, printed.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "attrib.h"
#include "itest.h"
#include "profile_io.h"

#define RUBY "/usr/bin/ruby3.1"

static const char *script(void)
{
	static char path[PATH_MAX];
	const char *out = getenv("FSP_OUT");
	char buf[PATH_MAX];

	if (access(RUBY, X_OK)) {
		fprintf(stderr, "SKIP: %s is not installed: the ruby probe map is not tested\n",
			RUBY);
		skip();
	}
	snprintf(buf, sizeof(buf), "%s/../tests/workloads/wl_ruby.rb", out ? out : ".output");
	if (!realpath(buf, path))
		fail_msg("the workload %s is missing", buf);
	return path;
}

static const struct profile_event_stats *ev(const struct attrib *a, const char *f, const char *i)
{
	const struct attrib_instance *in = itest_instance(a, f, i);

	if (!in->events)
		fail_msg("instance %s of %s has no events", i, f);
	return in->events;
}

static void counts(const char *what, const struct profile_event_stats *e, uint64_t want)
{
	printf("  %-22s enters %8llu leaves %8llu  truth %8llu\n", what,
	       (unsigned long long)e->enters, (unsigned long long)e->leaves,
	       (unsigned long long)want);
	assert_int_equal(e->enters, want);
	assert_int_equal(e->leaves, want);
}

static void test_ruby_gc_calls(void **state)
{
	const char *json = itest_tmp("ruby.json"), *tp = itest_tmp("ruby.truth");
	char *argv[] = {NULL, "--map",	"ruby", "--feature",	  "gc-mark,gc-sweep,require,method",
			"-F", ITEST_HZ, "-o",	(char *)json,	  "--min-pct",
			"0",  "--",	RUBY,	(char *)script(), (char *)tp,
			"2",  "100000", NULL};
	const struct attrib_feature *mark, *sweep;
	uint64_t gc_samples = 0, n;
	struct itest_truth *t;
	struct itest_proc p;
	struct profile *pr;
	struct attrib *a;
	double C, truth, delta, ph;

	(void)state;
	itest_run_fspv(&p, "fsp", 60.0, argv);
	itest_assert_exit(&p, 0);
	free(p.out);
	free(p.err);
	t = itest_truth_load(tp);
	pr = itest_profile_load(json);
	a = attrib__compute(pr, NULL);
	assert_non_null(a);
	counts("gc-mark", ev(a, "ruby:gc-mark", ATTRIB_NO_INSTANCE),
	       itest_truth_u64(t, "gc.count"));
	sweep = itest_feature(a, "ruby:gc-sweep");
	assert_int_equal(sweep->events->enters, sweep->events->leaves);
	counts("require set", ev(a, "ruby:require", "set"), 1);
	counts("Wl#hot", ev(a, "ruby:method", "Wl#hot"), itest_truth_u64(t, "hot.calls"));
	counts("Wl#outer", ev(a, "ruby:method", "Wl#outer"), itest_truth_u64(t, "outer.calls"));
	/* the collector's features: a sample in either (they never nest) */
	mark = itest_feature(a, "ruby:gc-mark");
	for (size_t j = 0; j < profile__nr_samples(pr); j++) {
		struct profile_sample s;
		bool in_gc = false;

		assert_int_equal(profile__sample(pr, j, &s), 0);
		for (size_t d = 0; d < s.depth; d++)
			in_gc |= s.frames[d].kind == PROFILE_MARK &&
				 (!strcmp(s.frames[d].feature, "ruby:gc-mark") ||
				  !strcmp(s.frames[d].feature, "ruby:gc-sweep"));
		gc_samples += in_gc ? s.count : 0;
	}
	assert_true(gc_samples <= mark->samples + sweep->samples);
	n = attrib__total_samples(a);
	C = (double)itest_truth_u64(t, "cpu_total_ns");
	truth = itest_truth_u64(t, "gc.time_ms") * 1e6 / C;
	delta = (1e6 + 10e6) / C;
	ph = (double)gc_samples / (double)n;
	printf("  GC.stat[:time] %llu ms of %.1f ms; gc-sweep share %.2f%%\n",
	       (unsigned long long)itest_truth_u64(t, "gc.time_ms"), C / 1e6,
	       100.0 * sweep->samples / (double)n);
	(void)ph;
	assert_true(itest_share_ok("gc-mark|gc-sweep", gc_samples, n, truth, delta));
	/* TracePoint#disable's call: entered, never returned (its return event
	 * is off by then), dropped when the script's frame goes. */
	printf("  stale marks %llu (TracePoint#disable's call)\n",
	       (unsigned long long)profile__diag(pr, DIAG_STALE_MARKS));
	assert_true(profile__diag(pr, DIAG_STALE_MARKS) <= 1);
	/* The returns of the calls that were running when the TracePoint was
	 * enabled (TracePoint#enable and what it runs) have no entry. */
	printf("  unmatched leaves %llu (returns of calls entered before the TracePoint)\n",
	       (unsigned long long)profile__diag(pr, DIAG_UNMATCHED_LEAVES));
	attrib__free(a);
	profile__free(pr);
	itest_truth_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		ITEST(test_ruby_gc_calls),
	};

	return ITEST_MAIN("ruby", tests);
}
