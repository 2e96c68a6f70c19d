// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Unit tests of the escaping of outside text in human-readable output
 * (analysis/common/escape.c). */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "escape.h"
#include "log.h"
#include "probemap.h"
#include "unit_helpers.h"
#include "utf8.h"

/* ---- helpers ----------------------------------------------------------------- */

/* escape__str into a fresh buffer, checked against escape__fputs. */
static char *esc(const char *s)
{
	size_t n = escape__str(NULL, 0, s), len = 0;
	char *buf = malloc(n + 1), *mem = NULL;
	FILE *f;

	assert_non_null(buf);
	assert_int_equal(escape__str(buf, n + 1, s), n);
	assert_int_equal(strlen(buf), n);
	f = open_memstream(&mem, &len);
	assert_non_null(f);
	escape__fputs(s, f);
	assert_int_equal(fclose(f), 0);
	assert_string_equal(mem, buf);
	free(mem);
	return buf;
}

static void assert_esc(const char *s, const char *want)
{
	char *got = esc(s);

	assert_string_equal(got, want);
	free(got);
}

/* The UTF-8 encoding of cp (no surrogate) into buf (5 bytes). */
static void encode(uint32_t cp, char *buf)
{
	unsigned char *u = (unsigned char *)buf;

	if (cp < 0x80) {
		u[0] = (unsigned char)cp;
		u[1] = 0;
	} else if (cp < 0x800) {
		u[0] = 0xc0 | cp >> 6;
		u[1] = 0x80 | (cp & 0x3f);
		u[2] = 0;
	} else if (cp < 0x10000) {
		u[0] = 0xe0 | cp >> 12;
		u[1] = 0x80 | (cp >> 6 & 0x3f);
		u[2] = 0x80 | (cp & 0x3f);
		u[3] = 0;
	} else {
		u[0] = 0xf0 | cp >> 18;
		u[1] = 0x80 | (cp >> 12 & 0x3f);
		u[2] = 0x80 | (cp >> 6 & 0x3f);
		u[3] = 0x80 | (cp & 0x3f);
		u[4] = 0;
	}
}

static unsigned int hexval(char c)
{
	return c <= '9' ? (unsigned int)(c - '0') : (unsigned int)(c - 'a' + 10);
}

/* The reader of the escaped text: \\, \xHH, \uHHHH, \UHHHHHHHH back to
 * bytes (n of them into out). Fails the test on anything else. */
static size_t unescape(const char *s, char *out)
{
	size_t o = 0, digits, i;
	uint32_t v;

	while (*s) {
		if (*s != '\\') {
			out[o++] = *s++;
			continue;
		}
		s++;
		if (*s == '\\') {
			out[o++] = '\\';
			s++;
			continue;
		}
		assert_true(*s == 'x' || *s == 'u' || *s == 'U');
		digits = *s == 'x' ? 2 : *s == 'u' ? 4 : 8;
		for (i = 1, v = 0; i <= digits; i++) {
			assert_true((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f'));
			v = v << 4 | hexval(s[i]);
		}
		if (digits == 2) {
			out[o++] = (char)v;
		} else {
			encode(v, out + o);
			o += strlen(out + o);
		}
		s += digits + 1;
	}
	out[o] = 0;
	return o;
}

/* Whether the rule escapes the valid code point cp (the list of escape.h,
 * written out again). */
static bool in_set(uint32_t cp)
{
	static const uint32_t ranges[][2] = {
		{0x00, 0x1f},	  {0x7f, 0x9f},	    {0x061c, 0x061c}, {0x200b, 0x200b},
		{0x200e, 0x200f}, {0x2028, 0x202e}, {0x2060, 0x206f}, {0xfdd0, 0xfdef},
		{0xfeff, 0xfeff}, {0xfff9, 0xfffb},
	};

	for (size_t i = 0; i < sizeof(ranges) / sizeof(ranges[0]); i++)
		if (cp >= ranges[i][0] && cp <= ranges[i][1])
			return true;
	return (cp & 0xfffe) == 0xfffe;
}

/* ---- the rule ----------------------------------------------------------------- */

static void test_ascii(void **state)
{
	char s[2] = "", want[8];

	(void)state;
	/* printable ASCII is kept, the backslash doubled */
	for (int c = 0x20; c < 0x7f; c++) {
		s[0] = (char)c;
		assert_esc(s, c == '\\' ? "\\\\" : s);
	}
	/* every C0 control and DEL: \xHH, lowercase */
	for (int c = 1; c < 0x20; c++) {
		s[0] = (char)c;
		snprintf(want, sizeof(want), "\\x%02x", c);
		assert_esc(s, want);
	}
	assert_esc("\x7f", "\\x7f");
	assert_esc("\t\n\r", "\\x09\\x0a\\x0d");
	assert_esc("", "");
	assert_esc("fizzbuzz.c:8", "fizzbuzz.c:8");
	assert_esc("Generic sequences (no feature) a;b%c", "Generic sequences (no feature) a;b%c");
	assert_esc("C:\\x1b", "C:\\\\x1b"); /* a label that reads like an escape */
	assert_esc("\x1b]0;owned\x07\x1b[2J\x1b[31mRED", "\\x1b]0;owned\\x07\\x1b[2J\\x1b[31mRED");
}

static void test_invalid_bytes(void **state)
{
	char s[2] = "", want[8];

	(void)state;
	/* every byte 0x80-0xff alone starts no valid sequence */
	for (int c = 0x80; c <= 0xff; c++) {
		s[0] = (char)c;
		snprintf(want, sizeof(want), "\\x%02x", c);
		assert_esc(s, want);
	}
	assert_esc("\xff\xfe", "\\xff\\xfe");
	/* overlong forms: every byte escaped */
	assert_esc("\xc0\x80", "\\xc0\\x80");
	assert_esc("\xc1\xbf", "\\xc1\\xbf");
	assert_esc("\xe0\x80\x80", "\\xe0\\x80\\x80");
	assert_esc("\xe0\x9f\xbf", "\\xe0\\x9f\\xbf");
	assert_esc("\xf0\x80\x80\x80", "\\xf0\\x80\\x80\\x80");
	assert_esc("\xf0\x8f\xbf\xbf", "\\xf0\\x8f\\xbf\\xbf");
	/* an overlong slash or ESC does not pass for the character */
	assert_esc("\xc0\xaf\xc0\x9b", "\\xc0\\xaf\\xc0\\x9b");
	/* surrogates, and above U+10FFFF */
	assert_esc("\xed\xa0\x80", "\\xed\\xa0\\x80");
	assert_esc("\xed\xbf\xbf", "\\xed\\xbf\\xbf");
	assert_esc("\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80");
	assert_esc("\xf5\x80\x80\x80", "\\xf5\\x80\\x80\\x80");
	/* truncated sequences: at the end, before ASCII, before another lead */
	assert_esc("a\xe2\x82", "a\\xe2\\x82");
	assert_esc("\xe2\x82z", "\\xe2\\x82z");
	assert_esc("\xf0\x9f\x98\xc3\xa9", "\\xf0\\x9f\\x98\xc3\xa9");
	/* a valid sequence right after invalid bytes is kept */
	assert_esc("\x80\xe2\x86\x92\xbf", "\\x80\xe2\x86\x92\\xbf");
	/* a raw 0x9b (8-bit CSI) and the character U+009B read differently */
	assert_esc("\x9b\xc2\x9b", "\\x9b\\u009b");
}

static void test_c1_and_format(void **state)
{
	static const uint32_t escaped[] = {
		0x061c, 0x200b, 0x200e, 0x200f, 0x2028, 0x2029, 0x202a, 0x202b,
		0x202c, 0x202d, 0x202e, 0x2060, 0x2061, 0x2062, 0x2063, 0x2064,
		0x2065, 0x2066, 0x2067, 0x2068, 0x2069, 0x206a, 0x206f, 0xfeff,
		0xfff9, 0xfffa, 0xfffb, 0xfdd0, 0xfdef, 0xfffe, 0xffff,
	};
	static const uint32_t kept[] = {
		0xa0,	0xad,	0xe9,	0x061b, 0x061d,	 0x200a,  0x200c,  0x200d,   0x2010,
		0x2027, 0x202f, 0x205f, 0x2070, 0x2192,	 0xfdcf,  0xfdf0,  0xfe0f,   0xfef0,
		0xfff8, 0xfffc, 0xfffd, 0xe000, 0x1f600, 0xe0041, 0xe0001, 0x10fffd,
	};
	char s[8], want[16];

	(void)state;
	for (uint32_t cp = 0x80; cp <= 0x9f; cp++) {
		encode(cp, s);
		snprintf(want, sizeof(want), "\\u%04x", cp);
		assert_esc(s, want);
	}
	for (size_t i = 0; i < sizeof(escaped) / sizeof(escaped[0]); i++) {
		encode(escaped[i], s);
		snprintf(want, sizeof(want), "\\u%04x", escaped[i]);
		assert_esc(s, want);
	}
	for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++) {
		encode(kept[i], s);
		assert_esc(s, s);
	}
	/* noncharacters of the other planes: \U and 8 digits */
	assert_esc("\xf0\x9f\xbf\xbe", "\\U0001fffe");
	assert_esc("\xf4\x8f\xbf\xbf", "\\U0010ffff");
	/* Trojan Source: the override shows, the text after it is in order */
	assert_esc("admin\xe2\x80\xae\xe2\x81\xa6 // check", "admin\\u202e\\u2066 // check");
	/* an emoji sequence with joiner and variation selector stays whole */
	assert_esc("\xf0\x9f\x91\xa9\xe2\x80\x8d\xf0\x9f\x92\xbb\xef\xb8\x8f",
		   "\xf0\x9f\x91\xa9\xe2\x80\x8d\xf0\x9f\x92\xbb\xef\xb8\x8f");
	assert_esc("caf\xc3\xa9 \xe2\x86\x92 \xe6\x97\xa5\xe6\x9c\xac",
		   "caf\xc3\xa9 \xe2\x86\x92 \xe6\x97\xa5\xe6\x9c\xac");
}

/* Every code point: escaped exactly when in the set, as its \u form. */
static void test_every_code_point(void **state)
{
	char s[8], got[16], want[16];
	size_t len;
	uint32_t cp, back;

	(void)state;
	for (cp = 1; cp <= 0x10ffff; cp++) {
		if (cp >= 0xd800 && cp <= 0xdfff)
			continue;
		encode(cp, s);
		assert_int_equal(escape__unit(s, strlen(s), &len, &back) != ESCAPE_KEEP,
				 in_set(cp));
		assert_int_equal(len, strlen(s));
		assert_int_equal(back, cp);
		escape__str(got, sizeof(got), s);
		if (cp == '\\')
			snprintf(want, sizeof(want), "\\\\");
		else if (cp < 0x20 || cp == 0x7f)
			snprintf(want, sizeof(want), "\\x%02x", cp);
		else if (in_set(cp))
			snprintf(want, sizeof(want), cp > 0xffff ? "\\U%08x" : "\\u%04x", cp);
		else
			snprintf(want, sizeof(want), "%s", s);
		if (strcmp(got, want))
			fail_msg("U+%04X: got \"%s\", want \"%s\"", cp, got, want);
	}
}

/*
 * Random byte strings (weighted to UTF-8 lead and continuation bytes):
 * the escaped text is valid UTF-8 with no byte below 0x20, no DEL and no
 * character of the set, and reads back to the original exactly.
 */
static void test_round_trip(void **state)
{
	uint64_t x = 0x9e3779b97f4a7c15ULL;
	char s[64], *e, back[64 * 10 + 1];
	size_t n, i, len;
	uint32_t cp;

	(void)state;
	for (int iter = 0; iter < 20000; iter++) {
		n = 1 + iter % 40;
		for (i = 0; i < n; i++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			switch (x % 4) {
			case 0:
				s[i] = (char)(0x80 | (x >> 8 & 0x3f)); /* continuation */
				break;
			case 1:
				s[i] = (char)(0xc2 + (x >> 8) % 0x33); /* a lead byte */
				break;
			default:
				s[i] = (char)((x >> 8) & 0xff);
			}
			if (!s[i])
				s[i] = '\\';
		}
		s[n] = 0;
		e = esc(s);
		assert_int_equal(utf8__valid_len(e, strlen(e)), strlen(e));
		for (i = 0; e[i]; i += len)
			assert_int_equal(escape__unit(e + i, strlen(e + i), &len, &cp),
					 ESCAPE_KEEP);
		assert_int_equal(unescape(e, back), n);
		assert_memory_equal(back, s, n);
		free(e);
	}
}

/* ---- the functions -------------------------------------------------------- */

static void test_str_cut(void **state)
{
	const char *s = "ab\x1b\xc3\xa9\\z"; /* ab\x1bé\\z: 2 + 4 + 2 + 2 + 1 */
	char buf[16];

	(void)state;
	assert_int_equal(escape__str(NULL, 0, s), 11);
	assert_int_equal(escape__str(buf, sizeof(buf), s), 11);
	assert_string_equal(buf, "ab\\x1b\xc3\xa9\\\\z");
	/* cut before a unit that does not fit whole: never half an escape or
	 * half a UTF-8 character */
	assert_int_equal(escape__str(buf, 3, s), 11);
	assert_string_equal(buf, "ab");
	assert_int_equal(escape__str(buf, 6, s), 11);
	assert_string_equal(buf, "ab");
	assert_int_equal(escape__str(buf, 7, s), 11);
	assert_string_equal(buf, "ab\\x1b");
	assert_int_equal(escape__str(buf, 8, s), 11);
	assert_string_equal(buf, "ab\\x1b");
	assert_int_equal(escape__str(buf, 9, s), 11);
	assert_string_equal(buf, "ab\\x1b\xc3\xa9");
	assert_int_equal(escape__str(buf, 10, s), 11);
	assert_string_equal(buf, "ab\\x1b\xc3\xa9");
	assert_int_equal(escape__str(buf, 1, s), 11);
	assert_string_equal(buf, "");
	/* size 0 writes nothing; NULL is "" */
	buf[0] = 'X';
	assert_int_equal(escape__str(buf, 0, s), 11);
	assert_int_equal(buf[0], 'X');
	assert_int_equal(escape__str(buf, sizeof(buf), NULL), 0);
	assert_string_equal(buf, "");
	assert_int_equal(escape__str(NULL, 0, NULL), 0);
}

static void test_width_and_pad(void **state)
{
	char *mem = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_int_equal(escape__width("abc"), 3);
	assert_int_equal(escape__width("caf\xc3\xa9"), 4);
	assert_int_equal(escape__width("a\x1b"), 5);
	assert_int_equal(escape__width("\\"), 2);
	assert_int_equal(escape__width("\xe2\x80\xae"), 6);
	assert_int_equal(escape__width("\xf4\x8f\xbf\xbf"), 10);
	assert_int_equal(escape__width("\xff"), 4);
	assert_int_equal(escape__width(NULL), 0);
	f = open_memstream(&mem, &len);
	assert_non_null(f);
	escape__fpad("ab", 5, f);
	fputc('|', f);
	escape__fpad("caf\xc3\xa9", 6, f);
	fputc('|', f);
	escape__fpad("a\tb", 4, f); /* wider than the cell: not cut */
	fputc('|', f);
	escape__fpad("", 2, f);
	fputc('|', f);
	assert_int_equal(fclose(f), 0);
	assert_string_equal(mem, "ab   |caf\xc3\xa9  |a\\x09b|  |");
	free(mem);
}

static void test_fwrite(void **state)
{
	static const char with_nul[] = "a\0b\xe2\x80\xae";
	char *mem = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	f = open_memstream(&mem, &len);
	assert_non_null(f);
	escape__fwrite(with_nul, sizeof(with_nul) - 1, f);
	escape__fputs(NULL, f);
	escape__fwrite("\xe2\x80", 2, f); /* a sequence cut by n */
	assert_int_equal(fclose(f), 0);
	assert_string_equal(mem, "a\\x00b\\u202e\\xe2\\x80");
	free(mem);
}

/* ---- messages (userspace/log.c) ----------------------------------------------- */

/* What fn wrote to stderr. */
static char *capture_stderr(void (*fn)(void))
{
	char path[] = "/tmp/fsp-test-escape-XXXXXX";
	int fd = mkstemp(path), saved;
	char *text;
	FILE *f;
	long n;

	assert_true(fd >= 0);
	fflush(stderr);
	saved = dup(2);
	assert_true(saved >= 0);
	assert_true(dup2(fd, 2) >= 0);
	fn();
	fflush(stderr);
	assert_true(dup2(saved, 2) >= 0);
	close(saved);
	close(fd);
	f = fopen(path, "r");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	text = calloc(1, (size_t)n + 1);
	assert_non_null(text);
	assert_int_equal(fread(text, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	unlink(path);
	return text;
}

static void log_hostile(void)
{
	char long_label[3000];

	log__err("cannot attach fsp:%s in %s (pid %d): %s", "mark_enter",
		 "/tmp/\x1b]0;owned\x07\x1b[2J\n\t\xff\xe2\x80\xae.so", 42, "no");
	log__info("profiling %s", "pid 7 (a\\b)");
	/* longer than the message buffer: still whole, still escaped */
	memset(long_label, 'x', sizeof(long_label) - 2);
	long_label[sizeof(long_label) - 2] = 0x1b;
	long_label[sizeof(long_label) - 1] = 0;
	log__err("%s", long_label);
}

static void log_lines(void)
{
	log__lines("libbpf: failed to open '/a\x1b[31m'\nsecond\tline\n");
}

/* A map file's text quoted by the parser, then printed by log__err. */
static void log_probemap(void)
{
	static const char text[] = "map m\nprovider p\n\x01\x1b[31m\xe2\x80\xae x\n";
	struct probemap *pm = NULL;
	char err[512];

	assert_int_equal(probemap__parse(text, sizeof(text) - 1, "m.map", &pm, err, sizeof(err)),
			 -EINVAL);
	assert_null(pm);
	log__err("%s", err);
}

static void test_log(void **state)
{
	char *text, want[3100];

	(void)state;
	text = capture_stderr(log_hostile);
	memset(want, 'x', 2998);
	want[2998] = 0;
	assert_non_null(strstr(
		text, "fsp-bpf: cannot attach fsp:mark_enter in "
		      "/tmp/\\x1b]0;owned\\x07\\x1b[2J\\x0a\\x09\\xff\\u202e.so (pid 42): no\n"
		      "fsp-bpf: profiling pid 7 (a\\\\b)\n"
		      "fsp-bpf: xxxx"));
	assert_non_null(strstr(text, want));
	assert_non_null(strstr(text, "xx\\x1b\n"));
	assert_null(strchr(text, 0x1b));
	free(text);
	text = capture_stderr(log_lines);
	assert_string_equal(text, "libbpf: failed to open '/a\\x1b[31m'\nsecond\\x09line\n");
	free(text);
	text = capture_stderr(log_probemap);
	assert_string_equal(text,
			    "fsp-bpf: m.map:3: unknown directive "
			    "'\\x01\\x1b[31m\\u202e' (map, provider, description, feature, "
			    "enter, leave, event, instance, kind, payload, match, default, frame, "
			    "when, charge, function, antimark or label)\n");
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ascii),	      cmocka_unit_test(test_invalid_bytes),
		cmocka_unit_test(test_c1_and_format), cmocka_unit_test(test_every_code_point),
		cmocka_unit_test(test_round_trip),    cmocka_unit_test(test_str_cut),
		cmocka_unit_test(test_width_and_pad), cmocka_unit_test(test_fwrite),
		cmocka_unit_test(test_log),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
