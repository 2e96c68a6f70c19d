// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests of pprof (analysis/render/pprof/): the profile.proto decoded
 * with protobuf-c (locations, values, labels, --feature, the event view and
 * off-CPU time, the process filters and namespaced PIDs), and read by `go
 * tool pprof` when Go is installed.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "attrib.h"
#include "render_helpers.h"

/* ---- pprof --------------------------------------------------------------------------------- */

static void test_pprof_decode(void **state)
{
	struct profile *p = *state;
	Perftools__Profiles__Profile *prof = render_pprof(p, NULL);
	char buf[512];
	size_t i;

	/* the string table starts with "", and holds each string once */
	assert_true(prof->n_string_table > 1);
	assert_string_equal(prof->string_table[0], "");
	for (i = 1; i < prof->n_string_table; i++) {
		size_t j;

		assert_string_not_equal(prof->string_table[i], "");
		for (j = 1; j < i; j++)
			assert_string_not_equal(prof->string_table[i], prof->string_table[j]);
	}
	assert_int_equal(prof->n_sample_type, 2);
	assert_int_equal(prof->default_sample_type, 0); /* the last: cpu */
	assert_string_equal(str(prof, prof->sample_type[0]->type), "samples");
	assert_string_equal(str(prof, prof->sample_type[0]->unit), "count");
	assert_string_equal(str(prof, prof->sample_type[1]->type), "cpu");
	assert_string_equal(str(prof, prof->sample_type[1]->unit), "nanoseconds");
	assert_non_null(prof->period_type);
	assert_string_equal(str(prof, prof->period_type->type), "cpu");
	assert_string_equal(str(prof, prof->period_type->unit), "nanoseconds");
	assert_int_equal(prof->period, 1000000);
	assert_int_equal(prof->time_nanos, 1700000000250000000LL);
	assert_int_equal(prof->duration_nanos, 3000000000LL);
	assert_int_equal(prof->n_comment, 2);
	assert_string_equal(str(prof, prof->comment[0]),
			    "fsp-bpf 0.1.0: feature profile of pid 1234 (demo)");
	assert_int_equal(prof->n_mapping, 1);
	assert_true(prof->mapping[0]->has_functions);

	/* one function and location per feature and per (feature, instance) */
	assert_int_equal(prof->n_function, 6);
	assert_int_equal(prof->n_location, 6);
	for (i = 0; i < prof->n_function; i++) {
		const Perftools__Profiles__Function *f = prof->function[i];

		assert_int_equal(f->id, i + 1);
		if (!strcmp(str(prof, f->name), "Output: fizzbuzz.c:8"))
			assert_string_equal(str(prof, f->system_name), "fizzbuzz.c:8");
		if (!strcmp(str(prof, f->name), "Output"))
			assert_string_equal(str(prof, f->system_name), "Output");
	}

	/* one sample per charge of each (thread, stack), in profile order */
	assert_int_equal(prof->n_sample, 6);
	describe(prof, prof->sample[0], buf, sizeof(buf));
	assert_string_equal(buf, "Output: fizzbuzz.c:8|Output 50/50000000 pid=1234 tid=1234 "
				 "thread=demo process=demo");
	describe(prof, prof->sample[1], buf, sizeof(buf));
	assert_string_equal(buf, "Output: fizzbuzz.c:7|Output 10/10000000 pid=1234 tid=1235 "
				 "thread=worker process=demo");
	/* the nested stack charges both features: two samples */
	describe(prof, prof->sample[2], buf, sizeof(buf));
	assert_string_equal(buf, "Output: fizzbuzz.c:8|Output 20/20000000 pid=1234 tid=1234 "
				 "thread=demo process=demo");
	describe(prof, prof->sample[3], buf, sizeof(buf));
	assert_string_equal(buf, "Generic sequences: fizzbuzz.c:3|Generic sequences 20/20000000 "
				 "pid=1234 tid=1234 thread=demo process=demo");
	describe(prof, prof->sample[4], buf, sizeof(buf));
	assert_string_equal(buf, "(no feature) 5/5000000 pid=1234 tid=1235 thread=worker "
				 "process=demo");
	describe(prof, prof->sample[5], buf, sizeof(buf));
	assert_string_equal(buf, "(no feature) 15/15000000 pid=1234 tid=1234 thread=demo "
				 "process=demo");
	perftools__profiles__profile__free_unpacked(prof, NULL);
}

static void test_pprof_feature_and_labels(void **state)
{
	struct report_opts o = {.feature = "Generic sequences"};
	struct profile *p = *state, *m;
	Perftools__Profiles__Profile *prof;
	char buf[512];
	char *gz = NULL;
	size_t len = 0;
	FILE *f;

	prof = render_pprof(p, &o);
	assert_int_equal(prof->n_sample, 1);
	describe(prof, prof->sample[0], buf, sizeof(buf));
	assert_string_equal(buf, "Generic sequences: fizzbuzz.c:3|Generic sequences 20/20000000 "
				 "pid=1234 tid=1234 thread=demo process=demo");
	assert_int_equal(prof->n_function, 2);
	perftools__profiles__profile__free_unpacked(prof, NULL);

	o.feature = "nope";
	f = open_memstream(&gz, &len);
	assert_non_null(f);
	assert_int_equal(report__pprof(f, p, &o), -ENOENT);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(len, 0);
	free(gz);

	/* merged: a source label; the same instance label in two features
	 * stays two functions; unknown comms give no name labels */
	m = merged_profile();
	ADD_STACK(m, 100, 2, MARK("G", "f"), MARK("F", "f"));
	ADD_SAMPLES(m, 100, 101, 2, 1);
	prof = render_pprof(m, NULL);
	assert_int_equal(prof->n_sample, 6);
	describe(prof, prof->sample[0], buf, sizeof(buf));
	assert_string_equal(buf, "F: f|F 10/10000000 pid=100 tid=100 thread=app process=app "
				 "source=alpha");
	describe(prof, prof->sample[2], buf, sizeof(buf));
	assert_string_equal(buf, "F: f|F 30/30000000 pid=100 tid=100 thread=app process=app "
				 "source=beta#2");
	describe(prof, prof->sample[4], buf, sizeof(buf));
	assert_string_equal(buf, "F: f|F 1/1000000 pid=100 tid=101 process=app source=alpha");
	describe(prof, prof->sample[5], buf, sizeof(buf));
	assert_string_equal(buf, "G: f|G 1/1000000 pid=100 tid=101 process=app source=alpha");
	assert_int_equal(prof->n_function, 4);
	perftools__profiles__profile__free_unpacked(prof, NULL);
	profile__free(m);
}

static void test_pprof_empty_and_errors(void **state)
{
	struct profile *p = *state, *e = profile__new();
	Perftools__Profiles__Profile *prof;
	FILE *f;

	/* no metadata, no samples: still a valid profile */
	assert_non_null(e);
	prof = render_pprof(e, NULL);
	assert_int_equal(prof->n_sample, 0);
	assert_int_equal(prof->period, 0);
	assert_int_equal(prof->time_nanos, 0);
	assert_string_equal(prof->string_table[0], "");
	perftools__profiles__profile__free_unpacked(prof, NULL);
	profile__free(e);

	f = fopen("/dev/full", "w");
	if (f) {
		assert_int_equal(report__pprof(f, p, NULL), -ENOSPC);
		fclose(f);
	}
	assert_int_equal(report__pprof(NULL, p, NULL), -EINVAL);
	assert_int_equal(report__pprof(stdout, NULL, NULL), -EINVAL);
}

/* The sample types of prof as "type/unit,...". */
static void types_of(const Perftools__Profiles__Profile *prof, char *buf, size_t size)
{
	size_t i, len = 0;

	buf[0] = 0;
	for (i = 0; i < prof->n_sample_type; i++)
		len += snprintf(buf + len, size - len, "%s%s/%s", i ? "," : "",
				str(prof, prof->sample_type[i]->type),
				str(prof, prof->sample_type[i]->unit));
}

static void test_pprof_events_offcpu(void **state)
{
	struct profile *p = rich_profile(true, true);
	struct report_opts o = {.feature = "Short"};
	Perftools__Profiles__Profile *prof;
	static const char *const want[] = {
		"Output: fizzbuzz.c:8|Output 50/50000000/40000000/0/0 pid=1234 tid=1234 "
		"thread=demo process=demo",
		"Output: fizzbuzz.c:7|Output 10/10000000/0/0/0 pid=1234 tid=1235 thread=worker "
		"process=demo",
		"Output: fizzbuzz.c:8|Output 20/20000000/0/0/0 pid=1234 tid=1234 thread=demo "
		"process=demo",
		"Generic sequences: fizzbuzz.c:3|Generic sequences 20/20000000/0/0/0 pid=1234 "
		"tid=1234 thread=demo process=demo",
		"(no feature) 5/5000000/30000000/0/0 pid=1234 tid=1235 thread=worker process=demo",
		"(no feature) 15/15000000/2500000/0/0 pid=1234 tid=1234 thread=demo process=demo",
		/* the event view: one sample per record, labeled with its process */
		"Output: fizzbuzz.c:8|Output 0/0/0/1000/110000000 pid=1234 process=demo",
		"Output: fizzbuzz.c:7|Output 0/0/0/200/10000000 pid=1234 process=demo",
		"Short: short.c:1|Short 0/0/0/5000/250000 pid=1234 process=demo",
		"Short: short.c:2|Short 0/0/0/3/0 pid=1234 process=demo",
		"Tiny: (no instance)|Tiny 0/0/0/2/2000 pid=1234 process=demo",
	};
	char buf[512];
	size_t i;

	(void)state;
	prof = render_pprof(p, NULL);
	types_of(prof, buf, sizeof(buf));
	assert_string_equal(buf, "samples/count,cpu/nanoseconds,offcpu/nanoseconds,calls/count,"
				 "event_time/nanoseconds");
	/* cpu stays the type readers show by default */
	assert_string_equal(str(prof, prof->default_sample_type), "cpu");
	assert_string_equal(str(prof, prof->period_type->type), "cpu");
	assert_int_equal(prof->n_comment, 4);
	assert_non_null(strstr(str(prof, prof->comment[2]), "offcpu: off-CPU time"));
	assert_non_null(strstr(str(prof, prof->comment[3]), "calls, event_time: exact counts"));
	assert_int_equal(prof->n_sample, sizeof(want) / sizeof(want[0]));
	for (i = 0; i < prof->n_sample; i++) {
		describe(prof, prof->sample[i], buf, sizeof(buf));
		assert_string_equal(buf, want[i]);
	}
	/* features and instances seen only by the probes have functions too */
	assert_int_equal(prof->n_function, 11);
	perftools__profiles__profile__free_unpacked(prof, NULL);

	/* --feature: that feature's event samples, all the sample types */
	prof = render_pprof(p, &o);
	assert_int_equal(prof->n_sample_type, 5);
	assert_int_equal(prof->n_sample, 2);
	describe(prof, prof->sample[0], buf, sizeof(buf));
	assert_string_equal(buf, "Short: short.c:1|Short 0/0/0/5000/250000 pid=1234 process=demo");
	perftools__profiles__profile__free_unpacked(prof, NULL);
	profile__free(p);

	/* only events: no offcpu type */
	p = rich_profile(true, false);
	prof = render_pprof(p, &o);
	types_of(prof, buf, sizeof(buf));
	assert_string_equal(buf, "samples/count,cpu/nanoseconds,calls/count,"
				 "event_time/nanoseconds");
	assert_string_equal(str(prof, prof->default_sample_type), "cpu");
	assert_int_equal(prof->n_comment, 3);
	describe(prof, prof->sample[1], buf, sizeof(buf));
	assert_string_equal(buf, "Short: short.c:2|Short 0/0/3/0 pid=1234 process=demo");
	perftools__profiles__profile__free_unpacked(prof, NULL);
	profile__free(p);

	/* only off-CPU time: a stack seen only off CPU is a sample of 0 samples */
	p = rich_profile(false, true);
	ADD_STACK(p, 1234, 0x6, MARK("Sleep", "sleep.c:1"));
	ADD_OFFCPU(p, 1234, 1234, 0x6, 3000000);
	prof = render_pprof(p, NULL);
	types_of(prof, buf, sizeof(buf));
	assert_string_equal(buf, "samples/count,cpu/nanoseconds,offcpu/nanoseconds");
	assert_int_equal(prof->n_sample, 7);
	describe(prof, prof->sample[6], buf, sizeof(buf));
	assert_string_equal(buf, "Sleep: sleep.c:1|Sleep 0/0/3000000 pid=1234 tid=1234 "
				 "thread=demo process=demo");
	perftools__profiles__profile__free_unpacked(prof, NULL);
	profile__free(p);

	/* merged: event samples carry the source label */
	p = merged_profile();
	assert_int_equal(profile__use_source(p, 2), 0);
	add_events(p, 100, "F", "f", 7, 7, 700, 100, 100);
	prof = render_pprof(p, NULL);
	describe(prof, prof->sample[prof->n_sample - 1], buf, sizeof(buf));
	assert_string_equal(buf, "F: f|F 0/0/7/700 pid=100 process=app source=beta#2");
	perftools__profiles__profile__free_unpacked(prof, NULL);
	profile__free(p);
}

static void test_pprof_filter_and_nspid(void **state)
{
	struct report_opts o = {.comm = "nginx"};
	struct profile *p = container_profile();
	Perftools__Profiles__Profile *prof;
	char buf[512];

	(void)state;
	/* an nspid label on the samples of processes that have one */
	prof = render_pprof(p, NULL);
	assert_int_equal(prof->n_sample, 6);
	describe(prof, prof->sample[0], buf, sizeof(buf));
	assert_string_equal(buf, "Output: fizzbuzz.c:8|Output 60/60000000/0/0 pid=1234 tid=1234 "
				 "thread=demo process=demo");
	describe(prof, prof->sample[3], buf, sizeof(buf));
	assert_string_equal(buf, "Parse: req.c:4|Parse 10/10000000/0/0 pid=5000 nspid=1 tid=5001 "
				 "thread=nginx process=nginx");
	describe(prof, prof->sample[5], buf, sizeof(buf));
	assert_string_equal(buf, "Output: srv.c:1|Output 0/0/100/5000000 pid=5000 nspid=1 "
				 "process=nginx");
	assert_int_equal(prof->n_comment, 3);
	perftools__profiles__profile__free_unpacked(prof, NULL);

	/* filtered: that process's samples and events; a comment says so */
	prof = render_pprof(p, &o);
	assert_int_equal(prof->n_sample, 3);
	describe(prof, prof->sample[0], buf, sizeof(buf));
	assert_string_equal(buf, "Output: srv.c:1|Output 30/30000000/0/0 pid=5000 nspid=1 "
				 "tid=5000 thread=nginx process=nginx");
	assert_int_equal(prof->n_comment, 4);
	assert_string_equal(str(prof, prof->comment[1]),
			    "filter: comm nginx: 1 of 3 processes, 40 of 160 samples");
	perftools__profiles__profile__free_unpacked(prof, NULL);
	o = (struct report_opts){.pid = "6000", .feature = "Parse,Output"};
	prof = render_pprof(p, &o);
	assert_int_equal(prof->n_sample, 1);
	/* no events left: no calls types */
	assert_int_equal(prof->n_sample_type, 2);
	describe(prof, prof->sample[0], buf, sizeof(buf));
	assert_string_equal(buf, "Parse: cmd.c:2|Parse 20/20000000 pid=6000 nspid=1 tid=6000 "
				 "thread=redis-server process=redis-server");
	perftools__profiles__profile__free_unpacked(prof, NULL);
	profile__free(p);
}

/* ---- go tool pprof ------------------------------------------------------------------------- */

static bool have_go(void)
{
	return system("command -v go >/dev/null 2>&1") == 0;
}

/* Copies file dir/name to stderr, to show what a failed command said. */
static void dump(const char *dir, const char *name)
{
	char path[256];
	FILE *f;
	int c;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	if (!f)
		return;
	while ((c = getc(f)) != EOF)
		fputc(c, stderr);
	fclose(f);
}

/* Runs `go tool pprof ARGS FILE` in dir; returns its stdout (free it) and
 * asserts that it succeeded without a word on stderr. go wants a writable
 * HOME and caches (dir's), and a newer go must not look for another
 * toolchain (GOTOOLCHAIN=local; go 1.19 ignores it): there is no network. */
static char *go_pprof(const char *dir, const char *args, const char *file)
{
	char cmd[1024], path[256], *out;
	FILE *f;
	long n;

	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && HOME='%s' GOCACHE='%s/cache' GOPATH='%s/gopath' "
		 "PPROF_TMPDIR='%s' GOFLAGS= GOTOOLCHAIN=local go tool pprof %s '%s' "
		 ">out.txt 2>err.txt",
		 dir, dir, dir, dir, dir, args, file);
	if (system(cmd)) {
		dump(dir, "err.txt");
		fail_msg("go tool pprof %s failed", args);
	}
	snprintf(path, sizeof(path), "%s/err.txt", dir);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	fclose(f);
	if (n) {
		dump(dir, "err.txt");
		fail_msg("go tool pprof %s printed warnings", args);
	}
	snprintf(path, sizeof(path), "%s/out.txt", dir);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	rewind(f);
	out = calloc(1, n + 1);
	assert_non_null(out);
	assert_int_equal(fread(out, 1, n, f), (size_t)n);
	fclose(f);
	return out;
}

/* The flat and cum columns of function `name` in -top output, as "flat/cum". */
static void top_row(const char *top, const char *name, char *buf, size_t size)
{
	const char *line = top;
	char flat[32], cum[32], fp[32], sp[32], cp[32];
	int off;

	buf[0] = 0;
	while (line && *line) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);

		if (sscanf(line, "%31s %31s %31s %31s %31s %n", flat, fp, sp, cum, cp, &off) == 5 &&
		    (size_t)off < len && len - off == strlen(name) &&
		    !strncmp(line + off, name, len - off) && strchr(fp, '%')) {
			snprintf(buf, size, "%s/%s", flat, cum);
			return;
		}
		line = end ? end + 1 : NULL;
	}
	fail_msg("no row for %s in:\n%s", name, top);
}

static void test_go_tool_pprof(void **state)
{
	struct profile *p = *state;
	struct attrib *a;
	char dir[] = "/tmp/fsp-unit-pprof-XXXXXX", path[128], row[64], want[64], cmd[160];
	const struct attrib_feature *f;
	char *top, *raw;
	size_t i, j;
	FILE *out;

	if (!have_go()) {
		fprintf(stderr, "!!! SKIPPED: `go` is not in PATH, `go tool pprof` was not run on "
				"our pprof output (Debian: apt-get install golang-go)\n");
		skip();
	}
	assert_non_null(mkdtemp(dir));
	/* a second process, an instance shared by two features, no instance */
	ADD_STACK(p, 99, 0x1, MARK("Regex", "re:1"), ANTI("Regex"), MARK("Output", NULL));
	ADD_STACK(p, 99, 0x2, MARK("Regex", "fizzbuzz.c:8"));
	ADD_SAMPLES(p, 99, 100, 0x1, 7);
	ADD_SAMPLES(p, 99, 100, 0x2, 4);
	snprintf(path, sizeof(path), "%s/profile.pb.gz", dir);
	out = fopen(path, "w");
	assert_non_null(out);
	assert_int_equal(report__pprof(out, p, NULL), 0);
	assert_int_equal(fclose(out), 0);

	top = go_pprof(dir, "-sample_index=samples -top -nodecount=1000", "profile.pb.gz");
	/* every instance: flat = cum = its charged samples; every feature:
	 * flat 0, cum = its samples; (no feature): the uncharged ones */
	a = attrib__compute(p, NULL);
	assert_non_null(a);
	for (i = 0; i < attrib__nr_features(a); i++) {
		f = attrib__feature(a, i);
		top_row(top, f->name, row, sizeof(row));
		snprintf(want, sizeof(want), "0/%llu", (unsigned long long)f->samples);
		assert_string_equal(row, want);
		for (j = 0; j < f->nr_instances; j++) {
			char name[128];

			snprintf(name, sizeof(name), "%s: %s", f->name, f->instances[j].name);
			top_row(top, name, row, sizeof(row));
			snprintf(want, sizeof(want), "%llu/%llu",
				 (unsigned long long)f->instances[j].samples,
				 (unsigned long long)f->instances[j].samples);
			assert_string_equal(row, want);
		}
	}
	top_row(top, "(no feature)", row, sizeof(row));
	snprintf(want, sizeof(want), "%llu/%llu", (unsigned long long)attrib__uncharged_samples(a),
		 (unsigned long long)attrib__uncharged_samples(a));
	assert_string_equal(row, want);
	/* the header: our comment, the type, the total of the charges */
	assert_non_null(strstr(top, "fsp-bpf 0.1.0: feature profile of pid 1234 (demo)\n"));
	assert_non_null(strstr(top, "Type: samples\n"));
	assert_non_null(strstr(top, "Total samples = 131 \n"));
	free(top);

	/* the default sample type is cpu time */
	top = go_pprof(dir, "-top -nodecount=1000", "profile.pb.gz");
	top_row(top, "Output: fizzbuzz.c:8", row, sizeof(row));
	assert_string_equal(row, "70ms/70ms");
	top_row(top, "Regex: fizzbuzz.c:8", row, sizeof(row));
	assert_string_equal(row, "4ms/4ms");
	assert_non_null(strstr(top, "Duration: 3s, Total samples = 131ms"));
	free(top);

	/* labels and the raw view load too */
	raw = go_pprof(dir, "-raw", "profile.pb.gz");
	assert_non_null(strstr(raw, "PeriodType: cpu nanoseconds\nPeriod: 1000000\n"));
	assert_non_null(strstr(raw, "pid:[99] tid:[100]"));
	assert_non_null(strstr(raw, "process:[demo] thread:[worker]"));
	free(raw);
	raw = go_pprof(dir, "-tagfocus=thread=worker -sample_index=samples -top", "profile.pb.gz");
	top_row(raw, "Output: fizzbuzz.c:7", row, sizeof(row));
	assert_string_equal(row, "10/10");
	assert_null(strstr(raw, "fizzbuzz.c:8"));
	free(raw);

	attrib__free(a);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/* The sample types calls and offcpu, as go tool pprof reads them. */
static void test_go_tool_pprof_events(void **state)
{
	char dir[] = "/tmp/fsp-unit-pprof-XXXXXX", path[128], row[64], cmd[160];
	struct profile *p = rich_profile(true, true);
	char *top;
	FILE *out;

	(void)state;
	if (!have_go()) {
		fprintf(stderr, "!!! SKIPPED: `go` is not in PATH, `go tool pprof` was not run on "
				"our pprof output (Debian: apt-get install golang-go)\n");
		profile__free(p);
		skip();
	}
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/profile.pb.gz", dir);
	out = fopen(path, "w");
	assert_non_null(out);
	assert_int_equal(report__pprof(out, p, NULL), 0);
	assert_int_equal(fclose(out), 0);

	/* calls: each instance's exact count, each feature's sum, also of the
	 * features sampling never saw */
	top = go_pprof(dir, "-sample_index=calls -top -nodecount=1000 -nodefraction=0",
		       "profile.pb.gz");
	assert_non_null(strstr(top, "Type: calls\n"));
	assert_non_null(strstr(top, "Total samples = 6205 \n"));
	top_row(top, "Output: fizzbuzz.c:8", row, sizeof(row));
	assert_string_equal(row, "1000/1000");
	top_row(top, "Output", row, sizeof(row));
	assert_string_equal(row, "0/1200");
	top_row(top, "Short: short.c:2", row, sizeof(row));
	assert_string_equal(row, "3/3");
	top_row(top, "Short", row, sizeof(row));
	assert_string_equal(row, "0/5003");
	top_row(top, "Tiny: (no instance)", row, sizeof(row));
	assert_string_equal(row, "2/2");
	assert_null(strstr(top, "Generic sequences"));
	free(top);

	/* offcpu: the charged off-CPU time, the uncharged at (no feature) */
	top = go_pprof(dir, "-sample_index=offcpu -top -nodecount=1000", "profile.pb.gz");
	assert_non_null(strstr(top, "Type: offcpu\n"));
	assert_non_null(strstr(top, "Total samples = 72.50ms"));
	top_row(top, "Output: fizzbuzz.c:8", row, sizeof(row));
	assert_string_equal(row, "40ms/40ms");
	top_row(top, "(no feature)", row, sizeof(row));
	assert_string_equal(row, "32.50ms/32.50ms");
	free(top);

	/* event_time, and the default: cpu, as without events */
	top = go_pprof(dir, "-sample_index=event_time -top -nodecount=1000", "profile.pb.gz");
	top_row(top, "Output", row, sizeof(row));
	assert_string_equal(row, "0/120ms");
	free(top);
	top = go_pprof(dir, "-top -nodecount=1000", "profile.pb.gz");
	assert_non_null(strstr(top, "Type: cpu\n"));
	assert_non_null(strstr(top, "Total samples = 120ms"));
	top_row(top, "Output: fizzbuzz.c:8", row, sizeof(row));
	assert_string_equal(row, "70ms/70ms");
	free(top);
	top = go_pprof(dir, "-raw", "profile.pb.gz");
	/* cpu is the default ("[dflt]") */
	assert_non_null(strstr(top, "samples/count cpu/nanoseconds[dflt] offcpu/nanoseconds "
				    "calls/count event_time/nanoseconds"));
	free(top);

	profile__free(p);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_pprof_decode, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pprof_feature_and_labels, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pprof_empty_and_errors, setup, teardown),
		cmocka_unit_test(test_pprof_events_offcpu),
		cmocka_unit_test(test_pprof_filter_and_nspid),
		cmocka_unit_test_setup_teardown(test_go_tool_pprof, setup, teardown),
		cmocka_unit_test(test_go_tool_pprof_events),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
