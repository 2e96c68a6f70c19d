// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests of the profile reader's input boundaries (analysis/io/json_in.c):
 * a file is read in chunks and json-c is given a window at a time, and json-c
 * checks UTF-8 within one call only, so a character split between two calls
 * used to be rejected ("invalid utf-8 string" for a valid 886 KB profile).
 * Multi-byte characters of 2, 3 and 4 bytes at every offset from a chunk or
 * window boundary, with small sizes (every offset of the file is then a
 * boundary) and with the real ones (256 KiB chunks, a 1 MiB window).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "profile_io.h"
#include "unit_helpers.h"

#define HEAD_V2 "{\"version\":2,\"tool\":\"fsp-bpf\","
#define TAIL                                                                                       \
	"\"strings\":[\"F\"],\"stacks\":[{\"pid\":5,\"key\":\"0x7\",\"frames\":[[\"m\",0]]}],"     \
	"\"samples\":[[0,5,5,0,2]]}"

/* One character of each length, and text mixing them. */
static const char *const chars[] = {"\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80"};
#define MIXED "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xe4\xb8\xad\xe6\x96\x87 x\xc2\xa0y"

static char *write_str(const struct profile *p, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	assert_non_null(f);
	assert_int_equal(profile__write_json(f, p), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

/* An anonymous file holding text, at offset 0. */
static int mem_file(const char *text, size_t len)
{
	int fd = memfd_create("fsp-chunks", MFD_CLOEXEC);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	return fd;
}

/* Reads text from a file with these sizes: the profile, or NULL and err. */
static struct profile *read_sized(const char *text, size_t len, size_t chunk, size_t window,
				  char *err, size_t errlen)
{
	struct profile_read_opts o = {.chunk = chunk, .window = window};
	int fd = mem_file(text, len);
	struct profile *p = profile__read_fd(fd, "t.json", &o, err, errlen);

	close(fd);
	return p;
}

/* text must read, from a file and from memory, with these sizes, as the
 * profile whose file is want. */
static void read_same(const char *text, size_t len, size_t chunk, size_t window, const char *want)
{
	struct profile_read_opts o = {.chunk = chunk, .window = window};
	char err[512] = "", *got;
	struct profile *p;
	size_t n;

	p = read_sized(text, len, chunk, window, err, sizeof(err));
	if (!p)
		fail_msg("chunk %zu window %zu: %s", chunk, window, err);
	got = write_str(p, &n);
	assert_string_equal(got, want);
	free(got);
	profile__free(p);
	p = profile__parse_json_opts(text, len, "t.json", &o, err, sizeof(err));
	if (!p)
		fail_msg("window %zu (memory): %s", window, err);
	got = write_str(p, &n);
	assert_string_equal(got, want);
	free(got);
	profile__free(p);
}

/* A profile with multi-byte characters in every kind of string it has:
 * metadata, thread names, feature and instance labels. */
static struct profile *utf8_profile(void)
{
	struct profile_meta m = {.target = "pid 5 (" MIXED ")",
				 .command_line = "fsp-bpf -- ./" MIXED,
				 .host = "h\xc3\xb4te",
				 .frequency_hz = 999,
				 .period_ns = 1001001};
	struct profile *p = profile__new();

	assert_non_null(p);
	assert_int_equal(profile__set_meta(p, &m), 0);
	assert_int_equal(profile__add_pid(p, 5), 0);
	assert_int_equal(profile__add_thread(p, 5, 5, "w\xc3\xb6rker"), 0);
	ADD_STACK(p, 5, 0x1, MARK("caf\xc3\xa9", "\xe2\x82\xac:1"));
	ADD_STACK(p, 5, 0x2, MARK("caf\xc3\xa9", MIXED), MARK("\xf0\x9f\x98\x80", NULL));
	ADD_STACK(p, 5, 0x3, MARK("\xe4\xb8\xad", "\xf0\x9f\x98\x80\xf0\x9f\x98\x80"));
	ADD_SAMPLES(p, 5, 5, 0x1, 3);
	ADD_SAMPLES(p, 5, 5, 0x2, 4);
	ADD_SAMPLES(p, 5, 5, 0x3, 5);
	return p;
}

/*
 * Small chunks and windows: with a chunk of c bytes every c-th byte of the
 * file is a boundary, so sizes 1 to 24 put every byte of every character at
 * the end of a chunk (and of a window) many times. Unknown members are read
 * too (the scanner skips them, json-c parses the deep ones whole).
 */
static void test_utf8_small_chunks(void **state)
{
	struct profile *p = utf8_profile();
	size_t len, len2;
	char *text = write_str(p, &len), *text2;

	(void)state;
	/* The same file with unknown members holding multi-byte text. */
	assert_true(asprintf(&text2,
			     "{\"future " MIXED "\":{\"a\":[\"" MIXED "\",{\"b\":{\"c\":[\"" MIXED
			     "\"]}}],\"d\":\"\xf0\x9f\x98\x80\"},%s",
			     text + 1) > 0);
	len2 = strlen(text2);
	for (size_t c = 1; c <= 24; c++) {
		read_same(text, len, c, 0, text);
		read_same(text2, len2, c, 0, text);
	}
	for (size_t w = 1; w <= 24; w++) {
		read_same(text, len, 0, w, text);
		read_same(text2, len2, 0, w, text);
		read_same(text2, len2, w + 3, w, text);
	}
	free(text2);
	free(text);
	profile__free(p);
}

/* A file whose target string has character ch starting at byte off (the
 * rest of the string ASCII), the profile's own bytes around it; *want is the
 * file the reader must write back. */
static char *straddle(const char *ch, size_t off, size_t *len, char **want)
{
	const char *pre = HEAD_V2 "\"target\":\"";
	size_t lead = strlen(pre), pad;
	char *text, *target;
	struct profile *p;
	struct profile_meta m = {0};

	/* White space before "target" moves it, so that the string holds
	 * at most 16 bytes of ASCII before the character (under the limit of
	 * a string). */
	assert_true(off > lead + 16);
	pad = off - lead - 16;
	assert_int_equal(asprintf(&text, "%s%*s\"target\":\"0123456789abcdef%s tail\"," TAIL,
				  HEAD_V2, (int)pad, "", ch),
			 (int)(strlen(HEAD_V2) + pad + strlen("\"target\":\"0123456789abcdef") +
			       strlen(ch) + strlen(" tail\",") + strlen(TAIL)));
	assert_memory_equal(text + off, ch, strlen(ch));
	*len = strlen(text);
	assert_int_equal(asprintf(&target, "0123456789abcdef%s tail", ch), 16 + strlen(ch) + 5);
	p = profile__new();
	assert_non_null(p);
	m.target = target;
	assert_int_equal(profile__set_meta(p, &m), 0);
	assert_int_equal(profile__add_pid(p, 5), 0);
	ADD_STACK(p, 5, 0x7, MARK("F", NULL));
	ADD_SAMPLES(p, 5, 5, 0x7, 2);
	*want = write_str(p, &(size_t){0});
	profile__free(p);
	free(target);
	return text;
}

/*
 * The real sizes: a character of 2, 3 or 4 bytes starting 1 to 3 bytes
 * before the end of the first 256 KiB chunk (every way it can be cut),
 * and also starting right at it and just before (not cut), read with
 * profile__load as fsp-bpf report, merge and diff do.
 */
static void test_utf8_at_chunk_boundary(void **state)
{
	char path[] = "/tmp/fsp-chunks-XXXXXX", err[512];

	(void)state;
	for (int c = 0; c < 3; c++) {
		size_t n = strlen(chars[c]);

		for (size_t back = 0; back <= n; back++) {
			size_t len;
			char *want, *text = straddle(chars[c], 256 * 1024 - back, &len, &want);
			struct profile *p;
			int fd = mkstemp(path);
			char *got;

			assert_true(fd >= 0);
			assert_int_equal(write(fd, text, len), (ssize_t)len);
			close(fd);
			p = profile__load(path, err, sizeof(err));
			if (!p)
				fail_msg("%zu-byte character at %zu: %s", n, 256 * 1024 - back,
					 err);
			got = write_str(p, &(size_t){0});
			assert_string_equal(got, want);
			free(got);
			profile__free(p);
			unlink(path);
			strcpy(path, "/tmp/fsp-chunks-XXXXXX");
			free(text);
			free(want);
		}
	}
}

/*
 * The 1 MiB window of a memory buffer: a value longer than the window (an
 * unknown member json-c parses whole) with a character cut at the window's
 * end, every way.
 */
static void test_utf8_at_window_boundary(void **state)
{
	struct profile *p = utf8_profile();
	size_t len;
	char *want = write_str(p, &len);

	(void)state;
	for (int c = 0; c < 3; c++) {
		size_t n = strlen(chars[c]);

		for (size_t back = 0; back <= n; back++) {
			/* {"x":{"y":{"z":"aaa...<ch>..."}}, ...}: the string is
			 * given to json-c from its '"' a window at a time. */
			const char *head = "{\"x\":{\"y\":";
			size_t start = strlen(head) + strlen("{\"z\":");
			size_t at = start + (1 << 20) - back;
			size_t total = at + 64 + len;
			char *text = malloc(total), *q;
			struct profile *r;
			char err[512];

			assert_non_null(text);
			q = text + sprintf(text, "%s{\"z\":\"", head);
			memset(q, 'a', at - (size_t)(q - text));
			q = text + at;
			q += sprintf(q, "%s\"}},%s", chars[c], want + 1);
			r = profile__parse_json(text, (size_t)(q - text), "t.json", err,
						sizeof(err));
			if (!r)
				fail_msg("%zu-byte character at the window's end - %zu: %s", n,
					 back, err);
			q = write_str(r, &(size_t){0});
			assert_string_equal(q, want);
			free(q);
			profile__free(r);
			free(text);
		}
	}
	free(want);
	profile__free(p);
}

/* Invalid or cut UTF-8 is still an error at every chunk size, with the
 * same message as from memory; a file cut inside a character is
 * truncated. */
static void test_utf8_errors_any_chunk(void **state)
{
	static const char *const bad[] = {
		HEAD_V2 "\"target\":\"a\xc3(b\"," TAIL, /* a lead byte, no continuation */
		HEAD_V2 "\"target\":\"a\x80\"," TAIL, /* a lone continuation */
		HEAD_V2 "\"target\":\"\xe2\x82\"," TAIL, /* cut by the closing quote */
		HEAD_V2 "\"target\":\"\xf0\x9f\x98\"," TAIL,
		HEAD_V2 "\"target\":\"\xc3\xa9", /* the file ends inside the string */
		HEAD_V2 "\"target\":\"\xe2\x82", /* ... inside a character */
	};
	char err[512], ref[512];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		size_t len = strlen(bad[i]);

		assert_null(profile__parse_json(bad[i], len, "t.json", ref, sizeof(ref)));
		for (size_t c = 1; c <= 12; c++) {
			struct profile *p = read_sized(bad[i], len, c, 0, err, sizeof(err));

			if (p)
				fail_msg("input %zu read with chunks of %zu", i, c);
			if (strncmp(err, "t.json: ", 8) ||
			    (!strstr(err, "utf-8") && !strstr(err, "truncated")))
				fail_msg("input %zu, chunks of %zu: %s", i, c, err);
			/* The reason is the same whatever the chunk. */
			assert_true(!strstr(ref, "utf-8") == !strstr(err, "utf-8"));
		}
	}
}

/*
 * json-c resumes a number cut by the end of a call as if a sign could follow
 * ("12", then "-4", one number "12-4"): the same bytes read whole end the
 * number at the '-', an error. Whatever the chunk and window, the reader
 * says the same; signs that do belong to a number (an exponent's, a
 * negative value's) still read at every cut.
 */
static void test_number_cut_before_sign(void **state)
{
	static const char bad[] = HEAD_V2 "\"pids\":[12-4,77]," TAIL;
	static const char good[] = HEAD_V2 "\"duration_s\":1.5e-3,\"start_time\":-2.25E+2,"
					   "\"end_time\":-0.5e-1," TAIL;
	struct profile *want, *p;
	char ref[512], err[512], *w;

	(void)state;
	assert_null(profile__parse_json(bad, strlen(bad), "t.json", ref, sizeof(ref)));
	assert_non_null(strstr(ref, "'-' where ',' or ']' was expected"));
	want = profile__parse_json(good, strlen(good), "t.json", err, sizeof(err));
	if (!want)
		fail_msg("%s", err);
	assert_true(profile__meta(want)->duration_s == 1.5e-3);
	assert_true(profile__meta(want)->start_time == -225);
	w = write_str(want, &(size_t){0});
	for (size_t c = 1; c <= 40; c++) {
		struct profile_read_opts o = {.window = c + 3};

		p = read_sized(bad, strlen(bad), c, 0, err, sizeof(err));
		if (p)
			fail_msg("12-4 read as a number with chunks of %zu", c);
		assert_string_equal(err, ref);
		p = profile__parse_json_opts(bad, strlen(bad), "t.json", &o, err, sizeof(err));
		if (p)
			fail_msg("12-4 read as a number with a window of %zu", o.window);
		assert_string_equal(err, ref);
		read_same(good, strlen(good), c, c + 3, w);
	}
	free(w);
	profile__free(want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_utf8_small_chunks),
		cmocka_unit_test(test_utf8_at_chunk_boundary),
		cmocka_unit_test(test_utf8_at_window_boundary),
		cmocka_unit_test(test_utf8_errors_any_chunk),
		cmocka_unit_test(test_number_cut_before_sign),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
