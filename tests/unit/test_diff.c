// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Unit tests of profile differencing (analysis/model/diff.c, analysis/render/diff/diff_report.c). */
#include <errno.h>
#include <json-c/json.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>

#include "diff.h"
#include "report.h"
#include "unit_helpers.h"

#define MS 1000000ULL /* period_ns of 1 ms */

/* A profile sampled every period_ns, started at `start`, of one process. */
static struct profile *new_profile(const char *target, double start, uint64_t period_ns)
{
	struct profile_meta m = {
		.target = target,
		.host = "testhost",
		.kernel = "6.1.0-test",
		.frequency_hz = period_ns ? 1000000000ULL / period_ns : 0,
		.period_ns = period_ns,
		.start_time = start,
		.end_time = start + 1,
		.duration_s = 1,
	};
	struct profile *p = profile__new();

	assert_non_null(p);
	assert_int_equal(profile__set_meta(p, &m), 0);
	return p;
}

/* n samples of the one-mark stack (feature, instance), registered as `key`. */
static void charge(struct profile *p, uint64_t key, const char *feature, const char *instance,
		   uint64_t n)
{
	ADD_STACK(p, 1, key, MARK(feature, instance));
	ADD_SAMPLES(p, 1, 1, key, n);
}

static struct diff *compute(const struct profile *base, const struct profile *new_p, double k)
{
	struct diff_opts o = {.scale = k};
	struct diff *d = diff__compute(base, new_p, &o);

	assert_non_null(d);
	return d;
}

static const struct diff_feature *feature(const struct diff *d, const char *name)
{
	const struct diff_feature *f;
	size_t i;

	for (i = 0; i < diff__nr_features(d); i++) {
		f = diff__feature(d, i);
		if (!strcmp(f->row.name, name))
			return f;
	}
	fail_msg("no feature %s", name);
	return NULL;
}

static const struct diff_row *instance(const struct diff *d, const char *fname, const char *name)
{
	const struct diff_feature *f = feature(d, fname);
	size_t i;

	for (i = 0; i < f->nr_instances; i++)
		if (!strcmp(f->instances[i].name, name))
			return &f->instances[i];
	fail_msg("no instance %s of %s", name, fname);
	return NULL;
}

static double abs_d(double v)
{
	return v < 0 ? -v : v;
}

/* got == want up to rounding (relative 1e-9, absolute for |want| < 1). */
static void assert_close(double got, double want)
{
	if (!(abs_d(got - want) <= 1e-9 * (abs_d(want) > 1 ? abs_d(want) : 1)))
		fail_msg("got %.17g, want %.17g", got, want);
}

static char *render_text(const struct diff *d, double min_pct)
{
	struct diff_report_opts o = {.min_pct = min_pct};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(diff__text(f, d, &o), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static char *render_json(const struct diff *d)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(diff__json(f, d), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

/* Base of the small text case: Output 60 (o:1 50, o:2 10), Parse 30, 10 uncharged. */
static struct profile *small_base(void)
{
	struct profile *p = new_profile("./app 10", 1700000000.0, MS);

	charge(p, 1, "Output", "o:1", 50);
	charge(p, 2, "Output", "o:2", 10);
	charge(p, 3, "Parse", "p:7", 30);
	ADD_SAMPLES(p, 1, 1, 0, 10);
	return p;
}

/* New: Output 120 (o:1 120, o:2 gone), Parse 50, GC 20 (new), 10 uncharged. */
static struct profile *small_new(void)
{
	struct profile *p = new_profile("./app 20", 1700000600.0, MS);

	charge(p, 1, "Output", "o:1", 120);
	charge(p, 3, "Parse", "p:7", 50);
	charge(p, 4, "GC", "major", 20);
	ADD_SAMPLES(p, 1, 1, 0, 10);
	return p;
}

static void test_invalid(void **state)
{
	struct profile *p = new_profile("x", 0, MS);

	(void)state;
	errno = 0;
	assert_null(diff__compute(NULL, p, NULL));
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_null(diff__compute(p, NULL, NULL));
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_null(diff__compute(p, p, &(struct diff_opts){.scale = -1}));
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_null(diff__compute(p, p, &(struct diff_opts){.scale = NAN}));
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_null(diff__compute(p, p, &(struct diff_opts){.scale = INFINITY}));
	assert_int_equal(errno, EINVAL);

	diff__free(NULL);
	assert_int_equal(diff__nr_features(NULL), 0);
	assert_null(diff__feature(NULL, 0));
	assert_null(diff__base(NULL));
	assert_null(diff__new(NULL));
	assert_null(diff__totals(NULL));
	assert_int_equal(diff__scaled(NULL), 0);
	assert_int_equal(diff__text(NULL, NULL, NULL), -EINVAL);
	assert_int_equal(diff__json(stdout, NULL), -EINVAL);
	profile__free(p);
}

static void test_empty(void **state)
{
	struct profile *p = new_profile("empty", 0, MS);
	struct diff *d = compute(p, p, 0);
	char *text;

	(void)state;
	assert_int_equal(diff__nr_features(d), 0);
	assert_null(diff__feature(d, 0));
	assert_int_equal(diff__scaled(d), 0);
	assert_true(diff__totals(d)->scale == 1);
	assert_true(isnan(diff__totals(d)->growth));
	text = render_text(d, 0);
	assert_non_null(strstr(text, "\nNo feature was charged in either profile.\n"));
	free(text);
	diff__free(d);
	profile__free(p);
}

static void test_equal_profiles(void **state)
{
	struct profile *base = small_base(), *again = small_base();
	const struct diff_feature *f;
	const struct diff_row *r;
	struct diff *d;
	size_t i, j;

	(void)state;
	d = compute(base, again, 0);
	assert_int_equal(diff__nr_features(d), 2);
	for (i = 0; i < diff__nr_features(d); i++) {
		f = diff__feature(d, i);
		for (j = 0; j <= f->nr_instances; j++) {
			r = j ? &f->instances[j - 1] : &f->row;
			assert_int_equal(r->flags, 0);
			assert_int_equal(r->base_samples, r->new_samples);
			assert_true(r->delta_ms == 0);
			assert_true(r->delta_pp == 0);
			assert_true(r->deviation_ms == 0);
			assert_true(r->predicted_ms == r->base_ms);
			assert_true(r->growth == 1);
		}
	}
	/* all changes tie at 0: by name */
	assert_string_equal(diff__feature(d, 0)->row.name, "Output");
	assert_string_equal(diff__feature(d, 1)->row.name, "Parse");
	assert_string_equal(diff__feature(d, 0)->instances[0].name, "o:1");
	f = diff__feature(d, 0);
	assert_int_equal(f->row.base_samples, 60);
	assert_close(f->row.base_ms, 60);
	assert_close(f->row.base_pct, 60);
	assert_true(diff__totals(d)->delta_ms == 0);
	assert_true(diff__totals(d)->deviation_ms == 0);
	assert_close(diff__totals(d)->base_ms, 100);
	assert_int_equal(diff__base(d)->total_samples, 100);
	assert_int_equal(diff__base(d)->uncharged_samples, 10);
	diff__free(d);
	profile__free(base);
	profile__free(again);
}

/* A feature of point events alone (a probe map's "event"), charged nothing
 * on either side: diff(a, a) shows it neither new nor gone, no change. */
static void test_events_only_unchanged(void **state)
{
	struct profile_event_stats st = {.enters = 46};
	struct profile *base = small_base(), *again = small_base();
	const struct diff_feature *f;
	struct diff *d;

	(void)state;
	assert_int_equal(profile__add_events(base, 1, "started", "unit", &st), 0);
	assert_int_equal(profile__add_events(again, 1, "started", "unit", &st), 0);
	d = compute(base, again, 0);
	f = feature(d, "started");
	assert_int_equal(f->row.base_samples, 0);
	assert_int_equal(f->row.new_samples, 0);
	assert_int_equal(f->row.flags, 0);
	assert_int_equal(f->nr_instances, 1);
	assert_int_equal(f->instances[0].flags, 0);
	assert_true(f->row.delta_ms == 0 && f->row.delta_pp == 0);
	diff__free(d);
	profile__free(base);
	profile__free(again);
}

static void test_new_and_gone(void **state)
{
	struct profile *base = small_base(), *new_p = small_new();
	const struct diff_row *r;
	struct diff *d;

	(void)state;
	d = compute(base, new_p, 0);
	assert_int_equal(diff__nr_features(d), 3);

	r = &feature(d, "GC")->row;
	assert_int_equal(r->flags, DIFF_NEW);
	assert_int_equal(r->base_samples, 0);
	assert_int_equal(r->new_samples, 20);
	assert_close(r->new_ms, 20);
	assert_close(r->new_pct, 10);
	assert_close(r->delta_ms, 20);
	assert_close(r->delta_pp, 10);
	assert_true(isnan(r->growth));
	r = instance(d, "GC", "major");
	assert_int_equal(r->flags, DIFF_NEW);

	r = instance(d, "Output", "o:2");
	assert_int_equal(r->flags, DIFF_GONE);
	assert_int_equal(r->base_samples, 10);
	assert_int_equal(r->new_samples, 0);
	assert_close(r->delta_ms, -10);
	assert_close(r->delta_pp, -10);
	assert_true(r->growth == 0);

	r = &feature(d, "Output")->row;
	assert_int_equal(r->flags, 0);
	assert_close(r->base_pct, 60);
	assert_close(r->new_pct, 60);
	assert_close(r->delta_pp, 0);
	assert_close(r->delta_ms, 60);
	assert_close(r->growth, 2);

	/* the other way round, NEW and GONE swap */
	diff__free(d);
	d = compute(new_p, base, 0);
	assert_int_equal(feature(d, "GC")->row.flags, DIFF_GONE);
	assert_int_equal(instance(d, "Output", "o:2")->flags, DIFF_NEW);
	diff__free(d);
	profile__free(base);
	profile__free(new_p);
}

static void test_order_by_change(void **state)
{
	struct profile *base = new_profile("b", 0, MS), *new_p = new_profile("n", 0, MS);
	static const char *const order[] = {"down", "up", "tie-a", "tie-b", "small", "same"};
	struct diff *d;
	size_t i;

	(void)state;
	/* changes: down -50, up +27, tie-b +20, tie-a -20, small +1, same 0 */
	charge(base, 1, "same", "s", 40);
	charge(new_p, 1, "same", "s", 40);
	charge(base, 2, "up", "u", 10);
	charge(new_p, 2, "up", "u", 40);
	charge(base, 3, "down", "d", 60);
	charge(new_p, 3, "down", "d", 10);
	charge(base, 4, "tie-b", "x", 5);
	charge(new_p, 4, "tie-b", "x", 25);
	charge(base, 5, "tie-a", "x", 25);
	charge(new_p, 5, "tie-a", "x", 5);
	charge(base, 6, "small", "x", 5);
	charge(new_p, 6, "small", "x", 6);
	/* instances of one feature: sorted the same way */
	charge(base, 7, "up", "v", 20);
	charge(new_p, 7, "up", "v", 15);
	charge(new_p, 8, "up", "w", 2);

	d = compute(base, new_p, 1);
	assert_int_equal(diff__scaled(d), 0);
	assert_int_equal(diff__nr_features(d), 6);
	for (i = 0; i < 6; i++)
		assert_string_equal(diff__feature(d, i)->row.name, order[i]);
	/* up: u +30, v -5, w +2 (NEW) */
	assert_close(diff__feature(d, 1)->row.delta_ms, 30 - 5 + 2);
	assert_string_equal(diff__feature(d, 1)->instances[0].name, "u");
	assert_string_equal(diff__feature(d, 1)->instances[1].name, "v");
	assert_string_equal(diff__feature(d, 1)->instances[2].name, "w");
	assert_int_equal(diff__feature(d, 1)->instances[2].flags, DIFF_NEW);
	diff__free(d);
	profile__free(base);
	profile__free(new_p);
}

/* K = 2 and every feature (and the uncharged rest) doubled: no deviation at all. */
static void test_scale_linear(void **state)
{
	struct profile *base = new_profile("./fib 10", 0, 1001001),
		       *new_p = new_profile("./fib 20", 0, 1001001);
	const struct diff_totals *t;
	const struct diff_feature *f;
	const struct diff_row *r;
	struct diff *d;
	size_t i, j;

	(void)state;
	charge(base, 1, "Loop", "iter.c:3", 37);
	charge(base, 2, "Loop", "iter.c:9", 3);
	charge(base, 3, "Output", "out.c:1", 1234567);
	ADD_SAMPLES(base, 1, 1, 0, 11);
	charge(new_p, 1, "Loop", "iter.c:3", 74);
	charge(new_p, 2, "Loop", "iter.c:9", 6);
	charge(new_p, 3, "Output", "out.c:1", 2469134);
	ADD_SAMPLES(new_p, 1, 1, 0, 22);

	d = compute(base, new_p, 2);
	assert_int_equal(diff__scaled(d), 1);
	for (i = 0; i < diff__nr_features(d); i++) {
		f = diff__feature(d, i);
		for (j = 0; j <= f->nr_instances; j++) {
			r = j ? &f->instances[j - 1] : &f->row;
			assert_true(r->deviation_ms == 0);
			assert_true(r->predicted_ms == r->new_ms);
			assert_true(r->growth == 2);
		}
	}
	t = diff__totals(d);
	assert_true(t->scale == 2);
	assert_true(t->deviation_ms == 0);
	assert_true(t->predicted_ms == t->new_ms);
	assert_true(t->growth == 2);
	/* all deviations tie at 0: by name */
	assert_string_equal(diff__feature(d, 0)->row.name, "Loop");
	assert_string_equal(diff__feature(d, 0)->instances[0].name, "iter.c:3");
	diff__free(d);
	profile__free(base);
	profile__free(new_p);
}

/* K = 2 with one quadratic feature: it tops the list, the large linear one does not. */
static void test_scale_quadratic(void **state)
{
	struct profile *base = new_profile("./fib 10", 0, MS),
		       *new_p = new_profile("./fib 20", 0, MS);
	const struct diff_row *r;
	struct diff *d;

	(void)state;
	charge(base, 1, "Loop", "iter.c:3", 500);
	charge(base, 2, "Recursion", "fib.c:5", 100);
	charge(base, 3, "Output", "out.c:1", 50);
	charge(new_p, 1, "Loop", "iter.c:3", 1000);
	charge(new_p, 2, "Recursion", "fib.c:5", 400);
	charge(new_p, 3, "Output", "out.c:1", 100);

	/* plain diff: Loop's +500 ms is the largest change */
	d = compute(base, new_p, 0);
	assert_string_equal(diff__feature(d, 0)->row.name, "Loop");
	diff__free(d);

	d = compute(base, new_p, 2);
	r = &diff__feature(d, 0)->row;
	assert_string_equal(r->name, "Recursion");
	assert_close(r->base_ms, 100);
	assert_close(r->predicted_ms, 200);
	assert_close(r->new_ms, 400);
	assert_close(r->deviation_ms, 200);
	assert_close(r->delta_ms, 300);
	assert_close(r->growth, 4);
	r = &diff__feature(d, 0)->instances[0];
	assert_string_equal(r->name, "fib.c:5");
	assert_close(r->deviation_ms, 200);
	/* the linear ones follow, deviation 0, by name */
	assert_string_equal(diff__feature(d, 1)->row.name, "Loop");
	assert_true(diff__feature(d, 1)->row.deviation_ms == 0);
	assert_string_equal(diff__feature(d, 2)->row.name, "Output");
	assert_true(diff__feature(d, 2)->row.deviation_ms == 0);
	assert_close(diff__totals(d)->predicted_ms, 1300);
	assert_close(diff__totals(d)->deviation_ms, 200);
	assert_close(diff__totals(d)->growth, 1500.0 / 650.0);
	diff__free(d);
	profile__free(base);
	profile__free(new_p);
}

/* Profiles taken at different frequencies compare in milliseconds. */
static void test_different_periods(void **state)
{
	struct profile *base = new_profile("b", 0, MS), *new_p = new_profile("n", 0, 2 * MS);
	const struct diff_row *r;
	struct diff *d;

	(void)state;
	charge(base, 1, "Output", "o", 40);
	ADD_SAMPLES(base, 1, 1, 0, 60);
	charge(new_p, 1, "Output", "o", 20);
	ADD_SAMPLES(new_p, 1, 1, 0, 30);
	d = compute(base, new_p, 0);
	r = &diff__feature(d, 0)->row;
	assert_close(r->base_ms, 40);
	assert_close(r->new_ms, 40);
	assert_true(r->delta_ms == 0);
	assert_close(r->new_pct, 40);
	assert_int_equal(diff__new(d)->period_ns, 2 * MS);
	assert_close(diff__totals(d)->new_ms, 100);
	diff__free(d);
	profile__free(base);
	profile__free(new_p);
}

static const char small_header[] =
	"fsp-bpf diff of feature profiles\n"
	"  base: ./app 10 on testhost, started 2023-11-14 22:13:20 UTC, 100 samples = 100.0 ms "
	"(1.000 ms per sample)\n"
	"  new:  ./app 20 on testhost, started 2023-11-14 22:23:20 UTC, 200 samples = 200.0 ms "
	"(1.000 ms per sample)\n"
	"  total: 100.0 ms -> 200.0 ms, change +100.0 ms (x2.00)\n";

static const char small_note[] =
	"Shares are of each profile's samples; a sample can be charged to several features or "
	"to none, so shares need not sum to 100%.\n"
	"\n";

static void assert_text(const char *got, const char *middle, const char *table)
{
	char *want;

	assert_true(asprintf(&want, "%s%s%s%s", small_header, middle, small_note, table) > 0);
	if (strcmp(got, want))
		fail_msg("text differs; got:\n%s\nwant:\n%s", got, want);
	free(want);
}

static void test_text_plain(void **state)
{
	struct profile *base = small_base(), *new_p = small_new();
	struct diff *d = compute(base, new_p, 0);
	char *text;

	(void)state;
	text = render_text(d, 0);
	assert_text(
		text, "  rows sorted by |change in time|\n",
		"feature / instance    base ms   base %     new ms    new %     +/- ms   +/- pp\n"
		"Output                   60.0   60.00%      120.0   60.00%      +60.0    +0.00\n"
		"  o:1                    50.0   50.00%      120.0   60.00%      +70.0   +10.00\n"
		"  o:2                    10.0   10.00%        0.0    0.00%      -10.0   -10.00"
		"  GONE\n"
		"GC                        0.0    0.00%       20.0   10.00%      +20.0   +10.00"
		"  NEW\n"
		"  major                   0.0    0.00%       20.0   10.00%      +20.0   +10.00"
		"  NEW\n"
		"Parse                    30.0   30.00%       50.0   25.00%      +20.0    -5.00\n"
		"  p:7                    30.0   30.00%       50.0   25.00%      +20.0    -5.00\n");
	free(text);

	/* min 15%: o:2 (10%, 0%, -10 pp) and GC (0%, 10%, +10 pp) are folded */
	text = render_text(d, 15);
	assert_text(
		text, "  rows sorted by |change in time|\n",
		"feature / instance    base ms   base %     new ms    new %     +/- ms   +/- pp\n"
		"Output                   60.0   60.00%      120.0   60.00%      +60.0    +0.00\n"
		"  o:1                    50.0   50.00%      120.0   60.00%      +70.0   +10.00\n"
		"  ... 1 more row under 15%\n"
		"Parse                    30.0   30.00%       50.0   25.00%      +20.0    -5.00\n"
		"  p:7                    30.0   30.00%       50.0   25.00%      +20.0    -5.00\n"
		"... 1 more row under 15%\n");
	free(text);

	/* min 70%: every row folded */
	text = render_text(d, 70);
	assert_text(
		text, "  rows sorted by |change in time|\n",
		"feature / instance    base ms   base %     new ms    new %     +/- ms   +/- pp\n"
		"... 3 more rows under 70%\n");
	free(text);
	diff__free(d);
	profile__free(base);
	profile__free(new_p);
}

static void test_text_scaled(void **state)
{
	struct profile *base = small_base(), *new_p = small_new();
	struct diff *d = compute(base, new_p, 2);
	char *text;

	(void)state;
	text = render_text(d, 0);
	assert_text(text,
		    "  scale 2: predicted 200.0 ms (2 x base), deviation +0.0 ms; rows sorted by "
		    "|deviation| from linear growth\n",
		    "feature / instance    base ms   base %     new ms    new %     +/- ms   +/- pp"
		    "  predicted  deviation   growth\n"
		    "GC                        0.0    0.00%       20.0   10.00%      +20.0   +10.00"
		    "        0.0      +20.0        -  NEW\n"
		    "  major                   0.0    0.00%       20.0   10.00%      +20.0   +10.00"
		    "        0.0      +20.0        -  NEW\n"
		    "Parse                    30.0   30.00%       50.0   25.00%      +20.0    -5.00"
		    "       60.0      -10.0    x1.67\n"
		    "  p:7                    30.0   30.00%       50.0   25.00%      +20.0    -5.00"
		    "       60.0      -10.0    x1.67\n"
		    "Output                   60.0   60.00%      120.0   60.00%      +60.0    +0.00"
		    "      120.0       +0.0    x2.00\n"
		    "  o:1                    50.0   50.00%      120.0   60.00%      +70.0   +10.00"
		    "      100.0      +20.0    x2.40\n"
		    "  o:2                    10.0   10.00%        0.0    0.00%      -10.0   -10.00"
		    "       20.0      -20.0    x0.00  GONE\n");
	free(text);
	diff__free(d);
	profile__free(base);
	profile__free(new_p);
}

/* Long names widen the name column; an unknown host and start time are said so. */
static void test_text_layout(void **state)
{
	struct profile *base = new_profile(NULL, 0, MS), *new_p = new_profile("n", 0, MS);
	struct profile_meta m = *profile__meta(base);
	struct diff *d;
	char *text;

	(void)state;
	m.host = NULL;
	assert_int_equal(profile__set_meta(base, &m), 0);
	charge(base, 1, "A feature with a long name", "an instance label, long as well", 1);
	charge(new_p, 1, "A feature with a long name", "an instance label, long as well", 1);
	d = compute(base, new_p, 0);
	text = render_text(d, 0);
	assert_non_null(strstr(text,
			       "\n  base: an unnamed target, started an unknown time, 1 sample "
			       "= 1.0 ms (1.000 ms per sample)\n"));
	assert_non_null(strstr(text, "\n  new:  n on testhost, started an unknown time, "));
	assert_non_null(strstr(text, "\nfeature / instance                   base ms"));
	assert_non_null(strstr(text, "\nA feature with a long name               1.0  100.00%"));
	assert_non_null(strstr(text, "\n  an instance label, long as well        1.0  100.00%"));
	free(text);
	diff__free(d);
	profile__free(base);
	profile__free(new_p);
}

static struct json_object *get(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	if (!json_object_object_get_ex(o, key, &v))
		fail_msg("no key \"%s\"", key);
	return v;
}

static uint64_t get_u64(struct json_object *o, const char *key)
{
	struct json_object *v = get(o, key);

	assert_true(json_object_is_type(v, json_type_int));
	return json_object_get_uint64(v);
}

/* A real: written with a '.' or an exponent, so json-c reads a double. */
static double get_double(struct json_object *o, const char *key)
{
	struct json_object *v = get(o, key);

	assert_true(json_object_is_type(v, json_type_double));
	return json_object_get_double(v);
}

static const char *get_str(struct json_object *o, const char *key)
{
	struct json_object *v = get(o, key);

	assert_true(json_object_is_type(v, json_type_string));
	return json_object_get_string(v);
}

static int get_bool(struct json_object *o, const char *key)
{
	struct json_object *v = get(o, key);

	assert_true(json_object_is_type(v, json_type_boolean));
	return json_object_get_boolean(v);
}

static void test_json(void **state)
{
	struct profile *base = small_base(), *new_p = small_new();
	struct json_object *root, *o, *feats, *f, *insts, *r;
	struct diff *d = compute(base, new_p, 2);
	char *text, *again;

	(void)state;
	text = render_json(d);
	again = render_json(d);
	assert_string_equal(text, again); /* deterministic */
	free(again);
	assert_int_equal(text[strlen(text) - 1], '\n');

	root = json_tokener_parse(text);
	assert_non_null(root);
	assert_int_equal(get_u64(root, "version"), 1);
	assert_string_equal(get_str(root, "tool"), "fsp-bpf");
	assert_true(get_double(root, "scale") == 2);
	assert_string_equal(get_str(root, "sorted_by"), "deviation_ms");

	o = get(root, "base");
	assert_string_equal(get_str(o, "target"), "./app 10");
	assert_string_equal(get_str(o, "host"), "testhost");
	assert_true(json_object_is_type(get(o, "command_line"), json_type_null));
	assert_true(get_double(o, "start_time") == 1700000000.0);
	assert_int_equal(get_u64(o, "period_ns"), MS);
	assert_int_equal(get_u64(o, "total_samples"), 100);
	assert_int_equal(get_u64(o, "uncharged_samples"), 10);
	assert_true(get_double(o, "total_ms") == 100);
	o = get(root, "new");
	assert_string_equal(get_str(o, "target"), "./app 20");
	assert_int_equal(get_u64(o, "total_samples"), 200);

	o = get(root, "totals");
	assert_true(get_double(o, "base_ms") == 100);
	assert_true(get_double(o, "new_ms") == 200);
	assert_true(get_double(o, "delta_ms") == 100);
	assert_true(get_double(o, "predicted_ms") == 200);
	assert_true(get_double(o, "deviation_ms") == 0);
	assert_true(get_double(o, "growth") == 2);

	feats = get(root, "features");
	assert_true(json_object_is_type(feats, json_type_array));
	assert_int_equal(json_object_array_length(feats), 3);
	f = json_object_array_get_idx(feats, 0);
	assert_string_equal(get_str(f, "name"), "GC");
	assert_true(get_bool(f, "new"));
	assert_false(get_bool(f, "gone"));
	assert_int_equal(get_u64(f, "base_samples"), 0);
	assert_int_equal(get_u64(f, "new_samples"), 20);
	assert_true(get_double(f, "new_pct") == 10);
	assert_true(get_double(f, "deviation_ms") == 20);
	assert_true(json_object_is_type(get(f, "growth"), json_type_null));

	f = json_object_array_get_idx(feats, 1);
	assert_string_equal(get_str(f, "name"), "Parse");
	assert_true(get_double(f, "delta_pp") == -5);
	assert_true(get_double(f, "predicted_ms") == 60);
	assert_true(get_double(f, "deviation_ms") == -10);
	assert_close(get_double(f, "growth"), 50.0 / 30.0);

	f = json_object_array_get_idx(feats, 2);
	assert_string_equal(get_str(f, "name"), "Output");
	insts = get(f, "instances");
	assert_int_equal(json_object_array_length(insts), 2);
	r = json_object_array_get_idx(insts, 1);
	assert_string_equal(get_str(r, "name"), "o:2");
	assert_true(get_bool(r, "gone"));
	assert_false(get_bool(r, "new"));
	assert_true(get_double(r, "growth") == 0);
	assert_true(get_double(r, "base_ms") == 10);
	assert_true(get_double(r, "new_ms") == 0);
	json_object_put(root);

	/* the decimal point does not depend on the caller's locale */
	if (setlocale(LC_NUMERIC, "de_DE.UTF-8") || setlocale(LC_NUMERIC, "fr_FR.UTF-8")) {
		again = render_json(d);
		assert_string_equal(text, again);
		free(again);
		setlocale(LC_NUMERIC, "C");
	}
	free(text);
	diff__free(d);
	profile__free(base);
	profile__free(new_p);
}

/* A plain diff still reports predicted (= base) and deviation (= change). */
static void test_json_plain(void **state)
{
	struct profile *base = small_base(), *new_p = small_new();
	struct diff *d = compute(base, new_p, 0);
	struct json_object *root, *f;
	char *text = render_json(d);

	(void)state;
	root = json_tokener_parse(text);
	assert_non_null(root);
	assert_true(get_double(root, "scale") == 1);
	assert_string_equal(get_str(root, "sorted_by"), "delta_ms");
	f = json_object_array_get_idx(get(root, "features"), 0);
	assert_string_equal(get_str(f, "name"), "Output");
	assert_true(get_double(f, "predicted_ms") == get_double(f, "base_ms"));
	assert_true(get_double(f, "deviation_ms") == get_double(f, "delta_ms"));
	json_object_put(root);
	free(text);
	diff__free(d);
	profile__free(base);
	profile__free(new_p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_invalid),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_equal_profiles),
		cmocka_unit_test(test_events_only_unchanged),
		cmocka_unit_test(test_new_and_gone),
		cmocka_unit_test(test_order_by_change),
		cmocka_unit_test(test_scale_linear),
		cmocka_unit_test(test_scale_quadratic),
		cmocka_unit_test(test_different_periods),
		cmocka_unit_test(test_text_plain),
		cmocka_unit_test(test_text_scaled),
		cmocka_unit_test(test_text_layout),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_json_plain),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
