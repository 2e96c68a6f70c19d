// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The checks on a saved profile (matrix.h): `report` in every format, `merge`
 * of the file alone and with itself, `diff` of the file with itself and the
 * plug-in of its workload, each read back and compared with the file's own
 * model.
 */
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "itest.h"
#include "matrix.h"

/* fsp-bpf's output files: a ring of our own (itest_tmp's is shared). */
#define NR_OUT 32
#define FSP_RUN_TIMEOUT_S 120.0

static const char *out_slot(const char *path)
{
	static char ring[NR_OUT][PATH_MAX];
	static unsigned int next;
	char *s = ring[next++ % NR_OUT];

	snprintf(s, PATH_MAX, "%s", path);
	return s;
}

/* What a clean run may print on stderr: nothing but these. */
static const char *const quiet_prefixes[] = {
	"fsp-bpf: profiling ",
	/* -o of a rendering format (folded, pprof, html): where it went */
	"fsp-bpf: wrote the ",
	/* function features imply --stacks, said once */
	"fsp-bpf: function features are found on native stacks: recording with --stacks",
};

void mx_check_quiet(const char *what, const char *err)
{
	const char *line = err ? err : "", *eol;

	for (; *line; line = *eol ? eol + 1 : eol) {
		bool ok = false;

		eol = strchr(line, '\n');
		eol = eol ? eol : line + strlen(line);
		for (size_t i = 0; i < sizeof(quiet_prefixes) / sizeof(*quiet_prefixes); i++)
			ok |= !strncmp(line, quiet_prefixes[i], strlen(quiet_prefixes[i]));
		mx_check(ok, "%s printed in a clean run: %.*s", what, (int)(eol - line), line);
	}
}

const char *mx_fspv(const char *tag, char **argv)
{
	struct itest_proc p;

	itest_run_fspv(&p, tag, FSP_RUN_TIMEOUT_S, argv);
	mx_check(WIFEXITED(p.status) && WEXITSTATUS(p.status) == 0,
		 "fsp-bpf %s (%s): exit status 0x%x; stderr: %s", argv[1], tag, p.status,
		 p.err ? p.err : "");
	mx_check_quiet(tag, p.err);
	free(p.out);
	free(p.err);
	return out_slot(p.out_path);
}

const char *mx_fsp(const char *tag, ...)
{
	char *argv[64] = {NULL};
	int argc = 1;
	va_list ap;

	va_start(ap, tag);
	for (char *a; (a = va_arg(ap, char *)) && argc < 63;)
		argv[argc++] = a;
	va_end(ap);
	return mx_fspv(tag, argv);
}

void mx_check_same_file(const char *what, const char *a, const char *b)
{
	FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
	long off = 0;
	int x = 0, y = 0;

	assert_non_null(fa);
	assert_non_null(fb);
	while ((x = getc(fa)) == (y = getc(fb)) && x != EOF)
		off++;
	mx_check(x == y, "%s: %s and %s differ at byte %ld", what, a, b, off);
	fclose(fa);
	fclose(fb);
}

void mx_check_ends_with(const char *what, const char *a, const char *b)
{
	FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
	struct stat sa, sb;
	int x = 0, y = 0;

	assert_non_null(fa);
	assert_non_null(fb);
	assert_int_equal(fstat(fileno(fa), &sa), 0);
	assert_int_equal(fstat(fileno(fb), &sb), 0);
	if (mx_check(sa.st_size >= sb.st_size, "%s: %s is shorter than %s", what, a, b)) {
		assert_int_equal(fseeko(fa, sa.st_size - sb.st_size, SEEK_SET), 0);
		while ((x = getc(fa)) == (y = getc(fb)) && x != EOF)
			;
		mx_check(x == y, "%s: %s does not end with %s", what, a, b);
	}
	fclose(fa);
	fclose(fb);
}

/* report [--comm C] ARGS... SAVED (ARGS NULL-terminated): its stdout. */
static const char *report(const struct mx_saved *s, const char *tag, ...)
{
	char *argv[24] = {NULL, "report"};
	int argc = 2;
	va_list ap;

	if (s->comm) {
		argv[argc++] = "--comm";
		argv[argc++] = (char *)s->comm;
	}
	va_start(ap, tag);
	for (char *a; (a = va_arg(ap, char *)) && argc < 20;)
		argv[argc++] = a;
	va_end(ap);
	argv[argc++] = (char *)s->path;
	return mx_fspv(tag, argv);
}

/* The folded views: by feature, by thread (the same charges under each
 * thread's frames) and, with off-CPU time, the off-CPU nanoseconds. */
static void check_folded(const struct mx_saved *s, const struct mx_tally *ref)
{
	struct mx_tally v;
	char *text;

	text = itest_slurp(
		report(s, "report-folded", "--format", "folded", "--min-pct", "0", NULL));
	mx_view_folded(&v, text, 0, false);
	mx_compare(ref, &v);
	mx_tally_fini(&v);
	free(text);
	text = itest_slurp(report(s, "report-folded-thread", "--format", "folded", "--min-pct", "0",
				  "--by", "thread", NULL));
	mx_view_folded(&v, text, 2, false);
	mx_compare(ref, &v);
	mx_tally_fini(&v);
	free(text);
	if (!s->offcpu)
		return;
	text = itest_slurp(report(s, "report-folded-offcpu", "--format", "folded", "--min-pct", "0",
				  "--value", "offcpu", NULL));
	mx_view_folded(&v, text, 0, true);
	mx_compare(ref, &v);
	mx_tally_fini(&v);
	free(text);
}

/* The default text report (--min-pct 0.5) folds small features and
 * instances, but not a point event (a probe map's `event`): it has no time
 * to be small in, only its hits. (A feature whose few calls no sample saw,
 * libc:allocation's one call, has time, and is folded.) */
static void check_points(const struct mx_saved *s, const struct mx_tally *ref, uint64_t period)
{
	char *text = itest_slurp(report(s, "report-default", NULL));
	struct mx_tally v, nat;

	mx_view_text(&v, &nat, text, period);
	for (size_t i = 0; i < ref->nr; i++) {
		const struct mx_row *r = &ref->rows[i], *t;

		if (r->instance || !r->point)
			continue;
		t = mx_row(&v, r->feature, NULL);
		mx_check(t->calls == r->calls,
			 "the text report shows point event %s with %" PRIu64
			 " hits, the model has %" PRIu64,
			 r->feature, t->calls, r->calls);
	}
	mx_tally_fini(&v);
	mx_tally_fini(&nat);
	free(text);
}

static void check_views(const struct mx_saved *s, const struct mx_tally *ref, uint64_t period)
{
	const char *pb = itest_tmp("saved.pb.gz"), *html = itest_tmp("saved.html");
	const char *json = itest_tmp("saved.r.json");
	struct mx_tally v, nat;
	char *text;

	report(s, "report-json", "--format", "json", "-o", json, NULL);
	mx_view_json(&v, json);
	mx_compare(ref, &v);
	mx_tally_fini(&v);

	text = itest_slurp(report(s, "report-text", "--min-pct", "0", NULL));
	mx_view_text(&v, &nat, text, period);
	mx_compare(ref, &v);
	if (s->native) {
		mx_check(nat.has & MX_NATIVE_TOTAL, "the text report has no native section");
		mx_compare(ref, &nat);
	}
	mx_tally_fini(&v);
	mx_tally_fini(&nat);
	free(text);

	check_folded(s, ref);
	check_points(s, ref, period);

	report(s, "report-pprof", "--format", "pprof", "-o", pb, NULL);
	mx_view_pprof(&v, pb);
	mx_compare(ref, &v);
	mx_tally_fini(&v);

	report(s, "report-html", "--format", "html", "-o", html, NULL);
	mx_view_html(&v, html);
	mx_compare(ref, &v);
	mx_tally_fini(&v);
}

/* merge(a) = a and merge(a, a) = 2a, in every number of the model. */
static void check_merge(const struct mx_saved *s, const struct mx_tally *ref)
{
	const char *m1 = itest_tmp("merge1.json"), *m2 = itest_tmp("merge2.json");
	struct mx_tally twice = *ref, v;

	mx_fsp("merge1", "merge", "-o", m1, s->path, NULL);
	mx_tally_profile(&v, m1, NULL);
	mx_compare(ref, &v);
	mx_tally_fini(&v);

	mx_fsp("merge2", "merge", "-o", m2, s->path, s->path, NULL);
	mx_tally_profile(&v, m2, NULL);
	twice.rows = calloc(ref->cap ? ref->cap : 1, sizeof(*twice.rows));
	assert_non_null(twice.rows);
	for (size_t i = 0; i < ref->nr; i++) {
		twice.rows[i] = ref->rows[i];
		twice.rows[i].feature = strdup(ref->rows[i].feature);
		twice.rows[i].instance =
			ref->rows[i].instance ? strdup(ref->rows[i].instance) : NULL;
	}
	mx_tally_scale(&twice, 2);
	snprintf(twice.what, sizeof(twice.what), "2 x the model of the file");
	mx_compare(&twice, &v);
	mx_tally_fini(&v);
	mx_tally_fini(&twice);
}

/* A row of diff --format json: no change, and the file's own samples. */
static void check_diff_row(json_object *row, const char *what, uint64_t samples, bool known)
{
	const char *name = json_object_get_string(json_object_object_get(row, "name"));
	uint64_t base = itest_json_u64(row, "base_samples"),
		 new = itest_json_u64(row, "new_samples");

	mx_check(!json_object_get_boolean(json_object_object_get(row, "new")) &&
			 !json_object_get_boolean(json_object_object_get(row, "gone")) &&
			 base == new &&itest_json_double(row, "delta_ms") == 0.0,
		 "diff(a, a): %s %s changed (%" PRIu64 " -> %" PRIu64 " samples)", what, name, base,
		 new);
	if (known)
		mx_check(base == samples,
			 "diff(a, a): %s %s has %" PRIu64 " samples, the file %" PRIu64, what, name,
			 base, samples);
}

static void check_diff(const struct mx_saved *s, struct mx_tally *ref)
{
	const char *d = itest_tmp("diff.json");
	json_object *doc, *fs, *f, *rows;

	mx_fsp("diff", "diff", "--format", "json", "-o", d, s->path, s->path, NULL);
	doc = itest_json_load(d);
	mx_check(itest_json_double(json_object_object_get(doc, "totals"), "delta_ms") == 0.0,
		 "diff(a, a): the total changed");
	assert_true(json_object_object_get_ex(doc, "features", &fs));
	for (size_t i = 0; i < json_object_array_length(fs); i++) {
		const char *name;

		f = json_object_array_get_idx(fs, i);
		name = json_object_get_string(json_object_object_get(f, "name"));
		check_diff_row(f, "feature", mx_row(ref, name, NULL)->samples, true);
		assert_true(json_object_object_get_ex(f, "instances", &rows));
		for (size_t j = 0; j < json_object_array_length(rows); j++) {
			json_object *in = json_object_array_get_idx(rows, j);
			const char *iname =
				json_object_get_string(json_object_object_get(in, "name"));

			check_diff_row(in, "instance", mx_row(ref, name, iname)->samples, true);
		}
		assert_true(json_object_object_get_ex(f, "functions", &rows));
		for (size_t j = 0; j < json_object_array_length(rows); j++)
			check_diff_row(json_object_array_get_idx(rows, j), "function", 0, false);
	}
	assert_true(json_object_object_get_ex(doc, "functions", &rows));
	for (size_t j = 0; j < json_object_array_length(rows); j++)
		check_diff_row(json_object_array_get_idx(rows, j), "function", 0, false);
	json_object_put(doc);
}

/* The plug-in's result: its samples are its feature's, in a, merge(a) and
 * merge(a, a). */
static uint64_t plugin_samples(const char *tag, const char *path, const char *plugin)
{
	const char *out = itest_tmp("%s.json", tag);
	json_object *doc, *ps, *r;
	uint64_t n;

	mx_fsp(tag, "report", "--plugin", plugin, "--format", "json", "-o", out, path, NULL);
	doc = itest_json_load(out);
	assert_true(json_object_object_get_ex(doc, "plugins", &ps));
	assert_int_equal(json_object_array_length(ps), 1);
	assert_true(json_object_object_get_ex(json_object_array_get_idx(ps, 0), "result", &r));
	n = itest_json_u64(r, "samples");
	json_object_put(doc);
	return n;
}

static void check_plugin(const struct mx_saved *s, struct mx_tally *ref)
{
	const char *feature = !strcmp(s->plugin, "boundary") ? "contract" : "task";
	uint64_t want = mx_row(ref, feature, NULL)->samples, a, m1, m2;

	a = plugin_samples("plugin", s->path, s->plugin);
	m1 = plugin_samples("plugin-merge1", itest_tmp("merge1.json"), s->plugin);
	m2 = plugin_samples("plugin-merge2", itest_tmp("merge2.json"), s->plugin);
	mx_check(a == want && m1 == want && m2 == 2 * want,
		 "plug-in %s: %" PRIu64 " samples of %s in the file, %" PRIu64 " in merge(a), "
		 "%" PRIu64 " in merge(a, a); the feature has %" PRIu64,
		 s->plugin, a, feature, m1, m2, want);
}

void mx_check_saved(const struct mx_saved *s)
{
	struct mx_tally ref;
	uint64_t period = 0;
	unsigned long failed = mx_stats.failed;

	mx_tally_profile(&ref, s->path, &period);
	if (mx_stats.failed != failed)
		return; /* it does not read back: nothing to compare */
	mx_check_diagnostics(s->path, s->allowed_diags);
	mx_check(ref.total > 0, "the profile has no samples");
	mx_check(!s->native || ref.native_total > 0, "--stacks recorded no native stack");
	check_views(s, &ref, period);
	check_merge(s, &ref);
	check_diff(s, &ref);
	if (s->plugin)
		check_plugin(s, &ref);
	mx_tally_fini(&ref);
}
