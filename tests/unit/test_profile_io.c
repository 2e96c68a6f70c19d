// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Unit tests of the profile file (analysis/io/profile_io.h): writing, reading,
 * round trips, the reader's errors and limits, the atomic save. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "attrib.h"
#include "profile_io.h"
#include "report.h"
#include "merge.h"
#include "unit_helpers.h"

/* ---- fixtures and helpers -------------------------------------------------------------- */

/* The start of a version 2 file, for hand-written inputs. */
#define HEAD_V2 "{\"version\":2,\"tool\":\"fsp-bpf\","

static const struct profile_meta rich_meta = {
	.target = "pid 1234 (demo)",
	.command_line = "fsp-bpf record -p 1234 -o demo.json",
	.host = "testhost",
	.kernel = "6.1.0-test",
	.tool_version = "0.1.0",
	.marks = "v2,v1,mapped",
	.frequency_hz = 999,
	.period_ns = 1001001,
	.start_time = 1700000000.25,
	.end_time = 1700000003.125,
	.duration_s = 2.875,
};

/*
 * A profile using everything the model holds: threads with and without
 * names, marks with and without instances, antimarks, a 64-bit key and
 * payload, the empty stack, an unknown stack, off-CPU time, event
 * statistics, diagnostics (one at UINT64_MAX), odd strings, a process in
 * another PID namespace (77, pid 5 in its container).
 */
static struct profile *rich_profile(void)
{
	struct profile_event_stats ev = {
		.enters = 10, .leaves = 9, .total_ns = 12345, .max_ns = 4000};
	struct profile *p = profile__new();

	assert_non_null(p);
	assert_int_equal(profile__set_meta(p, &rich_meta), 0);
	assert_int_equal(profile__add_pid(p, 1234), 0);
	assert_int_equal(profile__add_pid(p, 77), 0);
	assert_int_equal(profile__set_process_nspid(p, 77, 5), 0);
	assert_int_equal(profile__add_thread(p, 1234, 1234, "demo"), 0);
	assert_int_equal(profile__add_thread(p, 1234, 1235, NULL), 0);
	assert_int_equal(profile__add_thread(p, 77, 78, "say \"hi\"\n\x01/"), 0);
	ADD_STACK(p, 1234, 0x1, MARK("Output", "fizzbuzz.c:8"));
	ADD_STACK(p, 1234, UINT64_MAX, MARK("Generic sequences", "fizzbuzz.c:3"),
		  MARKP("Output", "fizzbuzz.c:8", UINT64_MAX));
	ADD_STACK(p, 1234, 0x8000000000000000ULL, MARK("Generic sequences", NULL),
		  ANTI("Generic sequences"));
	ADD_STACK(p, 77, 0x1, MARK("caf\xc3\xa9 \xe2\x82\xac", "\xf0\x9f\x98\x80 emoji"));
	ADD_SAMPLES(p, 1234, 1234, 0x1, 50);
	ADD_SAMPLES(p, 1234, 1235, UINT64_MAX, 20);
	ADD_SAMPLES(p, 1234, 1234, 0x8000000000000000ULL, 5);
	ADD_SAMPLES(p, 1234, 1234, 0, 15);
	ADD_SAMPLES(p, 77, 78, 0x1, 1);
	assert_int_equal(profile__add_samples(p, 1234, 1235, 0xbad, 3), -ENOENT);
	assert_int_equal(profile__add_offcpu(p, 1234, 1234, 0x1, 777), 0);
	/* off-CPU time alone makes a sample entry of count 0 */
	assert_int_equal(profile__add_offcpu(p, 77, 79, 0x1, 5), 0);
	ev.hist[3] = 4;
	ev.hist[12] = 5;
	assert_int_equal(profile__add_events(p, 1234, "Output", "fizzbuzz.c:8", &ev), 0);
	ev.hist[PROFILE_HIST_BUCKETS - 1] = 1;
	assert_int_equal(profile__add_events(p, 77, "Regex", NULL, &ev), 0);
	profile__set_diag(p, DIAG_LOST_SAMPLES, UINT64_MAX);
	profile__set_diag(p, DIAG_UNKNOWN_STACKS, 3);
	profile__set_diag(p, DIAG_ATTACH_ERRORS, 1);
	return p;
}

/*
 * A merged profile: two sessions (sources) with their metadata and
 * diagnostics, the same PID and stack key in both, standing for different
 * processes and stacks.
 */
static struct profile *merged_profile(void)
{
	struct profile_meta m1 = rich_meta, m2 = rich_meta,
			    top = {.target = "merge of 2", .tool_version = "0.1.0"};
	uint64_t d1[DIAG__COUNT] = {[DIAG_LOST_SAMPLES] = 4};
	uint64_t d2[DIAG__COUNT] = {[DIAG_STALE_MARKS] = 2, [DIAG_TRUNCATED] = 9};
	struct profile *p = profile__new();

	assert_non_null(p);
	m2.host = "otherhost";
	m2.kernel = NULL;
	m2.start_time = NAN; /* not known: written as null */
	m2.frequency_hz = 99;
	m2.period_ns = 10101010;
	assert_int_equal(profile__set_meta(p, &top), 0);
	assert_int_equal(profile__add_source(p, &m1, d1), 0);
	assert_int_equal(profile__add_source(p, &m2, d2), 1);
	for (uint32_t src = 0; src < 2; src++) {
		assert_int_equal(profile__use_source(p, src), 0);
		assert_int_equal(profile__add_thread(p, 100, 100, src ? "second" : "first"), 0);
		ADD_STACK(p, 100, 0x42, MARK(src ? "B" : "A", "i"));
		ADD_SAMPLES(p, 100, 100, 0x42, 10 + src);
		ADD_SAMPLES(p, 100, 101, 0, 1);
	}
	assert_int_equal(profile__use_source(p, 0), 0);
	profile__set_diag(p, DIAG_LOST_SAMPLES, 4);
	return p;
}

/* The profile file of p as a string (free it); *len its length. */
static char *write_str(const struct profile *p, size_t *len)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	assert_non_null(f);
	assert_int_equal(profile__write_json(f, p), 0);
	assert_int_equal(fclose(f), 0);
	if (len)
		*len = n;
	return buf;
}

/* Parses text. (Called twice per input by the checks below: the reader must
 * be deterministic, the same profile or the same message each time.) The
 * second time (again false) it reads text from a file 7 bytes at a time,
 * giving json-c 5 bytes at a time: chunk and window boundaries everywhere
 * must change nothing. */
static struct profile *parse_path(const char *text, size_t len, const char *name, bool again,
				  char *err, size_t errlen)
{
	struct profile_read_opts small = {.chunk = 7, .window = 5};
	struct profile *p;
	int fd;

	if (again)
		return profile__parse_json(text, len, name, err, errlen);
	fd = memfd_create("fsp-pio", MFD_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	p = profile__read_fd(fd, name, &small, err, errlen);
	close(fd);
	return p;
}

/* Parses text, which must be a profile, twice: both reads must give the same
 * profile (compared by the bytes written). */
static struct profile *parse_ok(const char *text, size_t len)
{
	char err[512] = "", *a, *b;
	struct profile *p = parse_path(text, len, "t.json", true, err, sizeof(err)), *q;

	if (!p)
		fail_msg("parse failed: %s", err);
	assert_string_equal(err, "");
	q = parse_path(text, len, "t.json", false, err, sizeof(err));
	if (!q)
		fail_msg("second parse failed: %s", err);
	a = write_str(p, NULL);
	b = write_str(q, NULL);
	assert_string_equal(a, b);
	free(a);
	free(b);
	profile__free(q);
	return p;
}

/* Parsing text fails with a one-line message naming the file and containing
 * each of the expected phrases; the same message when parsed again. */
static void parse_bad_len(const char *text, size_t len, const char *expect, const char *expect2)
{
	char err[512] = "", again[512] = "";
	struct profile *p = parse_path(text, len, "bad.json", true, err, sizeof(err));

	if (p) {
		profile__free(p);
		fail_msg("parsed, expected \"%s\": %.200s", expect, text);
	}
	if (strncmp(err, "bad.json: ", 10) || !strstr(err, expect) ||
	    (expect2 && !strstr(err, expect2)))
		fail_msg("message \"%s\", expected \"%s\"%s%s", err, expect, expect2 ? " and " : "",
			 expect2 ? expect2 : "");
	assert_null(strchr(err, '\n'));
	p = parse_path(text, len, "bad.json", false, again, sizeof(again));
	if (p) {
		profile__free(p);
		fail_msg("parsed the second time, expected \"%s\"", err);
	}
	assert_string_equal(err, again);
}

static void parse_bad(const char *text, const char *expect, const char *expect2)
{
	parse_bad_len(text, strlen(text), expect, expect2);
}

static int same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

static int same_real(double a, double b)
{
	return (isnan(a) && isnan(b)) || a == b;
}

static void assert_meta_equal(const struct profile_meta *a, const struct profile_meta *b)
{
	assert_true(same_str(a->target, b->target));
	assert_true(same_str(a->command_line, b->command_line));
	assert_true(same_str(a->host, b->host));
	assert_true(same_str(a->kernel, b->kernel));
	assert_true(same_str(a->tool_version, b->tool_version));
	assert_true(same_str(a->marks, b->marks));
	assert_true(a->frequency_hz == b->frequency_hz);
	assert_true(a->period_ns == b->period_ns);
	assert_true(same_real(a->start_time, b->start_time));
	assert_true(same_real(a->end_time, b->end_time));
	assert_true(same_real(a->duration_s, b->duration_s));
}

static void assert_frames_equal(const struct profile_frame *a, const struct profile_frame *b,
				size_t depth)
{
	for (size_t j = 0; j < depth; j++) {
		assert_int_equal(a[j].kind, b[j].kind);
		assert_string_equal(a[j].feature, b[j].feature);
		assert_true(same_str(a[j].instance, b[j].instance));
		assert_true(a[j].payload == b[j].payload);
	}
}

/* Everything the model holds, field by field. */
static void assert_profiles_equal(const struct profile *a, const struct profile *b)
{
	size_t i, n;
	int d;

	assert_meta_equal(profile__meta(a), profile__meta(b));
	assert_int_equal(profile__nr_sources(a), profile__nr_sources(b));
	for (i = 0; i < profile__nr_sources(a); i++) {
		struct profile_source sa, sb;

		assert_int_equal(profile__source(a, i, &sa), 0);
		assert_int_equal(profile__source(b, i, &sb), 0);
		assert_meta_equal(sa.meta, sb.meta);
		assert_memory_equal(sa.diag, sb.diag, DIAG__COUNT * sizeof(uint64_t));
	}
	assert_int_equal(profile__nr_pids(a), profile__nr_pids(b));
	for (i = 0; i < profile__nr_pids(a); i++) {
		struct profile_process pa, pb;

		assert_int_equal(profile__process(a, i, &pa), 0);
		assert_int_equal(profile__process(b, i, &pb), 0);
		assert_int_equal(pa.source, pb.source);
		assert_int_equal(pa.pid, pb.pid);
		assert_int_equal(pa.nspid, pb.nspid);
	}
	assert_int_equal(profile__nr_threads(a), profile__nr_threads(b));
	for (i = 0; i < profile__nr_threads(a); i++) {
		struct profile_thread ta, tb;

		assert_int_equal(profile__thread(a, i, &ta), 0);
		assert_int_equal(profile__thread(b, i, &tb), 0);
		assert_int_equal(ta.source, tb.source);
		assert_int_equal(ta.pid, tb.pid);
		assert_int_equal(ta.tid, tb.tid);
		assert_string_equal(ta.comm, tb.comm);
		assert_true(ta.samples == tb.samples);
	}
	assert_int_equal(profile__nr_stacks(a), profile__nr_stacks(b));
	for (i = 0; i < profile__nr_stacks(a); i++) {
		struct profile_stack sa, sb;

		assert_int_equal(profile__stack(a, i, &sa), 0);
		assert_int_equal(profile__stack(b, i, &sb), 0);
		assert_int_equal(sa.source, sb.source);
		assert_int_equal(sa.pid, sb.pid);
		assert_true(sa.key == sb.key);
		assert_int_equal(sa.depth, sb.depth);
		assert_int_equal(sa.flags, sb.flags);
		assert_frames_equal(sa.frames, sb.frames, sa.depth);
	}
	assert_int_equal(profile__nr_samples(a), profile__nr_samples(b));
	for (i = 0; i < profile__nr_samples(a); i++) {
		struct profile_sample sa, sb;

		assert_int_equal(profile__sample(a, i, &sa), 0);
		assert_int_equal(profile__sample(b, i, &sb), 0);
		assert_int_equal(sa.source, sb.source);
		assert_int_equal(sa.pid, sb.pid);
		assert_int_equal(sa.tid, sb.tid);
		assert_true(sa.key == sb.key);
		assert_true(sa.count == sb.count);
		assert_true(sa.offcpu_ns == sb.offcpu_ns);
		assert_int_equal(sa.known, sb.known);
		assert_true(sa.stack == sb.stack);
		assert_int_equal(sa.depth, sb.depth);
	}
	assert_true(profile__total_samples(a) == profile__total_samples(b));
	assert_true(profile__total_offcpu_ns(a) == profile__total_offcpu_ns(b));
	for (d = 0; d < DIAG__COUNT; d++)
		assert_true(profile__diag(a, d) == profile__diag(b, d));
	n = profile__nr_events(a);
	assert_int_equal(n, profile__nr_events(b));
	for (i = 0; i < n; i++) {
		struct profile_event ea, eb;

		assert_int_equal(profile__event(a, i, &ea), 0);
		assert_int_equal(profile__event(b, i, &eb), 0);
		assert_int_equal(ea.source, eb.source);
		assert_int_equal(ea.pid, eb.pid);
		assert_string_equal(ea.feature, eb.feature);
		assert_true(same_str(ea.instance, eb.instance));
		assert_memory_equal(ea.stats, eb.stats, sizeof(*ea.stats));
	}
}

/* write -> parse -> compare -> write: the same bytes; returns the parsed copy. */
static struct profile *round_trip(const struct profile *p)
{
	size_t len1, len2;
	char *t1 = write_str(p, &len1), *t2;
	struct profile *q = parse_ok(t1, len1);

	assert_profiles_equal(p, q);
	t2 = write_str(q, &len2);
	assert_int_equal(len1, len2);
	assert_string_equal(t1, t2);
	free(t1);
	free(t2);
	return q;
}

/* ---- round trips ---------------------------------------------------------------------- */

static void test_round_trip_rich(void **state)
{
	struct profile *p = rich_profile(), *q;
	struct profile_sample s;

	(void)state;
	q = round_trip(p);
	/* the unknown stack stays unknown, the empty one empty */
	assert_int_equal(profile__sample(q, 5, &s), 0);
	assert_true(s.key == 0xbad);
	assert_false(s.known);
	assert_true(s.stack == PROFILE_NO_STACK);
	profile__free(q);
	profile__free(p);
}

static void test_round_trip_sources(void **state)
{
	struct profile *p = merged_profile(), *q;
	struct profile_source src;
	struct profile_stack st;
	char *text;

	(void)state;
	q = round_trip(p);
	assert_int_equal(profile__nr_sources(q), 2);
	assert_int_equal(profile__source(q, 1, &src), 0);
	assert_string_equal(src.meta->host, "otherhost");
	assert_null(src.meta->kernel);
	assert_true(isnan(src.meta->start_time));
	assert_true(src.diag[DIAG_TRUNCATED] == 9);
	/* equal PIDs and keys of the two sessions stay apart */
	assert_int_equal(profile__nr_stacks(q), 2);
	assert_int_equal(profile__stack(q, 1, &st), 0);
	assert_int_equal(st.source, 1);
	assert_string_equal(st.frames[0].feature, "B");
	text = write_str(q, NULL);
	assert_non_null(strstr(text, "\"start_time\":null"));
	assert_non_null(strstr(text, "\n    {\"source\":1,\"pid\":100}"));
	free(text);
	profile__free(q);
	profile__free(p);
}

/* Namespace PIDs: an optional member of the process records, written only
 * when set; files without it (older ones) read as 0. */
static void test_round_trip_nspid(void **state)
{
	struct profile *p = merged_profile(), *q;
	struct profile_process pr;
	char *text;

	(void)state;
	/* the model: set, replaced, cleared; a new process is registered */
	assert_int_equal(profile__use_source(p, 1), 0);
	assert_int_equal(profile__set_process_nspid(p, 100, 9), 0);
	assert_int_equal(profile__set_process_nspid(p, 100, 1), 0);
	assert_int_equal(profile__set_process_nspid(p, 300, 3), 0);
	assert_int_equal(profile__set_process_nspid(p, 300, 0), 0);
	assert_int_equal(profile__use_source(p, 0), 0);
	assert_int_equal(profile__set_process_nspid(NULL, 1, 1), -EINVAL);
	assert_int_equal(profile__nr_pids(p), 3);
	assert_int_equal(profile__process(p, 0, &pr), 0);
	assert_int_equal(pr.nspid, 0);
	assert_int_equal(profile__process(p, 1, &pr), 0);
	assert_int_equal(pr.source, 1);
	assert_int_equal(pr.nspid, 1);
	assert_int_equal(profile__process(p, 2, &pr), 0);
	assert_int_equal(pr.pid, 300);
	assert_int_equal(pr.nspid, 0);

	q = round_trip(p);
	text = write_str(q, NULL);
	assert_non_null(strstr(text, "\n  \"processes\": [\n    {\"source\":0,\"pid\":100},\n"
				     "    {\"source\":1,\"pid\":100,\"nspid\":1},\n"
				     "    {\"source\":1,\"pid\":300}\n  ],\n"));
	free(text);
	profile__free(q);
	profile__free(p);

	/* read from a record in any member order; an older file has none */
	p = parse_ok(HEAD_V2 "\"processes\":[{\"nspid\":42,\"pid\":7},{\"pid\":8}]}",
		     strlen(HEAD_V2 "\"processes\":[{\"nspid\":42,\"pid\":7},{\"pid\":8}]}"));
	assert_int_equal(profile__process(p, 0, &pr), 0);
	assert_int_equal(pr.pid, 7);
	assert_int_equal(pr.nspid, 42);
	assert_int_equal(profile__process(p, 1, &pr), 0);
	assert_int_equal(pr.nspid, 0);
	profile__free(p);
	parse_bad(HEAD_V2 "\"processes\":[{\"pid\":7,\"nspid\":\"1\"}]}",
		  "processes[0].nspid: expected a non-negative integer, got a string", NULL);
	parse_bad(HEAD_V2 "\"processes\":[{\"pid\":7,\"nspid\":4294967296}]}",
		  "processes[0].nspid: 4294967296 is out of range", NULL);
}

/* A stack whose payloads were not kept: the flag, written only when set,
 * read back, kept by a merge; anything but a boolean is rejected. */
static void test_round_trip_payloads_lost(void **state)
{
	struct profile *p = profile__new(), *q, *m;
	struct profile_stack st;
	char *text, err[256];
	size_t id;

	(void)state;
	assert_non_null(p);
	assert_int_equal(profile__set_meta(p, &rich_meta), 0);
	ADD_STACK(p, 7, 0x11, MARKP("pay", "loop", 42));
	ADD_STACK(p, 7, 0x12, MARK("pay", "loop"));
	assert_int_equal(profile__find_stack(p, 7, 0x12, &id), 0);
	assert_int_equal(id, 1);
	assert_int_equal(profile__find_stack(p, 7, 0x13, &id), -ENOENT);
	assert_int_equal(profile__find_stack(p, 8, 0x12, &id), -ENOENT);
	assert_int_equal(profile__set_stack_flags(p, 1, PROFILE_STACK_PAYLOADS_LOST), 0);
	assert_int_equal(profile__set_stack_flags(p, 2, PROFILE_STACK_PAYLOADS_LOST), -EINVAL);
	assert_int_equal(profile__set_stack_flags(p, 0, 2), -EINVAL);
	ADD_SAMPLES(p, 7, 7, 0x11, 3);
	ADD_SAMPLES(p, 7, 7, 0x12, 5);
	text = write_str(p, NULL);
	assert_non_null(strstr(text, "\"frames\":[[\"m\",0,1,42]]}"));
	assert_non_null(strstr(text, "\"frames\":[[\"m\",0,1]],\"payloads_kept\":false}"));
	free(text);
	q = round_trip(p);
	assert_int_equal(profile__stack(q, 0, &st), 0);
	assert_int_equal(st.flags, 0);
	assert_int_equal(profile__stack(q, 1, &st), 0);
	assert_int_equal(st.flags, PROFILE_STACK_PAYLOADS_LOST);
	m = profile__new();
	assert_non_null(m);
	assert_int_equal(profile__merge(m, q, err, sizeof(err)), 0);
	assert_int_equal(profile__stack(m, 1, &st), 0);
	assert_int_equal(st.flags, PROFILE_STACK_PAYLOADS_LOST);
	profile__free(m);
	profile__free(q);
	profile__free(p);
	/* true is the default, written by nobody but accepted */
	p = parse_ok(HEAD_V2 "\"strings\":[\"f\"],\"stacks\":[{\"pid\":1,\"key\":\"0x1\","
			     "\"frames\":[[\"m\",0]],\"payloads_kept\":true}]}",
		     strlen(HEAD_V2 "\"strings\":[\"f\"],\"stacks\":[{\"pid\":1,\"key\":\"0x1\","
				    "\"frames\":[[\"m\",0]],\"payloads_kept\":true}]}"));
	assert_int_equal(profile__stack(p, 0, &st), 0);
	assert_int_equal(st.flags, 0);
	profile__free(p);
	parse_bad(HEAD_V2 "\"strings\":[\"f\"],\"stacks\":[{\"pid\":1,\"key\":\"0x1\","
			  "\"frames\":[[\"m\",0]],\"payloads_kept\":0}]}",
		  "stacks[0].payloads_kept: expected a boolean, got", NULL);
}

static void test_round_trip_empty(void **state)
{
	struct profile *p = profile__new(), *q;
	char *text;

	(void)state;
	assert_non_null(p);
	text = write_str(p, NULL);
	q = parse_ok(text, strlen(text));
	/* the writer names itself when the model does not */
	assert_string_equal(profile__meta(q)->tool_version, FSP_VERSION);
	assert_int_equal(profile__nr_samples(q), 0);
	free(text);
	profile__free(p);
	p = round_trip(q);
	profile__free(q);
	profile__free(p);
}

static void test_write_deterministic_and_save(void **state)
{
	struct profile *p = rich_profile();
	char dir[] = "/tmp/fsp-pio-XXXXXX", path[64], err[256], *a, *b, *c;
	struct stat st;
	FILE *f;
	size_t n;

	(void)state;
	a = write_str(p, NULL);
	b = write_str(p, NULL);
	assert_string_equal(a, b);
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/p.json", dir);
	assert_int_equal(profile__save(path, p, err, sizeof(err)), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600); /* private (outfile.h) */
	c = calloc(1, st.st_size + 1);
	assert_non_null(c);
	f = fopen(path, "r");
	assert_non_null(f);
	n = fread(c, 1, st.st_size, f);
	fclose(f);
	assert_int_equal(n, st.st_size);
	assert_string_equal(a, c);
	/* and loads back */
	profile__free(p);
	p = profile__load(path, err, sizeof(err));
	assert_non_null(p);
	free(b);
	b = write_str(p, NULL);
	assert_string_equal(a, b);
	/* a replaced file keeps its mode; nothing else is left behind */
	assert_int_equal(chmod(path, 0644), 0);
	assert_int_equal(profile__save(path, p, err, sizeof(err)), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);
	unlink(path);
	assert_int_equal(rmdir(dir), 0);
	free(a);
	free(b);
	free(c);
	profile__free(p);
}

static void test_save_errors(void **state)
{
	struct profile *p = rich_profile(), *big;
	char dir[] = "/tmp/fsp-pio-XXXXXX", path[64], err[256], *before, *after;
	struct rlimit saved, lim;
	void (*old)(int);
	size_t n;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/missing/p.json", dir);
	assert_int_equal(profile__save(path, p, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, path));
	assert_non_null(strstr(err, ": No such file or directory"));

	/* a failed write (here the file size limit) leaves the old file alone */
	snprintf(path, sizeof(path), "%s/p.json", dir);
	assert_int_equal(profile__save(path, p, err, sizeof(err)), 0);
	before = write_str(p, NULL);
	big = rich_profile();
	for (uint32_t t = 1; t <= 5000; t++)
		ADD_SAMPLES(big, 1234, t, 0x1, t);
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &saved), 0);
	lim = saved;
	lim.rlim_cur = 64 * 1024;
	old = signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	assert_int_equal(profile__save(path, big, err, sizeof(err)), -EFBIG);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &saved), 0);
	signal(SIGXFSZ, old);
	assert_non_null(strstr(err, "p.json: File too large"));
	after = calloc(1, strlen(before) + 2);
	assert_non_null(after);
	{
		FILE *f = fopen(path, "r");

		assert_non_null(f);
		n = fread(after, 1, strlen(before) + 1, f);
		fclose(f);
	}
	assert_int_equal(n, strlen(before));
	assert_string_equal(before, after);
	{
		struct dirent **names;
		int nr = scandir(dir, &names, NULL, alphasort);

		assert_int_equal(nr, 3); /* ".", "..", "p.json": no temporary left */
		while (nr--)
			free(names[nr]);
		free(names);
	}

	/* a directory in the way, a path ending in '/' */
	snprintf(path, sizeof(path), "%s", dir);
	assert_int_equal(profile__save(path, p, err, sizeof(err)), -EISDIR);
	snprintf(path, sizeof(path), "%s/", dir);
	assert_int_equal(profile__save(path, p, err, sizeof(err)), -EISDIR);
	assert_non_null(strstr(err, "Is a directory"));
	/* not a regular file: written in place, not replaced */
	assert_int_equal(profile__save("/dev/null", p, err, sizeof(err)), 0);
	{
		struct stat st;

		assert_int_equal(stat("/dev/null", &st), 0);
		assert_true(S_ISCHR(st.st_mode));
	}
	assert_int_equal(profile__save(NULL, p, err, sizeof(err)), -EINVAL);
	assert_int_equal(profile__save(path, NULL, NULL, 0), -EINVAL);
	snprintf(path, sizeof(path), "%s/p.json", dir);
	unlink(path);
	assert_int_equal(rmdir(dir), 0);
	free(before);
	free(after);
	profile__free(big);
	profile__free(p);
}

static void test_write_errors(void **state)
{
	struct profile *p = rich_profile();
	FILE *f = fopen("/dev/full", "w");

	(void)state;
	if (f) {
		assert_int_equal(profile__write_json(f, p), -ENOSPC);
		fclose(f);
	}
	assert_int_equal(profile__write_json(NULL, p), -EINVAL);
	assert_int_equal(profile__write_json(stdout, NULL), -EINVAL);
	profile__free(p);
}

/* Invalid UTF-8 in labels (read from a target) is written as U+FFFD. */
static void test_invalid_utf8_written_valid(void **state)
{
	struct profile *p = profile__new(), *q;
	struct profile_stack st;
	char *text;

	(void)state;
	assert_non_null(p);
	ADD_STACK(p, 1, 1, MARK("F\xff", "bad \xe2\x82 \xc0\xaf \xed\xa0\x80"));
	/* another label written the same: one entry of the string table */
	ADD_STACK(p, 1, 2, MARK("F\xfe", "F\xef\xbf\xbd"));
	ADD_SAMPLES(p, 1, 1, 1, 1);
	text = write_str(p, NULL);
	assert_non_null(strstr(text, "\"strings\": [\n    \"F\xef\xbf\xbd\",\n    \"bad "));
	assert_non_null(strstr(text, "\"frames\":[[\"m\",0,0]]}"));
	q = parse_ok(text, strlen(text));
	assert_int_equal(profile__stack(q, 0, &st), 0);
	assert_string_equal(st.frames[0].feature, "F\xef\xbf\xbd");
	assert_string_equal(st.frames[0].instance,
			    "bad \xef\xbf\xbd\xef\xbf\xbd \xef\xbf\xbd\xef\xbf\xbd "
			    "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
	assert_int_equal(profile__stack(q, 1, &st), 0);
	assert_string_equal(st.frames[0].feature, "F\xef\xbf\xbd");
	assert_string_equal(st.frames[0].instance, "F\xef\xbf\xbd");
	free(text);
	profile__free(q);
	profile__free(p);
}

/* ---- version 1 ---------------------------------------------------------------------------- */

/* What the version 1 writer (fsp-bpf 0.1.0) wrote for a demo profile with an
 * unknown stack: no sources, no keys, no "source" fields. */
static const char v1_file[] =
	"{\n"
	"  \"version\": 1,\n"
	"  \"tool\": \"fsp-bpf\",\n"
	"  \"tool_version\": \"0.1.0\",\n"
	"  \"target\": \"pid 1234 (demo)\",\n"
	"  \"command_line\": \"fsp-bpf -p 1234 -o demo.json\",\n"
	"  \"host\": \"testhost\",\n"
	"  \"kernel\": \"6.1.0-test\",\n"
	"  \"start_time\": 1700000000.25,\n"
	"  \"end_time\": 1700000003.25,\n"
	"  \"duration_s\": 3,\n"
	"  \"frequency_hz\": 1000,\n"
	"  \"period_ns\": 1000000,\n"
	"  \"pids\": [1234],\n"
	"  \"total_samples\": 103,\n"
	"  \"total_ms\": 103,\n"
	"  \"attributed_samples\": 103,\n"
	"  \"uncharged_samples\": 23,\n"
	"  \"features\": [\n"
	"    {\n"
	"      \"name\": \"Output\",\n"
	"      \"samples\": 80,\n"
	"      \"time_ms\": 80,\n"
	"      \"pct\": 77.669902912621353,\n"
	"      \"instances\": [\n"
	"        "
	"{\"name\":\"fizzbuzz.c:8\",\"samples\":70,\"time_ms\":70,\"pct\":67.961165048543691},\n"
	"        "
	"{\"name\":\"fizzbuzz.c:7\",\"samples\":10,\"time_ms\":10,\"pct\":9.70873786407767}\n"
	"      ]\n"
	"    },\n"
	"    {\n"
	"      \"name\": \"Generic sequences\",\n"
	"      \"samples\": 20,\n"
	"      \"time_ms\": 20,\n"
	"      \"pct\": 19.417475728155338,\n"
	"      \"instances\": [\n"
	"        "
	"{\"name\":\"fizzbuzz.c:3\",\"samples\":20,\"time_ms\":20,\"pct\":19.417475728155338}\n"
	"      ]\n"
	"    }\n"
	"  ],\n"
	"  \"threads\": [\n"
	"    {\"pid\":1234,\"tid\":1234,\"comm\":\"demo\",\"samples\":85,\"time_ms\":85},\n"
	"    {\"pid\":1234,\"tid\":1235,\"comm\":\"worker\",\"samples\":18,\"time_ms\":18}\n"
	"  ],\n"
	"  \"stacks\": [\n"
	"    "
	"{\"id\":0,\"pid\":1234,\"frames\":[{\"kind\":\"mark\",\"feature\":\"Output\",\"instance\":"
	"\"fizzbuzz.c:8\",\"payload\":0}]},\n"
	"    "
	"{\"id\":1,\"pid\":1234,\"frames\":[{\"kind\":\"mark\",\"feature\":\"Output\",\"instance\":"
	"\"fizzbuzz.c:7\",\"payload\":0}]},\n"
	"    {\"id\":2,\"pid\":1234,\"frames\":[{\"kind\":\"mark\",\"feature\":\"Generic "
	"sequences\",\"instance\":\"fizzbuzz.c:3\",\"payload\":0},{\"kind\":\"mark\",\"feature\":"
	"\"Output\",\"instance\":\"fizzbuzz.c:8\",\"payload\":18446744073709551615}]},\n"
	"    {\"id\":3,\"pid\":1234,\"frames\":[{\"kind\":\"mark\",\"feature\":\"Generic "
	"sequences\",\"instance\":\"fizzbuzz.c:3\",\"payload\":0},{\"kind\":\"antimark\","
	"\"feature\":\"Generic sequences\",\"instance\":null,\"payload\":0}]}\n"
	"  ],\n"
	"  \"samples\": [\n"
	"    {\"pid\":1234,\"tid\":1234,\"stack\":0,\"count\":50},\n"
	"    {\"pid\":1234,\"tid\":1235,\"stack\":1,\"count\":10},\n"
	"    {\"pid\":1234,\"tid\":1234,\"stack\":2,\"count\":20},\n"
	"    {\"pid\":1234,\"tid\":1235,\"stack\":3,\"count\":5},\n"
	"    {\"pid\":1234,\"tid\":1234,\"stack\":null,\"count\":15},\n"
	"    {\"pid\":1234,\"tid\":1235,\"stack\":null,\"count\":3}\n"
	"  ],\n"
	"  \"diagnostics\": {\n"
	"    \"lost_samples\": 7,\n"
	"    \"unknown_stacks\": 3,\n"
	"    \"unmatched_leaves\": 0,\n"
	"    \"overflows\": 0,\n"
	"    \"stale_marks\": 0,\n"
	"    \"truncated\": 0,\n"
	"    \"label_errors\": 0,\n"
	"    \"arg_errors\": 0,\n"
	"    \"events_lost\": 0,\n"
	"    \"attach_errors\": 0\n"
	"  }\n"
	"}\n";

static void test_v1_accepted(void **state)
{
	struct profile *p = parse_ok(v1_file, sizeof(v1_file) - 1), *q;
	const struct attrib_feature *f;
	struct profile_sample s;
	struct profile_stack st;
	struct profile_process pr;
	struct profile_thread t;
	struct attrib *a;
	char *text;

	(void)state;
	assert_string_equal(profile__meta(p)->target, "pid 1234 (demo)");
	assert_true(profile__meta(p)->duration_s == 3.0);
	assert_int_equal(profile__nr_sources(p), 0);
	assert_int_equal(profile__nr_pids(p), 1);
	assert_int_equal(profile__pid(p, 0), 1234);
	/* no namespace PIDs before version 2 wrote them */
	assert_int_equal(profile__process(p, 0, &pr), 0);
	assert_int_equal(pr.nspid, 0);
	assert_int_equal(profile__nr_threads(p), 2);
	assert_int_equal(profile__thread(p, 1, &t), 0);
	assert_string_equal(t.comm, "worker");
	assert_true(t.samples == 18);
	/* stacks get the keys id + 1, everything is source 0 */
	assert_int_equal(profile__nr_stacks(p), 4);
	assert_int_equal(profile__stack(p, 2, &st), 0);
	assert_true(st.key == 3);
	assert_int_equal(st.source, 0);
	assert_true(st.frames[1].payload == UINT64_MAX);
	assert_int_equal(profile__nr_samples(p), 6);
	assert_int_equal(profile__sample(p, 2, &s), 0);
	assert_int_equal(s.stack, 2);
	assert_true(s.count == 20);
	/* v1 wrote unknown stacks as null like the empty one: both are key 0 */
	assert_int_equal(profile__sample(p, 5, &s), 0);
	assert_true(s.key == 0);
	assert_true(profile__total_samples(p) == 103);
	assert_true(profile__diag(p, DIAG_UNKNOWN_STACKS) == 3);
	assert_true(profile__diag(p, DIAG_LOST_SAMPLES) == 7);
	a = attrib__compute(p, NULL);
	assert_non_null(a);
	assert_true(attrib__uncharged_samples(a) == 23);
	f = attrib__feature(a, 0);
	assert_string_equal(f->name, "Output");
	assert_true(f->samples == 80);
	attrib__free(a);
	/* written as the current version, which reads back to the same model */
	text = write_str(p, NULL);
	assert_non_null(strstr(text, "\"version\": 4,"));
	free(text);
	q = round_trip(p);
	profile__free(q);
	profile__free(p);
}

/* A minimal version 1 file: pids, stacks without keys, samples. */
static void test_v1_minimal(void **state)
{
	static const char doc[] = "{\"version\":1,\"tool\":\"fsp-bpf\",\"pids\":[5,6],"
				  "\"stacks\":[{\"id\":0,\"pid\":5,\"frames\":[{\"kind\":\"mark\","
				  "\"feature\":\"F\",\"instance\":null,\"payload\":0}]}],"
				  "\"samples\":[{\"pid\":5,\"tid\":5,\"stack\":0,\"count\":2},"
				  "{\"pid\":6,\"tid\":6,\"stack\":null,\"count\":1}]}";
	struct profile *p = parse_ok(doc, strlen(doc));

	(void)state;
	assert_int_equal(profile__nr_pids(p), 2);
	assert_int_equal(profile__pid(p, 1), 6);
	assert_true(profile__total_samples(p) == 3);
	assert_null(profile__meta(p)->target);
	profile__free(p);
}

/* The example of docs/profile-format.md reads, and writes back unchanged. */
static void test_doc_example(void **state)
{
	char buf[512], path[1024], *doc, *start, *end, *text;
	struct profile *p;
	struct stat st;
	FILE *f;

	(void)state;
	snprintf(buf, sizeof(buf), "%s", __FILE__);
	snprintf(path, sizeof(path), "%s/../../docs/profile-format.md", dirname(buf));
	assert_int_equal(stat(path, &st), 0);
	doc = calloc(1, st.st_size + 1);
	assert_non_null(doc);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_int_equal(fread(doc, 1, st.st_size, f), st.st_size);
	fclose(f);
	start = strstr(doc, "```json\n");
	assert_non_null(start);
	start += 8;
	end = strstr(start, "```");
	assert_non_null(end);
	*end = 0;
	p = parse_ok(start, strlen(start));
	text = write_str(p, NULL);
	assert_string_equal(text, start);
	free(text);
	free(doc);
	profile__free(p);
}

/* ---- the layout ------------------------------------------------------------------------------ */

/* The written layout, line by line: string table, compact frames, sample rows. */
static void test_layout(void **state)
{
	struct profile *p = rich_profile();
	char *text = write_str(p, NULL);

	(void)state;
	/* the table in order of first use, before the stacks and events */
	assert_non_null(strstr(text,
			       "\n  \"strings\": [\n    \"Output\",\n    \"fizzbuzz.c:8\",\n"
			       "    \"Generic sequences\",\n    \"fizzbuzz.c:3\",\n"
			       "    \"caf\xc3\xa9 \xe2\x82\xac\",\n    \"\xf0\x9f\x98\x80 emoji\","
			       "\n    \"Regex\"\n  ],\n  \"stacks\": [\n"));
	/* marks with and without instance and payload; an antimark */
	assert_non_null(strstr(text, "\n    {\"id\":0,\"source\":0,\"pid\":1234,\"key\":\"0x1\","
				     "\"frames\":[[\"m\",0,1]]},\n"));
	assert_non_null(strstr(text, "\"key\":\"0xffffffffffffffff\",\"frames\":[[\"m\",2,3],"
				     "[\"m\",0,1,18446744073709551615]]}"));
	assert_non_null(strstr(text, "\"key\":\"0x8000000000000000\",\"frames\":[[\"m\",2,null],"
				     "[\"a\",2]]}"));
	/* rows: a stack id, null (empty), a key (unknown); off-CPU as a sixth column */
	assert_non_null(strstr(text, "\n  \"samples\": [\n    [0,1234,1234,0,50,777],\n"));
	assert_non_null(strstr(text, "\n    [0,1234,1234,null,15,0],\n"));
	assert_non_null(strstr(text, "\n    [0,1234,1235,\"0xbad\",3,0],\n"));
	assert_non_null(strstr(text, "\n    [0,77,79,3,0,5]\n  ],\n"));
	/* events refer to the table */
	assert_non_null(strstr(text, "{\"source\":0,\"pid\":1234,\"feature\":0,\"instance\":1,"));
	assert_non_null(strstr(text, "{\"source\":0,\"pid\":77,\"feature\":6,\"instance\":null,"));
	/* the summaries keep names */
	assert_non_null(strstr(text, "{\"name\":\"Output\",\"samples\":"));
	free(text);
	profile__free(p);

	/* without off-CPU time, five columns */
	p = profile__new();
	assert_non_null(p);
	ADD_STACK(p, 5, 0x7, MARK("F", NULL));
	ADD_SAMPLES(p, 5, 6, 0x7, 2);
	text = write_str(p, NULL);
	assert_non_null(strstr(text, "\n    [0,5,6,0,2]\n"));
	assert_non_null(strstr(text, "[[\"m\",0,null]]"));
	free(text);
	profile__free(p);
}

/* ---- reading: what a reader must accept --------------------------------------------------- */

#define HEAD "{\"version\":2,\"tool\":\"fsp-bpf\","

static void test_unknown_fields_ignored(void **state)
{
	static const char doc[] =
		"{\"future\":{\"a\":[1,2,{\"b\":[[[]]]}],\"c\":\"x\"},\"version\":2,"
		"\"tool\":\"fsp-bpf\",\"features\":[{\"name\":\"F\",\"extra\":[1],"
		"\"instances\":[{\"name\":\"i\",\"more\":{\"x\":[1]}}]}],"
		"\"strings\":[\"F\",\"i\"],"
		"\"stacks\":[{\"id\":0,\"pid\":5,\"new\":{\"z\":[1,{\"q\":2}]},\"key\":\"0x10\","
		"\"frames\":[[\"m\",0,null,0,\"later\"],[\"a\",0,null,0,{\"x\":1}]]}],"
		"\"samples\":[[0,5,5,0,2,0,\"w\",1.5]],"
		"\"events\":[{\"pid\":5,\"feature\":0,\"instance\":1,\"enters\":1,\"color\":"
		"\"red\"}],"
		"\"diagnostics\":{\"lost_samples\":1,\"new_counter\":5},\"trailing\":null}  \n";
	struct profile *p = parse_ok(doc, strlen(doc));
	struct profile_stack st;
	struct profile_event e;

	(void)state;
	assert_int_equal(profile__stack(p, 0, &st), 0);
	assert_true(st.key == 16);
	assert_int_equal(st.depth, 2);
	assert_null(st.frames[0].instance);
	assert_int_equal(st.frames[1].kind, PROFILE_ANTIMARK);
	assert_true(profile__total_samples(p) == 2);
	assert_true(profile__diag(p, DIAG_LOST_SAMPLES) == 1);
	assert_int_equal(profile__event(p, 0, &e), 0);
	assert_string_equal(e.feature, "F");
	assert_string_equal(e.instance, "i");
	profile__free(p);
}

/* The off-CPU diagnostics (--off-cpu) are written last, under their names,
 * and read back; a file of an older writer without them reads them as 0. */
static void test_offcpu_diagnostics(void **state)
{
	static const char old[] =
		HEAD "\"samples\":[],\"diagnostics\":{\"lost_samples\":1,\"event_drops\":2}}";
	struct profile *p = profile__new(), *q;
	char *text;

	(void)state;
	assert_non_null(p);
	assert_string_equal(profile_diag__name(DIAG_OFFCPU_RECOVERED), "offcpu_recovered");
	assert_string_equal(profile_diag__name(DIAG_OFFCPU_LOST), "offcpu_lost");
	profile__set_diag(p, DIAG_OFFCPU_RECOVERED, 4);
	profile__set_diag(p, DIAG_OFFCPU_LOST, 2);
	text = write_str(p, NULL);
	assert_non_null(strstr(text, "\n    \"event_drops\": 0,\n    \"offcpu_recovered\": 4,\n"
				     "    \"offcpu_lost\": 2,\n    \"charge_drops\": 0,\n"
				     "    \"untracked\": 0,\n    \"folded_processes\": 0,\n"
				     "    \"native_lost\": 0,\n    \"native_exited\": 0,\n"
				     "    \"native_failed\": 0,\n    \"unreadable_stacks\": 0,\n"
				     "    \"skipped_marks\": 0,\n    \"native_replaced\": 0,\n"
				     "    \"sample_label_errors\": 0\n  }\n}\n"));
	q = parse_ok(text, strlen(text));
	assert_true(profile__diag(q, DIAG_OFFCPU_RECOVERED) == 4);
	assert_true(profile__diag(q, DIAG_OFFCPU_LOST) == 2);
	free(text);
	profile__free(q);
	profile__free(p);

	p = parse_ok(old, strlen(old));
	assert_true(profile__diag(p, DIAG_EVENT_DROPS) == 2);
	assert_true(profile__diag(p, DIAG_OFFCPU_RECOVERED) == 0);
	assert_true(profile__diag(p, DIAG_OFFCPU_LOST) == 0);
	profile__free(p);
}

/*
 * The forms a writer other than fsp-bpf may use: white space anywhere, any
 * member order within a stack, integer and upper-case keys, a mark without
 * its instance column, an explicit payload 0, escapes and non-ASCII labels,
 * a key string for a stored stack or for the empty one. Each is read as the
 * canonical form.
 */
static void test_other_forms(void **state)
{
	static const char doc[] =
		"{ \"version\" : 2 , \"tool\" : \"fsp-bpf\" ,\n"
		"\"strings\" : [ \"F\" , \"\\u0047\" , \"caf\xc3\xa9\" , \"a\\\"b\" ] ,\n"
		"\"stacks\" : [\n"
		"\t{ \"frames\" : [ [ \"m\" , 0 ] , [ \"m\" , 1 , 2 , 0 ] ] , \"key\" : 17 ,"
		" \"pid\" : 5 } ,\r\n"
		" {\"pid\":5,\"key\":\"0X1F\",\"id\":1,\"frames\":[[\"\\u006d\",3,null,7]]},\n"
		" {\"source\":0,\"pid\":5,\"key\":\"0x20\",\"frames\":[ ]}\n"
		"] ,\n"
		"\"samples\" : [ [ 0 , 5 , 5 , 0 , 1 ] , [0,5,5,\"0x1f\",2] , [0,5,5,\"0x0\",3],"
		" [0,5,6,\"0x1F\",4,0] ] }";
	struct profile *p = parse_ok(doc, strlen(doc));
	struct profile_sample s;
	struct profile_stack st;
	char *text;

	(void)state;
	assert_int_equal(profile__nr_stacks(p), 3);
	assert_int_equal(profile__stack(p, 0, &st), 0);
	assert_true(st.key == 17);
	assert_null(st.frames[0].instance);
	assert_string_equal(st.frames[1].feature, "G");
	assert_string_equal(st.frames[1].instance, "caf\xc3\xa9");
	assert_int_equal(profile__stack(p, 1, &st), 0);
	assert_true(st.key == 0x1f);
	assert_string_equal(st.frames[0].feature, "a\"b");
	assert_true(st.frames[0].payload == 7);
	assert_int_equal(profile__stack(p, 2, &st), 0);
	assert_int_equal(st.depth, 0);
	/* the key of a stored stack is that stack; "0x0" the empty one */
	assert_int_equal(profile__nr_samples(p), 4);
	assert_int_equal(profile__sample(p, 1, &s), 0);
	assert_int_equal(s.stack, 1);
	assert_int_equal(profile__sample(p, 2, &s), 0);
	assert_true(s.key == 0);
	assert_true(s.stack == PROFILE_NO_STACK);
	text = write_str(p, NULL);
	assert_non_null(strstr(text, "[[\"m\",0,null],[\"m\",1,2]]"));
	assert_non_null(strstr(text, "\"strings\": [\n    \"F\",\n    \"G\",\n"));
	assert_non_null(strstr(text, "\n    [0,5,5,1,2],\n    [0,5,5,null,3],\n    [0,5,6,1,4]\n"));
	free(text);
	profile__free(p);
}

/* Member order: version first; strings before stacks and events; stacks
 * before samples (version 1 samples may come first: their keys are known). */
static void test_member_order(void **state)
{
	static const char v1[] =
		"{\"version\":1,\"tool\":\"fsp-bpf\","
		"\"samples\":[{\"pid\":5,\"tid\":5,\"stack\":0,\"count\":2}],"
		"\"stacks\":[{\"pid\":5,\"frames\":[{\"kind\":\"mark\",\"feature\":\"F\"}]}]}";
	struct profile *p = parse_ok(v1, strlen(v1));
	struct profile_sample s;
	struct attrib *a;

	(void)state;
	assert_int_equal(profile__sample(p, 0, &s), 0);
	assert_int_equal(s.stack, 0);
	a = attrib__compute(p, NULL);
	assert_non_null(a);
	assert_int_equal(attrib__nr_features(a), 1);
	attrib__free(a);
	profile__free(p);

	parse_bad("{\"version\":1,\"tool\":\"fsp-bpf\","
		  "\"samples\":[{\"pid\":5,\"tid\":5,\"stack\":1,\"count\":2}],"
		  "\"stacks\":[{\"pid\":5,\"frames\":[]}]}",
		  "samples[0].stack: unknown stack id 1 (1 stacks)", NULL);
	parse_bad(HEAD "\"samples\":[[0,5,5,0,2]],\"strings\":[\"F\"],"
		       "\"stacks\":[{\"pid\":5,\"key\":\"0x7\",\"frames\":[[\"m\",0]]}]}",
		  "samples[0].stack: unknown stack id 0 (0 stacks so far; \"stacks\" must come "
		  "before it)",
		  NULL);
	parse_bad(HEAD "\"stacks\":[{\"pid\":5,\"frames\":[[\"m\",0]]}],\"strings\":[\"F\"]}",
		  "stacks[0].frames[0].feature: string index 0 is out of range (the string table "
		  "has 0 strings; \"strings\" must come before it)",
		  NULL);
	parse_bad(HEAD "\"events\":[{\"pid\":5,\"feature\":0}],\"strings\":[\"F\"]}",
		  "events[0].feature: string index 0 is out of range", NULL);
	parse_bad("{\"tool\":\"fsp-bpf\",\"stacks\":[],\"version\":2}",
		  "\"stacks\" comes before \"version\" (the version must come first)", NULL);
	parse_bad("{\"tool\":\"fsp-bpf\",\"strings\":[],\"version\":2}",
		  "\"strings\" comes before \"version\"", NULL);
	/* v1 has no string table or events: ignored as unknown fields */
	{
		static const char doc[] = "{\"version\":1,\"tool\":\"fsp-bpf\",\"strings\":[1,1],"
					  "\"events\":[{\"feature\":\"F\"}]}";

		p = parse_ok(doc, strlen(doc));
		assert_int_equal(profile__nr_events(p), 0);
		profile__free(p);
	}
}

/* Files read in chunks: values, numbers and an overflowing integer across
 * chunk boundaries; the result equals parsing from memory. */
static void test_load_chunked(void **state)
{
	struct profile *p = profile__new(), *q, *r;
	char path[] = "/tmp/fsp-pio-XXXXXX", err[256], *text, *t2;
	size_t len, at, k;
	int fd;

	(void)state;
	assert_non_null(p);
	assert_int_equal(profile__set_meta(p, &rich_meta), 0);
	for (uint64_t k = 1; k <= 6000; k++) {
		char inst[32];
		struct profile_frame fr[2] = {
			MARKP("Feature with a longish name", inst, k * 7919),
			MARK("Feature with a longish name", NULL),
		};

		snprintf(inst, sizeof(inst), "file%" PRIu64 ".c:%" PRIu64, k % 97, k);
		assert_int_equal(
			profile__add_stack(p, 10, k * 0x9e3779b97f4a7c15ULL, fr, 1 + k % 2), 0);
		ADD_SAMPLES(p, 10, 10 + (uint32_t)(k % 7), k * 0x9e3779b97f4a7c15ULL, k);
	}
	text = write_str(p, &len);
	assert_true(len > 2 * 256 * 1024);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	close(fd);
	q = profile__load(path, err, sizeof(err));
	if (!q)
		fail_msg("%s", err);
	r = parse_ok(text, len);
	assert_profiles_equal(p, q);
	assert_profiles_equal(p, r);
	t2 = write_str(q, NULL);
	assert_string_equal(text, t2);
	free(t2);
	profile__free(q);
	profile__free(r);

	/* a 21-digit integer straddling the first chunk boundary: the last
	 * integer member before it, moved there with white space */
	at = 256 * 1024 - 10;
	for (k = at; k > 2; k--)
		if (!strncmp(text + k - 2, "\":", 2) && text[k] >= '0' && text[k] <= '9' &&
		    !strchr(".eE", text[k + strspn(text + k, "0123456789")]))
			break;
	t2 = malloc(len + 1024);
	assert_non_null(t2);
	memcpy(t2, text, k);
	memset(t2 + k, ' ', at - k);
	len = at + (size_t)sprintf(t2 + at, "123456789012345678901%s",
				   text + k + strspn(text + k, "0123456789"));
	fd = open(path, O_WRONLY | O_TRUNC);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, t2, len), (ssize_t)len);
	close(fd);
	q = profile__load(path, err, sizeof(err));
	assert_null(q);
	if (!strstr(err, "byte 262134 (12345678901234567890...) does not fit in 64 bits"))
		fail_msg("%s", err);
	parse_bad_len(t2, len, "does not fit in 64 bits", NULL);
	unlink(path);
	free(t2);
	free(text);
	profile__free(p);
}

static void test_load_stdin(void **state)
{
	struct profile *p = rich_profile(), *q;
	char path[] = "/tmp/fsp-pio-XXXXXX", err[256], *text;
	int fd, saved;
	size_t len;

	(void)state;
	text = write_str(p, &len);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	saved = dup(STDIN_FILENO);
	assert_true(dup2(fd, STDIN_FILENO) >= 0);
	q = profile__load("-", err, sizeof(err));
	assert_true(dup2(saved, STDIN_FILENO) >= 0);
	close(saved);
	close(fd);
	unlink(path);
	if (!q)
		fail_msg("%s", err);
	assert_profiles_equal(p, q);
	profile__free(q);
	profile__free(p);
	free(text);
}

/* ---- reading: what a reader must reject, one test per kind of bad input -------------------- */

static void test_bad_file(void **state)
{
	char dir[] = "/tmp/fsp-pio-XXXXXX", path[96], err[256];
	int fd;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/missing.json", dir);
	assert_null(profile__load(path, err, sizeof(err)));
	assert_non_null(strstr(err, "missing.json: No such file or directory"));
	assert_null(profile__load(dir, err, sizeof(err)));
	assert_non_null(strstr(err, ": Is a directory"));

	snprintf(path, sizeof(path), "%s/empty.json", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_null(profile__load(path, err, sizeof(err)));
	assert_non_null(strstr(err, "empty.json: empty file"));
	assert_int_equal(write(fd, " \n\t\r\n", 5), 5);
	assert_null(profile__load(path, err, sizeof(err)));
	assert_non_null(strstr(err, "empty.json: empty file"));

	/* over the size limit: a sparse file, never read */
	assert_int_equal(ftruncate(fd, (off_t)PROFILE_IO_MAX_FILE + 1), 0);
	close(fd);
	assert_null(profile__load(path, err, sizeof(err)));
	assert_non_null(strstr(err, "empty.json: file too large: 4294967297 bytes"));
	unlink(path);
	assert_int_equal(rmdir(dir), 0);
	assert_null(profile__load(NULL, err, sizeof(err)));
	assert_null(profile__load("/nonexistent/x.json", NULL, 0));

	parse_bad_len("", 0, "empty file", NULL);
	parse_bad("   ", "empty file", NULL);
}

static void test_bad_json(void **state)
{
	struct profile *p = rich_profile();
	char *text;
	size_t len, cut;

	(void)state;
	/* truncated anywhere: a message, never a profile */
	text = write_str(p, &len);
	for (cut = 1; cut < len - 1; cut += 1 + cut / 7)
		parse_bad_len(text, cut, "truncated", "byte");
	parse_bad_len(text, len - 2, "truncated", NULL); /* without the final "}" */
	free(text);
	profile__free(p);

	parse_bad("{\"version\":2,}", "invalid JSON at byte 13", "a quoted member name");
	parse_bad("{\"version\" 2}", "invalid JSON at byte 11", "':'");
	parse_bad("{\"version\":2 \"tool\":1}", "invalid JSON at byte 13", "',' or '}'");
	parse_bad("{\"version\":2,\"tool\":\"fsp-bpf\",\"x\":[1,]}", "invalid JSON at byte 37",
		  "unexpected character");
	parse_bad("{\"version\":2,\"tool\":\"fsp-bpf\",\"x\":tru}", "invalid JSON at byte 37",
		  "boolean expected");
	parse_bad("{\"version\":2,\"tool\":\"fsp-bpf\",\"x\":'a'}", "invalid JSON at byte 34",
		  NULL);
	parse_bad("{\"version\":2,\"tool\":\"fsp-bpf\",\"x\":\"\xff\"}", "invalid JSON",
		  "invalid utf-8");
	parse_bad(HEAD "\"target\":\"a\"}x", "unexpected data after the profile at byte 43", NULL);
	parse_bad(HEAD "\"target\":\"a\"}{}", "unexpected data after the profile", NULL);
	parse_bad_len(HEAD "\"target\":\"a\0b\"}", sizeof(HEAD) + 14, "invalid JSON", NULL);
}

static void test_bad_not_a_profile(void **state)
{
	(void)state;
	parse_bad("[1,2]", "not an fsp-bpf profile", "the top-level value is an array");
	parse_bad("\"fsp-bpf\"", "not an fsp-bpf profile", "a string");
	parse_bad("{}", "not an fsp-bpf profile (no \"tool\": \"fsp-bpf\")", NULL);
	parse_bad("{\"version\":2}", "not an fsp-bpf profile", NULL);
	parse_bad("{\"tool\":\"perf\",\"version\":2}",
		  "not an fsp-bpf profile (\"tool\" is \"perf\")", NULL);
	parse_bad("{\"tool\":7}", "not an fsp-bpf profile (\"tool\" is an integer)", NULL);
	parse_bad("{\"name\":\"pkg\",\"version\":\"1.0.0\"}", "not an fsp-bpf profile",
		  "\"version\" is a string");
	parse_bad("{\"tool\":\"fsp-bpf\"}", "no \"version\"", NULL);
}

static void test_bad_version(void **state)
{
	(void)state;
	parse_bad("{\"tool\":\"fsp-bpf\",\"version\":5}", "unsupported format version 5",
		  "reads versions 1 to 4");
	parse_bad("{\"version\":0,\"tool\":\"fsp-bpf\"}", "unsupported format version 0", NULL);
	parse_bad("{\"version\":-1,\"tool\":\"fsp-bpf\"}", "unsupported format version -1", NULL);
	parse_bad("{\"version\":18446744073709551615,\"tool\":\"fsp-bpf\"}",
		  "unsupported format version", NULL);
	parse_bad("{\"tool\":\"fsp-bpf\",\"version\":2.0}", "\"version\" is a real number", NULL);
	parse_bad("{\"tool\":\"fsp-bpf\",\"version\":\"2\"}", "\"version\" is a string", NULL);
	parse_bad("{\"tool\":\"fsp-bpf\",\"version\":2,\"version\":2}",
		  "\"version\" is given twice", NULL);
}

static void test_bad_types(void **state)
{
	(void)state;
	parse_bad(HEAD "\"threads\":{}}", "threads: expected an array at byte 40", NULL);
	parse_bad(HEAD "\"samples\":[5]}", "samples[0]: expected an array, got an integer", NULL);
	parse_bad(HEAD "\"samples\":[{\"pid\":5,\"tid\":1,\"count\":1}]}",
		  "samples[0]: expected an array, got an object", NULL);
	parse_bad(HEAD "\"samples\":[[0,\"5\",1,null,1]]}",
		  "samples[0].pid: expected a non-negative integer, got a string", NULL);
	parse_bad(HEAD "\"samples\":[[0,5,1,null]]}",
		  "samples[0]: 4 columns, expected 5 or 6 ([source, pid, tid, stack, count] and "
		  "optionally offcpu_ns)",
		  NULL);
	parse_bad(HEAD "\"samples\":[[0,5,1,true,1]]}",
		  "samples[0].stack: expected a stack id, null or a key string, got a boolean",
		  NULL);
	parse_bad(HEAD "\"samples\":[[0,5,1,\"12\",1]]}", "samples[0].stack: \"12\" is not a key",
		  NULL);
	parse_bad(HEAD "\"samples\":[[0,5,1,-1,1]]}", "samples[0].stack: -1 is negative", NULL);
	parse_bad(HEAD "\"samples\":[[0,5,1,null,1,\"x\"]]}",
		  "samples[0].offcpu_ns: expected a non-negative integer, got a string", NULL);
	parse_bad(HEAD "\"target\":5}", "target: expected a string or null, got an integer", NULL);
	parse_bad(HEAD "\"start_time\":\"now\"}", "start_time: expected a number, got a string",
		  NULL);
	parse_bad(HEAD "\"frequency_hz\":1.5}", "frequency_hz: 1.5 is not an integer", NULL);
	parse_bad(HEAD "\"diagnostics\":[]}", "diagnostics: expected an object, got an array",
		  NULL);
	parse_bad(HEAD "\"diagnostics\":{\"lost_samples\":true}}",
		  "diagnostics.lost_samples: expected a non-negative integer, got a boolean", NULL);
	parse_bad(HEAD "\"sources\":[{\"diagnostics\":{\"overflows\":-2}}]}",
		  "sources[0].diagnostics.overflows: -2 is negative", NULL);
	parse_bad(HEAD "\"stacks\":[[5]]}", "stacks[0]: expected an object, got an array", NULL);
	parse_bad(HEAD "\"stacks\":[{\"pid\":1,\"frames\":{}}]}",
		  "stacks[0].frames: expected an array, got an object", NULL);
	parse_bad(HEAD "\"stacks\":[{\"pid\":1}]}", "stacks[0]: missing \"frames\"", NULL);
	parse_bad(HEAD "\"stacks\":[{\"frames\":[]}]}", "stacks[0]: missing \"pid\"", NULL);
	parse_bad(HEAD "\"stacks\":[{\"pid\":1,\"key\":\"12\",\"frames\":[]}]}",
		  "stacks[0].key: \"12\" is not a key", NULL);
	parse_bad(HEAD "\"stacks\":[{\"pid\":1,\"key\":\"0x12345678901234567\",\"frames\":[]}]}",
		  "is not a key", NULL);
	parse_bad(HEAD "\"stacks\":[{\"pid\":1,\"source\":4294967296,\"frames\":[]}]}",
		  "stacks[0].source: 4294967296 is out of range", NULL);
	parse_bad(HEAD "\"samples\":[[0,4294967296,1,null,1]]}",
		  "samples[0].pid: 4294967296 is out of range", NULL);
	parse_bad(HEAD
		  "\"strings\":[\"F\"],\"events\":[{\"pid\":1,\"feature\":0,\"hist\":[1,2.5]}]}",
		  "events[0].hist[1]: 2.5 is not an integer", NULL);
	parse_bad(HEAD "\"strings\":[\"F\"],"
		       "\"events\":[{\"pid\":1,\"feature\":0,\"hist\":[0,0,0,0,0,0,0,0,0,0,0,0,0,"
		       "0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]}]}",
		  "events[0].hist: 41 buckets", NULL);
	parse_bad(HEAD "\"strings\":[\"F\"],\"events\":[{\"pid\":1,\"feature\":\"F\"}]}",
		  "events[0].feature: expected a string index (an integer), got a string", NULL);
	parse_bad(HEAD "\"strings\":[\"F\"],\"events\":[{\"pid\":1}]}",
		  "events[0]: missing \"feature\"", NULL);
	parse_bad(HEAD "\"strings\":[\"F\"],\"events\":[{\"pid\":1,\"feature\":0,\"instance\":1}]}",
		  "events[0].instance: string index 1 is out of range (the string table has 1 "
		  "strings)",
		  NULL);
	parse_bad(HEAD "\"pids\":[-1]}", "pids[0]: -1 is negative", NULL);
	parse_bad(HEAD "\"threads\":[],\"threads\":[]}", "\"threads\" is given twice", NULL);
	parse_bad(HEAD "\"strings\":[],\"strings\":[]}", "\"strings\" is given twice", NULL);
}

static void test_bad_counts(void **state)
{
	static const char big[] = HEAD "\"samples\":[[0,5,5,null,18446744073709551616]]}";
	char msg[128];

	(void)state;
	parse_bad(HEAD "\"samples\":[[0,5,5,null,-1]]}", "samples[0].count: -1 is negative", NULL);
	parse_bad(HEAD "\"samples\":[[0,5,5,null,2.5]]}", "samples[0].count: 2.5 is not an integer",
		  NULL);
	parse_bad(HEAD "\"samples\":[[0,5,5,null,1e3]]}", "samples[0].count: 1e3 is not an integer",
		  NULL);
	snprintf(msg, sizeof(msg),
		 "the integer at byte %zu (18446744073709551616...) does not fit in 64 bits",
		 (size_t)(strstr(big, "18446") - big));
	parse_bad(big, msg, NULL);
	parse_bad(HEAD "\"samples\":[[0,5,5,null,-9223372036854775809]]}",
		  "does not fit in 64 bits", NULL);
	parse_bad(HEAD "\"samples\":[[0,5,5,null,1,123456789012345678901234567890]]}",
		  "does not fit in 64 bits", NULL);
	parse_bad(HEAD "\"x\":123456789012345678901234567890}", "does not fit in 64 bits", NULL);
	parse_bad(HEAD "\"samples\":[[0,5,5,null,9223372036854775808],"
		       "[0,5,6,null,9223372036854775808]]}",
		  "samples[1].count: the sample counts add up to more than 2^64-1", NULL);
	parse_bad(HEAD "\"samples\":[[0,5,5,null,1,18446744073709551615],[0,5,6,null,1,1]]}",
		  "samples[1].offcpu_ns: the off-CPU times add up", NULL);
	parse_bad(HEAD "\"total_samples\":4,\"samples\":[[0,5,5,null,3]]}",
		  "corrupt: total_samples is 4 but the samples add up to 3", NULL);
	/* the largest count and the largest sum are fine */
	{
		static const char ok[] = HEAD "\"samples\":[[0,5,5,null,18446744073709551615]]}";
		struct profile *p = parse_ok(ok, strlen(ok));

		assert_true(profile__total_samples(p) == UINT64_MAX);
		profile__free(p);
	}
}

static void test_bad_references(void **state)
{
	(void)state;
	parse_bad(HEAD "\"stacks\":[{\"pid\":5,\"frames\":[]}],\"samples\":[[0,5,5,3,1]]}",
		  "samples[0].stack: unknown stack id 3 (1 stacks)", NULL);
	parse_bad(HEAD "\"stacks\":[{\"pid\":5,\"key\":\"0x9\",\"frames\":[]}],"
		       "\"samples\":[[0,6,6,0,1]]}",
		  "samples[0]: stack 0 is source 0, pid 5, not the sample's source 0, pid 6", NULL);
	parse_bad(HEAD "\"sources\":[{},{}],\"stacks\":[{\"source\":1,\"pid\":5,\"frames\":[]}],"
		       "\"samples\":[[0,5,5,0,1]]}",
		  "samples[0]: stack 0 is source 1, pid 5, not the sample's source 0, pid 5", NULL);
	parse_bad(HEAD "\"stacks\":[{\"pid\":5,\"key\":\"0x9\",\"frames\":[]},"
		       "{\"pid\":5,\"key\":9,\"frames\":[]}]}",
		  "stacks[1]: a second stack of source 0, pid 5 with key 0x9", NULL);
	parse_bad(HEAD "\"stacks\":[{\"id\":1,\"pid\":5,\"frames\":[]}]}",
		  "stacks[0].id: 1, but ids are the stacks' positions (0)", NULL);
	parse_bad(HEAD "\"stacks\":[{\"pid\":5,\"key\":0,\"frames\":[]}]}",
		  "stacks[0].key: 0 is the empty stack's key", NULL);
	parse_bad(HEAD "\"stacks\":[{\"pid\":5,\"key\":\"0x0\",\"frames\":[]}]}",
		  "stacks[0].key: 0 is the empty stack's key", NULL);
	parse_bad(HEAD "\"threads\":[{\"source\":1,\"pid\":5,\"tid\":5}]}",
		  "threads[0].source: source 1 is not in \"sources\" (0 sources so far", NULL);
	parse_bad(HEAD "\"stacks\":[{\"source\":1,\"pid\":5,\"frames\":[]}]}",
		  "stacks[0].source: source 1 is not in \"sources\" (0 sources so far", NULL);
	parse_bad(HEAD "\"sources\":[{}],\"samples\":[[1,5,5,null,1]]}",
		  "samples[0].source: source 1 is not in \"sources\" (1 sources)", NULL);
	/* version 1: the same checks of its objects */
	parse_bad(
		"{\"version\":1,\"tool\":\"fsp-bpf\",\"stacks\":[{\"pid\":5,\"frames\":[]}],"
		"\"samples\":[{\"pid\":6,\"tid\":6,\"stack\":0,\"count\":1}]}",
		"samples[0]: stack 0 is source 0, pid 5, key 0x1, not the sample's source 0, pid 6",
		NULL);
}

static void test_bad_frames(void **state)
{
	(void)state;
	parse_bad(HEAD "\"strings\":[\"F\"],"
		       "\"stacks\":[{\"pid\":5,\"frames\":[[\"m\",0],[\"push\",0]]}]}",
		  "stacks[0].frames[1].kind: unknown frame kind \"push\"",
		  "(expected \"m\", \"a\" or \"c\")");
	parse_bad(HEAD "\"strings\":[\"F\"],\"stacks\":[{\"pid\":5,\"frames\":[[\"mark\",0]]}]}",
		  "stacks[0].frames[0].kind: unknown frame kind \"mark\"", NULL);
	parse_bad(HEAD "\"strings\":[\"F\"],\"stacks\":[{\"pid\":5,\"frames\":[[1,0]]}]}",
		  "stacks[0].frames[0].kind: expected a string, got an integer", NULL);
	parse_bad(
		HEAD "\"strings\":[\"F\"],\"stacks\":[{\"pid\":5,\"frames\":[[\"m\"]]}]}",
		"stacks[0].frames[0]: 1 element, expected [kind, feature, instance, payload] with "
		"at least kind and feature",
		NULL);
	parse_bad(HEAD "\"strings\":[\"F\"],\"stacks\":[{\"pid\":5,\"frames\":[[]]}]}",
		  "stacks[0].frames[0]: 0 elements", NULL);
	parse_bad(HEAD "\"strings\":[\"F\"],\"stacks\":[{\"pid\":5,\"frames\":[[\"m\",5]]}]}",
		  "stacks[0].frames[0].feature: string index 5 is out of range (the string table "
		  "has 1 strings)",
		  NULL);
	parse_bad(HEAD "\"strings\":[\"F\"],\"stacks\":[{\"pid\":5,\"frames\":[[\"m\",null]]}]}",
		  "stacks[0].frames[0].feature: expected a string index (an integer), got null",
		  NULL);
	parse_bad(HEAD "\"strings\":[\"F\"],\"stacks\":[{\"pid\":5,\"frames\":[[\"a\",\"F\"]]}]}",
		  "stacks[0].frames[0].feature: expected a string index (an integer), got a string",
		  NULL);
	parse_bad(HEAD "\"strings\":[\"F\"],\"stacks\":[{\"pid\":5,\"frames\":[[\"m\",-1]]}]}",
		  "stacks[0].frames[0].feature: -1 is negative", NULL);
	parse_bad(HEAD "\"strings\":[\"F\"],\"stacks\":[{\"pid\":5,\"frames\":[[\"m\",0,[]]]}]}",
		  "stacks[0].frames[0].instance: expected a string index (an integer) or null, got "
		  "an array",
		  NULL);
	parse_bad(HEAD "\"strings\":[\"F\"],\"stacks\":[{\"pid\":5,\"frames\":[[\"m\",0,1]]}]}",
		  "stacks[0].frames[0].instance: string index 1 is out of range", NULL);
	parse_bad(HEAD "\"strings\":[\"F\"],"
		       "\"stacks\":[{\"pid\":5,\"frames\":[[\"m\",0,null,-3]]}]}",
		  "stacks[0].frames[0].payload: -3 is negative", NULL);
	parse_bad(HEAD "\"strings\":[\"F\"],"
		       "\"stacks\":[{\"pid\":5,\"frames\":[[\"m\",0,null,1.5]]}]}",
		  "stacks[0].frames[0].payload: 1.5 is not an integer", NULL);
	/* the layouts are not mixed */
	parse_bad(
		HEAD "\"stacks\":[{\"pid\":5,\"frames\":[{\"kind\":\"mark\",\"feature\":\"F\"}]}]}",
		"stacks[0].frames[0]: expected an array (a version 2 frame), got an object", NULL);
	parse_bad("{\"version\":1,\"tool\":\"fsp-bpf\",\"stacks\":[{\"pid\":5,\"frames\":[[\"m\",0]"
		  "]}]}",
		  "stacks[0].frames[0]: expected an object (a version 1 frame), got an array",
		  NULL);
	parse_bad("{\"version\":1,\"tool\":\"fsp-bpf\",\"samples\":[[0,5,5,null,1]]}",
		  "samples[0]: expected an object, got an array", NULL);
	/* version 1 frames */
	parse_bad("{\"version\":1,\"tool\":\"fsp-bpf\",\"stacks\":[{\"pid\":5,\"frames\":["
		  "{\"kind\":\"push\",\"feature\":\"F\"}]}]}",
		  "stacks[0].frames[0].kind: unknown frame kind \"push\"",
		  "(expected \"mark\" or \"antimark\")");
	parse_bad("{\"version\":1,\"tool\":\"fsp-bpf\",\"stacks\":[{\"pid\":5,\"frames\":["
		  "{\"kind\":\"mark\"}]}]}",
		  "stacks[0].frames[0]: missing \"feature\"", NULL);
	parse_bad("{\"version\":1,\"tool\":\"fsp-bpf\",\"stacks\":[{\"pid\":5,\"frames\":["
		  "{\"kind\":\"mark\",\"feature\":\"F\\u0000G\"}]}]}",
		  "stacks[0].frames[0].feature: the string contains a NUL character", NULL);
}

/* The string table: strings only, each once, no NUL. */
static void test_bad_strings(void **state)
{
	(void)state;
	parse_bad(HEAD "\"strings\":{}}", "strings: expected an array at byte 40", NULL);
	parse_bad(HEAD "\"strings\":[\"a\",null]}", "strings[1]: expected a string, got null",
		  NULL);
	parse_bad(HEAD "\"strings\":[\"a\",1]}", "strings[1]: expected a string, got an integer",
		  NULL);
	parse_bad(HEAD "\"strings\":[[\"a\"]]}", "strings[0]: expected a string, got an array",
		  NULL);
	parse_bad(HEAD "\"strings\":[\"a\",\"b\",\"a\"]}",
		  "strings[2]: \"a\" is also strings[0] (each string once)", NULL);
	parse_bad(HEAD "\"strings\":[\"a\",\"\\u0061\"]}", "strings[1]: \"a\" is also strings[0]",
		  NULL);
	parse_bad(HEAD "\"strings\":[\"\",\"\"]}", "strings[1]: \"\" is also strings[0]", NULL);
	parse_bad(HEAD "\"strings\":[\"F\\u0000G\"]}",
		  "strings[0]: the string contains a NUL character", NULL);
	parse_bad(HEAD "\"strings\":[\"a\x01\"]}", "invalid JSON at byte 43",
		  "a control character (0x01) in a string");
	parse_bad(HEAD "\"strings\":[\"\xff\"]}", "invalid JSON", "invalid utf-8");
	parse_bad(HEAD "\"strings\":[\"a\" \"b\"]}", "invalid JSON at byte 45", "',' or ']'");
	/* an unused string is fine; the writer drops it */
	{
		static const char doc[] = HEAD "\"strings\":[\"unused\",\"F\"],"
					       "\"stacks\":[{\"pid\":5,\"frames\":[[\"m\",1]]}]}";
		struct profile *p = parse_ok(doc, strlen(doc));
		char *text = write_str(p, NULL);

		assert_non_null(strstr(text, "\"strings\": [\n    \"F\"\n  ],"));
		free(text);
		profile__free(p);
	}
}

/* A document: HEAD, then pre, then n times rep, then post. */
static char *build(const char *pre, const char *rep, size_t n, const char *post, size_t *len)
{
	size_t lr = strlen(rep), lh = strlen(HEAD), lp = strlen(pre), lq = strlen(post);
	char *s = malloc(lh + lp + n * lr + lq + 1), *d = s;

	assert_non_null(s);
	memcpy(d, HEAD, lh);
	d += lh;
	memcpy(d, pre, lp);
	d += lp;
	for (size_t i = 0; i < n; i++, d += lr)
		memcpy(d, rep, lr);
	memcpy(d, post, lq + 1);
	*len = (size_t)(d - s) + lq;
	return s;
}

static void test_bad_limits(void **state)
{
	char *doc, *s;
	size_t len;

	(void)state;
	/* nesting: 16 levels in all are fine, 17 are not, by the scanner or json-c */
	doc = build("\"x\":", "[", 15, "", &len);
	s = malloc(len + 32);
	assert_non_null(s);
	sprintf(s, "%s%s}", doc, "]]]]]]]]]]]]]]]");
	{
		struct profile *p = parse_ok(s, strlen(s));

		profile__free(p);
	}
	free(s);
	free(doc);
	doc = build("\"x\":", "[", 16, "0", &len);
	parse_bad_len(doc, len, "nesting deeper than 16 levels", NULL);
	free(doc);
	doc = build("\"samples\":[[0,5,5,null,1,0,", "[", 14, "0", &len);
	parse_bad_len(doc, len, "nesting deeper than 16 levels", NULL);
	free(doc);
	doc = build("\"x\":", "{\"a\":", 20, "0", &len);
	parse_bad_len(doc, len, "nesting deeper than 16 levels", NULL);
	free(doc);

	/* strings: 64 KiB is the limit of labels and metadata */
	doc = build("\"strings\":[\"", "y", PROFILE_IO_MAX_STRING,
		    "\"],\"stacks\":[{\"pid\":5,\"frames\":[[\"m\",0]]}]}", &len);
	{
		struct profile *p = parse_ok(doc, len);

		profile__free(p);
	}
	free(doc);
	doc = build("\"strings\":[\"a\",\"", "y", PROFILE_IO_MAX_STRING + 1, "\"]}", &len);
	parse_bad_len(doc, len, "strings[1]: a string of 65537 bytes",
		      "longer than the limit of 65536");
	free(doc);
	doc = build("\"host\":\"", "h", PROFILE_IO_MAX_STRING + 1, "\"}", &len);
	parse_bad_len(doc, len, "host: a string of 65537 bytes", NULL);
	free(doc);

	/* one value (a record, a string of an unknown field) is at most 4 MiB */
	doc = build("\"x\":\"", "z", PROFILE_IO_MAX_VALUE + 1, "\"}", &len);
	parse_bad_len(doc, len, "a value at byte 34 is longer than 4194304 bytes (the limit)",
		      NULL);
	free(doc);
	doc = build("\"samples\":[[0,5,5,null,1,0,[", "0,", 2200000, "0]]]}", &len);
	parse_bad_len(doc, len, "a record at byte 41 is longer than 4194304 bytes", NULL);
	free(doc);
	/* a stack of the writer's form is a record too */
	doc = build("\"strings\":[\"F\"],\"stacks\":[{\"pid\":5,\"frames\":[", "[\"m\",0],",
		    PROFILE_IO_MAX_FRAMES - 1, "[\"m\",0]],\"x\":\"", &len);
	s = malloc(len + PROFILE_IO_MAX_VALUE + 16);
	assert_non_null(s);
	memcpy(s, doc, len);
	memset(s + len, ' ', PROFILE_IO_MAX_VALUE);
	strcpy(s + len + PROFILE_IO_MAX_VALUE, "\"}]}");
	parse_bad_len(s, strlen(s), "a record at byte 56 is longer than 4194304 bytes", NULL);
	free(s);
	free(doc);
	/* but an unknown array of any size is walked, not held */
	doc = build("\"x\":[", "0,", 2200000, "0]}", &len);
	{
		struct profile *p = parse_ok(doc, len);

		profile__free(p);
	}
	free(doc);

	/* frames of one stack: 4096 are fine, 4097 are not */
	doc = build("\"strings\":[\"F\"],\"stacks\":[{\"pid\":5,\"frames\":[", "[\"m\",0],",
		    PROFILE_IO_MAX_FRAMES - 1, "[\"m\",0]]}]}", &len);
	{
		struct profile *p = parse_ok(doc, len);
		struct profile_stack st;

		assert_int_equal(profile__stack(p, 0, &st), 0);
		assert_int_equal(st.depth, PROFILE_IO_MAX_FRAMES);
		profile__free(p);
	}
	free(doc);
	doc = build("\"strings\":[\"F\"],\"stacks\":[{\"pid\":5,\"frames\":[", "[\"m\",0],",
		    PROFILE_IO_MAX_FRAMES, "[\"m\",0]]}]}", &len);
	parse_bad_len(doc, len, "stacks[0].frames: 4097 frames, more than the limit of 4096", NULL);
	free(doc);
}

/* ---- the inputs the fuzzer found ------------------------------------------------------------ */

/* Every file of tests/unit/fuzz_crashes/ (inputs that once crashed, leaked
 * or hung the reader, or that its two paths read differently) is read: a
 * profile or a message, nothing else, the same on both paths. */
static void test_fuzz_crashes(void **state)
{
	char dir[512], path[1024], err[512], *buf;
	struct dirent *de;
	int nr = 0;
	DIR *d;

	(void)state;
	snprintf(path, sizeof(path), "%s", __FILE__);
	snprintf(dir, sizeof(dir), "%s/fuzz_crashes", dirname(path));
	d = opendir(dir);
	if (!d)
		fail_msg("%s: %s", dir, strerror(errno));
	while ((de = readdir(d))) {
		struct profile *p;
		struct stat st;
		FILE *f;

		if (de->d_name[0] == '.' || !strcmp(de->d_name, "README"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		assert_int_equal(stat(path, &st), 0);
		buf = malloc(st.st_size ? st.st_size : 1);
		assert_non_null(buf);
		f = fopen(path, "r");
		assert_non_null(f);
		assert_int_equal(fread(buf, 1, st.st_size, f), st.st_size);
		fclose(f);
		err[0] = 0;
		p = profile__parse_json(buf, st.st_size, de->d_name, err, sizeof(err));
		/* the reader's two paths agree, as the fuzzer checks */
		{
			char slow_err[512] = "";
			struct profile *q = parse_path(buf, st.st_size, de->d_name, false, slow_err,
						       sizeof(slow_err));

			assert_int_equal(!p, !q);
			if (q) {
				char *a = write_str(p, NULL), *b = write_str(q, NULL);

				assert_string_equal(a, b);
				free(a);
				free(b);
				profile__free(q);
			} else {
				assert_string_equal(err, slow_err);
			}
		}
		if (p) {
			FILE *null = fopen("/dev/null", "w");
			struct attrib *a = attrib__compute(p, NULL);

			assert_non_null(null);
			assert_non_null(a);
			assert_int_equal(profile__write_json(null, p), 0);
			fclose(null);
			attrib__free(a);
			profile__free(p);
		} else {
			assert_int_equal(strncmp(err, de->d_name, strlen(de->d_name)), 0);
		}
		free(buf);
		nr++;
	}
	closedir(d);
	print_message("%d fuzzer inputs read\n", nr);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip_rich),
		cmocka_unit_test(test_round_trip_sources),
		cmocka_unit_test(test_round_trip_nspid),
		cmocka_unit_test(test_round_trip_payloads_lost),
		cmocka_unit_test(test_round_trip_empty),
		cmocka_unit_test(test_write_deterministic_and_save),
		cmocka_unit_test(test_save_errors),
		cmocka_unit_test(test_write_errors),
		cmocka_unit_test(test_invalid_utf8_written_valid),
		cmocka_unit_test(test_v1_accepted),
		cmocka_unit_test(test_v1_minimal),
		cmocka_unit_test(test_doc_example),
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_unknown_fields_ignored),
		cmocka_unit_test(test_offcpu_diagnostics),
		cmocka_unit_test(test_other_forms),
		cmocka_unit_test(test_member_order),
		cmocka_unit_test(test_load_chunked),
		cmocka_unit_test(test_load_stdin),
		cmocka_unit_test(test_bad_file),
		cmocka_unit_test(test_bad_json),
		cmocka_unit_test(test_bad_not_a_profile),
		cmocka_unit_test(test_bad_version),
		cmocka_unit_test(test_bad_types),
		cmocka_unit_test(test_bad_counts),
		cmocka_unit_test(test_bad_references),
		cmocka_unit_test(test_bad_frames),
		cmocka_unit_test(test_bad_strings),
		cmocka_unit_test(test_bad_limits),
		cmocka_unit_test(test_fuzz_crashes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
