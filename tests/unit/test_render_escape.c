// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests of every renderer with hostile labels, comms, hosts and
 * targets (escape sequences, line breaks, invalid UTF-8, C1 and
 * bidirectional controls): the human-readable ones (text report, diff
 * table) write them escaped by escape.h's rule, the machine formats stay
 * valid (folded: percent-encoded, valid UTF-8; pprof: valid UTF-8; JSON:
 * valid, the labels read back).
 */
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <zlib.h>

#include "diff.h"
#include "escape.h"
#include "profile.pb-c.h"
#include "profile_io.h"
#include "report.h"
#include "unit_helpers.h"
#include "utf8.h"

/* Sets the title, clears the screen, turns the text red. */
#define TITLE "\x1b]0;owned\x07\x1b[2J\x1b[31mRED"
#define TITLE_E "\\x1b]0;owned\\x07\\x1b[2J\\x1b[31mRED"
#define LINES "line\nbreak\ttab"
#define LINES_E "line\\x0abreak\\x09tab"
#define BAD "bad\xff\xfe"
#define BAD_E "bad\\xff\\xfe"
#define BIDI "evil\xe2\x80\xaetxt.c" /* U+202E RIGHT-TO-LEFT OVERRIDE */
#define BIDI_E "evil\\u202etxt.c"
#define C1                                                                                         \
	"c1\xc2\x9b"                                                                               \
	"31m" /* U+009B, CSI */
#define C1_E "c1\\u009b31m"
#define COMM "\x1b[31mcomm\x7f"
#define COMM_E "\\x1b[31mcomm\\x7f"

static const struct profile_meta hostile_meta = {
	.target = "command ./wl " TITLE,
	.command_line = "fsp-bpf -- ./wl " TITLE,
	.host = "host\x1b[5m",
	.kernel = "6.1.0\n",
	.tool_version = "0.1\x1b[0m",
	.frequency_hz = 1000,
	.period_ns = 1000000,
	.duration_s = 1.0,
};

/*
 * Process 7 (comm COMM; thread 8 "w\tk"): TITLE charged 70 samples (LINES
 * 40, BAD 30), "plain" 20 (BIDI), C1 10 ("x\y"), 5 uncharged; 5 ms off CPU
 * in TITLE/LINES; events of TITLE/LINES.
 */
static struct profile *hostile_profile(void)
{
	struct profile_event_stats st = {
		.enters = 3, .leaves = 3, .total_ns = 3000, .max_ns = 1500};
	struct profile *p = profile__new();

	assert_non_null(p);
	assert_int_equal(profile__set_meta(p, &hostile_meta), 0);
	assert_int_equal(profile__add_thread(p, 7, 7, COMM), 0);
	assert_int_equal(profile__add_thread(p, 7, 8, "w\tk"), 0);
	ADD_STACK(p, 7, 1, MARK(TITLE, LINES));
	ADD_STACK(p, 7, 2, MARK(TITLE, BAD));
	ADD_STACK(p, 7, 3, MARK("plain", BIDI));
	ADD_STACK(p, 7, 4, MARK(C1, "x\\y"));
	ADD_SAMPLES(p, 7, 7, 1, 40);
	ADD_SAMPLES(p, 7, 8, 2, 30);
	ADD_SAMPLES(p, 7, 7, 3, 20);
	ADD_SAMPLES(p, 7, 8, 4, 10);
	ADD_SAMPLES(p, 7, 7, 0, 5);
	assert_int_equal(profile__add_offcpu(p, 7, 7, 1, 5000000), 0);
	st.hist[10] = 3;
	assert_int_equal(profile__add_events(p, 7, TITLE, LINES, &st), 0);
	return p;
}

/* ---- checks ----------------------------------------------------------------- */

/* Text a terminal shows as it is: valid UTF-8, no control but the line
 * ends, no character the rule escapes. */
static void assert_terminal_safe(const char *text)
{
	size_t n = strlen(text), i, len;
	uint32_t cp;

	for (i = 0; i < n; i += len) {
		if (text[i] == '\n') {
			len = 1;
			continue;
		}
		if (escape__unit(text + i, n - i, &len, &cp) != ESCAPE_KEEP)
			fail_msg("byte %zu (U+%04X) reaches the terminal raw in:\n%s", i, cp, text);
	}
}

static void assert_has(const char *text, const char *needle)
{
	if (!strstr(text, needle)) {
		fprintf(stderr, "%s", text);
		fail_msg("\"%s\" not in the text above", needle);
	}
}

/* The line of text that contains needle, which must be there. */
static char *line_of(const char *text, const char *needle)
{
	const char *at = strstr(text, needle), *start, *end;
	char *line;

	if (!at)
		assert_has(text, needle);
	for (start = at; start > text && start[-1] != '\n'; start--)
		;
	end = strchr(at, '\n');
	assert_non_null(end);
	line = strndup(start, (size_t)(end - start));
	assert_non_null(line);
	return line;
}

/* ---- renderers ---------------------------------------------------------------- */

static char *render_text_rc(const struct profile *p, const struct report_opts *o, int want)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(report__text(f, p, NULL, o), want);
	assert_int_equal(fclose(f), 0);
	assert_terminal_safe(buf);
	return buf;
}

static char *render_folded(const struct profile *p, const struct report_opts *o)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(report__folded(f, p, o), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

/* ---- text ----------------------------------------------------------------------- */

static void test_text_by_feature(void **state)
{
	struct report_opts o = {.min_pct = 0};
	struct profile *p = hostile_profile();
	char *text, *line;

	(void)state;
	text = render_text_rc(p, &o, 0);
	/* the header: tool version and target from the profile */
	line = line_of(text, "feature profile of");
	assert_string_equal(line, "fsp-bpf 0.1\\x1b[0m: feature profile of command ./wl " TITLE_E);
	free(line);
	line = line_of(text, " accounts for 66.67%");
	assert_string_equal(line, TITLE_E " accounts for 66.67% of running time (70.0 / 105.0 ms, "
					  "70 samples); 3 calls, 1.00 us/call, max 1.50 us; "
					  "off-CPU 5.0 ms");
	free(line);
	/* an instance line ends with its name: every one on a line of its own */
	assert_has(text, "off-CPU       5.0 ms  " LINES_E "\n");
	assert_has(text, "off-CPU       0.0 ms  " BAD_E "\n");
	assert_has(text, "off-CPU       0.0 ms  " BIDI_E "\n");
	assert_has(text, "off-CPU       0.0 ms  x\\\\y\n");
	assert_has(text, "\n" C1_E " accounts for 9.52%");
	/* the wall-clock view */
	assert_has(text, "  68.18%  " TITLE_E "\n");
	assert_has(text, "  18.18%  plain\n");
	free(text);
	profile__free(p);
}

static void test_text_sections(void **state)
{
	struct report_opts o = {.by = REPORT_BY_THREAD};
	struct profile *p = hostile_profile();
	char *text;

	(void)state;
	text = render_text_rc(p, &o, 0);
	assert_has(text, "\nthread 7 (" COMM_E ") of pid 7: 65.0 ms");
	assert_has(text, "\nthread 8 (w\\x09k) of pid 7: 40.0 ms");
	assert_has(text, "\n  " TITLE_E " accounts for");
	free(text);
	o.by = REPORT_BY_PROCESS;
	text = render_text_rc(p, &o, 0);
	assert_has(text, "\nprocess 7 (" COMM_E "): 105.0 ms");
	free(text);
	profile__free(p);
}

static void test_text_feature_and_filter(void **state)
{
	struct report_opts o = {.feature = TITLE};
	struct profile *p = hostile_profile();
	char *text;

	(void)state;
	/* one feature, its histogram */
	text = render_text_rc(p, &o, 0);
	assert_has(text, "\n" TITLE_E " accounts for 66.67%");
	assert_has(text, "  " LINES_E "\n");
	assert_has(text, "[1.02 us, 2.05 us)");
	free(text);
	/* names not found: the user's and the profile's, escaped */
	o.feature = "nope\x1b[8m";
	text = render_text_rc(p, &o, -ENOENT);
	assert_has(text, "\nno feature nope\\x1b[8m in this profile\n"
			 "its features are: " TITLE_E ", " C1_E ", plain\n");
	free(text);
	o.feature = "nope\x1b[8m,plain";
	text = render_text_rc(p, &o, 0);
	assert_has(text, "\nno feature nope\\x1b[8m in this profile\n");
	free(text);
	/* a process filter by the hostile comm */
	o.feature = NULL;
	o.comm = COMM;
	text = render_text_rc(p, &o, 0);
	assert_has(text, "\n  filter: comm " COMM_E ": 1 of 1 process, 105 of 105 samples");
	free(text);
	profile__free(p);
}

/* A merged profile: the source's host names its processes. */
static void test_text_merged_host(void **state)
{
	struct report_opts o = {.by = REPORT_BY_PROCESS};
	struct profile_meta m = hostile_meta;
	struct profile *p = profile__new();
	char *text;

	(void)state;
	assert_non_null(p);
	assert_int_equal(profile__set_meta(p, &hostile_meta), 0);
	assert_int_equal(profile__add_source(p, &m, NULL), 0);
	m.host = "other\n";
	assert_int_equal(profile__add_source(p, &m, NULL), 1);
	for (uint32_t i = 0; i < 2; i++) {
		assert_int_equal(profile__use_source(p, i), 0);
		assert_int_equal(profile__add_thread(p, 100, 100, COMM), 0);
		ADD_STACK(p, 100, 1, MARK("F", BIDI));
		ADD_SAMPLES(p, 100, 100, 1, 10 * (i + 1));
	}
	text = render_text_rc(p, &o, 0);
	assert_has(text, "\nprocess other\\x0a:100 (" COMM_E "): 20.0 ms");
	assert_has(text, "\nprocess host\\x1b[5m:100 (" COMM_E "): 10.0 ms");
	free(text);
	profile__free(p);
}

/* ---- diff ---------------------------------------------------------------------- */

/* Code points of s up to its end or a newline. */
static size_t columns(const char *s)
{
	size_t n = 0;

	for (; *s && *s != '\n'; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

static void test_diff_text(void **state)
{
	struct profile *base = hostile_profile(), *new_p = hostile_profile();
	struct diff_report_opts o = {.min_pct = 0};
	char *buf = NULL, *line, *l;
	size_t len = 0, width = 0, rows = 0;
	struct diff *d;
	FILE *f;

	(void)state;
	ADD_STACK(base, 7, 5, MARK("caf\xc3\xa9", "\xe6\x97\xa5"));
	ADD_SAMPLES(base, 7, 7, 5, 3);
	ADD_STACK(new_p, 7, 5, MARK("caf\xc3\xa9", "\xe6\x97\xa5"));
	ADD_SAMPLES(new_p, 7, 7, 5, 6);
	d = diff__compute(base, new_p, NULL);
	assert_non_null(d);
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(diff__text(f, d, &o), 0);
	assert_int_equal(fclose(f), 0);
	assert_terminal_safe(buf);
	line = line_of(buf, "base:");
	assert_string_equal(line, "  base: command ./wl " TITLE_E " on host\\x1b[5m, started an "
				  "unknown time, 108 samples = 108.0 ms (1.000 ms per sample)");
	free(line);
	assert_has(buf, "\n" TITLE_E " ");
	assert_has(buf, "\n  " LINES_E " ");
	assert_has(buf, "\n  " BAD_E " ");
	assert_has(buf, "\n  " BIDI_E " ");
	assert_has(buf, "\n  x\\\\y ");
	/* every row of the table is as wide as its header: names padded by
	 * their escaped width, UTF-8 characters one column each */
	for (l = strstr(buf, "feature / instance"); l && *l; l = strchr(l, '\n') + 1) {
		if (!width)
			width = columns(l);
		else if (columns(l) != width)
			fail_msg("misaligned row (%zu columns, the header %zu):\n%s", columns(l),
				 width, buf);
		rows++;
		if (!strchr(l, '\n'))
			break;
	}
	assert_int_equal(rows, 1 + 4 + 5);
	free(buf);
	diff__free(d);
	profile__free(base);
	profile__free(new_p);
}

/* ---- folded --------------------------------------------------------------------- */

/* %XX back to bytes. */
static char *percent_decode(const char *s, size_t n)
{
	char *out = malloc(n + 1), hex[3] = "";
	size_t i, o = 0;

	assert_non_null(out);
	for (i = 0; i < n; i++) {
		if (s[i] != '%') {
			out[o++] = s[i];
			continue;
		}
		assert_true(i + 2 < n);
		memcpy(hex, s + i + 1, 2);
		out[o++] = (char)strtoul(hex, NULL, 16);
		i += 2;
	}
	out[o] = 0;
	return out;
}

static void test_folded(void **state)
{
	static const char *const labels[] = {TITLE, LINES, BAD, "plain", BIDI, C1, "x\\y"};
	struct report_opts o = {.by = REPORT_BY_THREAD};
	struct profile *p = hostile_profile();
	char *text, *l, *frame, *end, *dec;
	size_t found = 0, lines = 0;

	(void)state;
	text = render_folded(p, NULL);
	assert_string_equal(text, "%1B]0%3Bowned%07%1B[2J%1B[31mRED;bad%FF%FE 30\n"
				  "%1B]0%3Bowned%07%1B[2J%1B[31mRED;line%0Abreak%09tab 40\n"
				  "(no feature) 5\n"
				  "c1%C2%9B31m;x\\y 10\n"
				  "plain;evil%E2%80%AEtxt.c 20\n");
	assert_terminal_safe(text);
	free(text);
	/* by thread: the comms too; each line is FRAME;...;FRAME COUNT, its
	 * frames decode to the labels exactly */
	text = render_folded(p, &o);
	assert_terminal_safe(text);
	assert_has(text, "%1B[31mcomm%7F (7);%1B[31mcomm%7F (7);");
	assert_has(text, "%1B[31mcomm%7F (7);w%09k (8);");
	for (l = text; *l; l = end + 1) {
		end = strchr(l, '\n');
		assert_non_null(end);
		lines++;
		*end = 0;
		*strrchr(l, ' ') = 0; /* the count */
		for (frame = l; frame; frame = strchr(frame, ';') ? strchr(frame, ';') + 1 : NULL) {
			size_t n = strchr(frame, ';') ? (size_t)(strchr(frame, ';') - frame)
						      : strlen(frame);

			dec = percent_decode(frame, n);
			for (size_t i = 0; i < sizeof(labels) / sizeof(labels[0]); i++)
				found += !strcmp(dec, labels[i]);
			free(dec);
		}
	}
	assert_int_equal(lines, 5);
	/* 4 lines of a feature and an instance, and "(no feature)" */
	assert_int_equal(found, 8);
	free(text);
	profile__free(p);
}

/* ---- pprof ---------------------------------------------------------------------- */

static Perftools__Profiles__Profile *render_pprof(const struct profile *p)
{
	Perftools__Profiles__Profile *prof;
	size_t gz_len = 0, cap = 1 << 16;
	unsigned char *raw = malloc(cap);
	char *gz = NULL;
	z_stream zs = {};
	FILE *f = open_memstream(&gz, &gz_len);

	assert_non_null(f);
	assert_non_null(raw);
	assert_int_equal(report__pprof(f, p, NULL), 0);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(inflateInit2(&zs, 15 + 16), Z_OK);
	zs.next_in = (Bytef *)gz;
	zs.avail_in = (uInt)gz_len;
	zs.next_out = raw;
	zs.avail_out = (uInt)cap;
	assert_int_equal(inflate(&zs, Z_FINISH), Z_STREAM_END);
	prof = perftools__profiles__profile__unpack(NULL, zs.total_out, raw);
	assert_non_null(prof);
	inflateEnd(&zs);
	free(raw);
	free(gz);
	return prof;
}

static bool has_string(const Perftools__Profiles__Profile *prof, const char *s)
{
	for (size_t i = 0; i < prof->n_string_table; i++)
		if (!strcmp(prof->string_table[i], s))
			return true;
	return false;
}

static void test_pprof(void **state)
{
	struct profile *p = hostile_profile();
	Perftools__Profiles__Profile *prof = render_pprof(p);
	size_t i;

	(void)state;
	/* proto3 strings: valid UTF-8, every one */
	for (i = 0; i < prof->n_string_table; i++) {
		const char *s = prof->string_table[i];

		if (utf8__valid_len(s, strlen(s)) != strlen(s))
			fail_msg("string %zu is not valid UTF-8", i);
	}
	/* invalid bytes are U+FFFD, as in the JSON profile; the rest is kept */
	assert_true(has_string(prof, "bad\xef\xbf\xbd\xef\xbf\xbd"));
	assert_true(has_string(prof, TITLE ": bad\xef\xbf\xbd\xef\xbf\xbd"));
	assert_false(has_string(prof, BAD));
	assert_true(has_string(prof, TITLE ": " LINES));
	assert_true(has_string(prof, BIDI));
	assert_true(has_string(prof, COMM));
	assert_true(has_string(prof, "fsp-bpf 0.1\x1b[0m: feature profile of command ./wl " TITLE));
	perftools__profiles__profile__free_unpacked(prof, NULL);
	profile__free(p);
}

/* ---- JSON ----------------------------------------------------------------------- */

static void test_json(void **state)
{
	struct profile *p = hostile_profile();
	struct json_object *o, *f, *in;
	char *buf = NULL;
	size_t len = 0, i;
	FILE *out = open_memstream(&buf, &len);

	(void)state;
	assert_non_null(out);
	assert_int_equal(profile__write_json(out, p), 0);
	assert_int_equal(fclose(out), 0);
	/* valid UTF-8, controls only as JSON escapes */
	assert_int_equal(utf8__valid_len(buf, len), len);
	for (i = 0; i < len; i++)
		if ((unsigned char)buf[i] < 0x20 && buf[i] != '\n')
			fail_msg("raw control 0x%02x at byte %zu of the JSON profile",
				 (unsigned char)buf[i], i);
	assert_has(buf, "\\u001b]0;owned\\u0007\\u001b[2J\\u001b[31mRED");
	o = json_tokener_parse(buf);
	assert_non_null(o);
	assert_true(json_object_object_get_ex(o, "target", &f));
	assert_string_equal(json_object_get_string(f), "command ./wl " TITLE);
	assert_true(json_object_object_get_ex(o, "features", &f));
	f = json_object_array_get_idx(f, 0);
	assert_true(json_object_object_get_ex(f, "name", &in));
	assert_string_equal(json_object_get_string(in), TITLE);
	json_object_put(o);
	free(buf);
	profile__free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text_by_feature),
		cmocka_unit_test(test_text_sections),
		cmocka_unit_test(test_text_feature_and_filter),
		cmocka_unit_test(test_text_merged_host),
		cmocka_unit_test(test_diff_text),
		cmocka_unit_test(test_folded),
		cmocka_unit_test(test_pprof),
		cmocka_unit_test(test_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
