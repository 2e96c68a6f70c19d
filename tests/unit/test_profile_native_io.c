// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Unit tests of the native stacks in the profile file (version 3,
 * analysis/io/profile_{write,read}_native.c): round trips, older versions,
 * the reader's checks of corrupt native data. */
#include <errno.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "profile_io.h"
#include "native_helpers.h"
#include "unit_helpers.h"

/* ---- helpers ----------------------------------------------------------------------------- */

static char *write_str(const struct profile *p)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	assert_non_null(f);
	assert_int_equal(profile__write_json(f, p), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

/* text read whole, or (small) from a file 5 bytes at a time with json-c
 * given 4 bytes at a time: boundaries everywhere change nothing. */
static struct profile *parse(const char *text, bool small, char *err, size_t errlen)
{
	struct profile_read_opts o = {.chunk = 5, .window = 4};
	struct profile *p;
	size_t len = strlen(text);
	int fd;

	if (!small)
		return profile__parse_json(text, len, "n.json", err, errlen);
	fd = memfd_create("fsp-nio", MFD_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	p = profile__read_fd(fd, "n.json", &o, err, errlen);
	close(fd);
	return p;
}

static struct profile *parse_ok(const char *text)
{
	char err[512] = "", *a, *b;
	struct profile *p = parse(text, false, err, sizeof(err)), *q;

	if (!p)
		fail_msg("parse failed: %s", err);
	q = parse(text, true, err, sizeof(err));
	if (!q)
		fail_msg("chunked parse failed: %s", err);
	a = write_str(p);
	b = write_str(q);
	assert_string_equal(a, b);
	free(a);
	free(b);
	profile__free(q);
	return p;
}

/* Reading text fails, both ways, with one line naming the file and expect. */
static void parse_bad(const char *text, const char *expect)
{
	char err[512] = "", err2[512] = "";
	struct profile *p = parse(text, false, err, sizeof(err));

	if (p) {
		profile__free(p);
		fail_msg("parsed, expected \"%s\"", expect);
	}
	if (strncmp(err, "n.json: ", 8) || !strstr(err, expect))
		fail_msg("message \"%s\", expected \"%s\"", err, expect);
	assert_null(strchr(err, '\n'));
	assert_null(parse(text, true, err2, sizeof(err2)));
	assert_string_equal(err, err2);
}

static int add_loc(struct profile *p, uint32_t mod, uint64_t addr, const struct profile_line *l,
		   size_t n, unsigned int flags)
{
	struct profile_location loc = {
		.module = mod, .address = addr, .lines = l, .nr_lines = n, .flags = flags};

	return profile__add_location(p, &loc);
}

/*
 * A profile with every kind of native data: modules with and without
 * build-id, a kernel module, locations with inlined lines, a symbol without
 * debug information, an unsymbolized one, JIT code at a 64-bit address,
 * stacks by both methods, with kernel frames, truncated, kernel-only, and
 * native samples of two sources, of the empty and an unknown mark stack,
 * and function names equal to a feature's name (one string table).
 */
static struct profile *native_profile(void)
{
	struct profile_meta m = {.target = "t", .frequency_hz = 99};
	struct profile_line inl[] = {{"inlined", "/src/a.c", 10}, {"Output", "/src/a.c", 42}};
	struct profile_line sym[] = {{"memcpy", NULL, 0}};
	struct profile_line caf[] = {{"caf\xc3\xa9", "/src/\xe2\x82\xac.c", 7}};
	struct profile_line kern[] = {{"clear_page_erms", NULL, 0}};
	uint32_t s0[] = {0, 1}, s1[] = {2, 0, 1}, s2[] = {5, 2, 0, 1}, s3[] = {4, 3}, s4[] = {5};
	struct profile *p = profile__new();

	assert_non_null(p);
	assert_int_equal(profile__add_source(p, &m, NULL), 0);
	assert_int_equal(profile__add_source(p, &m, NULL), 1);
	assert_int_equal(add_mod(p, PROFILE_MODULE_USER, "/bin/app", "00ff"), 0);
	assert_int_equal(add_mod(p, PROFILE_MODULE_USER, "/lib/libc.so.6", NULL), 1);
	assert_int_equal(add_mod(p, PROFILE_MODULE_KERNEL, "[kernel.kallsyms]", NULL), 2);
	assert_int_equal(add_loc(p, 0, 0x1189, inl, 2, PROFILE_LOC_DEBUGINFO), 0);
	assert_int_equal(add_loc(p, 0, 0x1204, caf, 1, PROFILE_LOC_DEBUGINFO), 1);
	assert_int_equal(add_loc(p, 1, 0x5a3c1, sym, 1, 0), 2);
	assert_int_equal(add_loc(p, 1, 0x99, NULL, 0, 0), 3);
	assert_int_equal(
		add_loc(p, PROFILE_NO_MODULE, 0xffff7f3e5c001040ULL, NULL, 0, PROFILE_LOC_JIT), 4);
	assert_int_equal(add_loc(p, 2, 0xffffffff81a0b2c0ULL, kern, 1, 0), 5);
	assert_int_equal(add_nstack(p, s0, 2, 0, PROFILE_UNWIND_DWARF, 0), 0);
	assert_int_equal(add_nstack(p, s1, 3, 0, PROFILE_UNWIND_FP, 0), 1);
	assert_int_equal(add_nstack(p, s2, 4, 1, PROFILE_UNWIND_DWARF, 0), 2);
	assert_int_equal(add_nstack(p, s3, 2, 0, PROFILE_UNWIND_DWARF, PROFILE_NATIVE_TRUNCATED),
			 3);
	assert_int_equal(add_nstack(p, s4, 1, 1, 0, 0), 4);
	for (uint32_t src = 0; src < 2; src++) {
		assert_int_equal(profile__use_source(p, src), 0);
		ADD_STACK(p, 10, 0x1, MARK("Output", "x"));
		ADD_SAMPLES(p, 10, 10, 0x1, 100);
		ADD_SAMPLES(p, 10, 11, 0, 20);
		assert_int_equal(profile__add_samples(p, 10, 11, 0xbad, 5), -ENOENT);
		assert_int_equal(profile__add_native_samples(p, 10, 10, 0x1, 0, 60 + src), 0);
		assert_int_equal(profile__add_native_samples(p, 10, 10, 0x1, 2, 30), 0);
		assert_int_equal(profile__add_native_samples(p, 10, 11, 0, 1, 20), 0);
		assert_int_equal(profile__add_native_samples(p, 10, 11, 0xbad, 3, 4), 0);
		assert_int_equal(profile__add_native_samples(p, 10, 11, 0, 4, 0), 0);
	}
	assert_int_equal(profile__use_source(p, 0), 0);
	return p;
}

static void assert_lines_equal(const struct profile_location *a, const struct profile_location *b)
{
	assert_int_equal(a->nr_lines, b->nr_lines);
	for (size_t j = 0; j < a->nr_lines; j++) {
		assert_true((!a->lines[j].function && !b->lines[j].function) ||
			    !strcmp(a->lines[j].function, b->lines[j].function));
		assert_true((!a->lines[j].file && !b->lines[j].file) ||
			    !strcmp(a->lines[j].file, b->lines[j].file));
		assert_int_equal(a->lines[j].line, b->lines[j].line);
	}
}

/* The native tables of a and b, field by field. */
static void assert_native_equal(const struct profile *a, const struct profile *b)
{
	size_t i;

	assert_int_equal(profile__nr_modules(a), profile__nr_modules(b));
	for (i = 0; i < profile__nr_modules(a); i++) {
		struct profile_module x, y;

		assert_int_equal(profile__module(a, i, &x), 0);
		assert_int_equal(profile__module(b, i, &y), 0);
		assert_int_equal(x.kind, y.kind);
		assert_string_equal(x.path, y.path);
		assert_true((!x.build_id && !y.build_id) || !strcmp(x.build_id, y.build_id));
	}
	assert_int_equal(profile__nr_locations(a), profile__nr_locations(b));
	for (i = 0; i < profile__nr_locations(a); i++) {
		struct profile_location x, y;

		assert_int_equal(profile__location(a, i, &x), 0);
		assert_int_equal(profile__location(b, i, &y), 0);
		assert_int_equal(x.module, y.module);
		assert_true(x.address == y.address);
		assert_int_equal(x.flags, y.flags);
		assert_lines_equal(&x, &y);
	}
	assert_int_equal(profile__nr_native_stacks(a), profile__nr_native_stacks(b));
	for (i = 0; i < profile__nr_native_stacks(a); i++) {
		struct profile_native_stack x, y;

		assert_int_equal(profile__native_stack(a, i, &x), 0);
		assert_int_equal(profile__native_stack(b, i, &y), 0);
		assert_int_equal(x.depth, y.depth);
		assert_int_equal(x.nr_kernel, y.nr_kernel);
		assert_int_equal(x.method, y.method);
		assert_int_equal(x.flags, y.flags);
		assert_memory_equal(x.locs, y.locs, x.depth * sizeof(*x.locs));
	}
	assert_int_equal(profile__nr_native_samples(a), profile__nr_native_samples(b));
	for (i = 0; i < profile__nr_native_samples(a); i++) {
		struct profile_native_sample x, y;

		assert_int_equal(profile__native_sample(a, i, &x), 0);
		assert_int_equal(profile__native_sample(b, i, &y), 0);
		assert_true(x.source == y.source && x.pid == y.pid && x.tid == y.tid &&
			    x.key == y.key && x.mark_stack == y.mark_stack && x.stack == y.stack &&
			    x.count == y.count);
	}
}

/* ---- round trips ------------------------------------------------------------------------- */

static void test_round_trip(void **state)
{
	struct profile *p = native_profile(), *q;
	struct profile_location loc;
	char *a, *b;

	(void)state;
	a = write_str(p);
	q = parse_ok(a);
	assert_native_equal(p, q);
	b = write_str(q);
	assert_string_equal(a, b);
	/* the layout: names once in the string table, rows as documented */
	assert_non_null(strstr(a, "\"version\": 4,"));
	assert_non_null(strstr(a, "\n    {\"kind\":\"user\",\"path\":\"/bin/app\","
				  "\"build_id\":\"00ff\"}"));
	assert_non_null(strstr(a, "\n    {\"kind\":\"kernel\",\"path\":\"[kernel.kallsyms]\"}"));
	assert_non_null(strstr(a, "\n    [null,\"0xffff7f3e5c001040\",2]"));
	assert_non_null(strstr(a, "\n    [1,\"0x99\",0]"));
	assert_non_null(strstr(a, "\n    [\"dwarf\",[5,2,0,1],1]"));
	assert_non_null(strstr(a, "\n    [\"dwarf\",[4,3],0,1]"));
	assert_non_null(strstr(a, "\n    [null,[5],1]"));
	assert_non_null(strstr(a, "\n    [1,10,11,\"0xbad\",3,4]"));
	assert_non_null(strstr(a, "\n    [1,10,10,1,0,61]"));
	/* "Output" is a feature and a function: strings[0], used by both */
	assert_non_null(strstr(a, "\"strings\": [\n    \"Output\",\n    \"x\",\n    \"inlined\""));
	assert_non_null(strstr(a, "\n    [0,\"0x1189\",1,[[2,3,10],[0,3,42]]]"));
	/* the profile's own interned strings: one pointer for equal names */
	assert_int_equal(profile__location(q, 0, &loc), 0);
	assert_ptr_equal(loc.lines[0].file, loc.lines[1].file);
	free(a);
	free(b);
	profile__free(p);
	profile__free(q);
}

/* A profile without native stacks writes empty sections and reads back so. */
static void test_round_trip_empty(void **state)
{
	struct profile *p = profile__new(), *q;
	char *a;

	(void)state;
	ADD_STACK(p, 1, 1, MARK("f", NULL));
	ADD_SAMPLES(p, 1, 1, 1, 3);
	a = write_str(p);
	assert_non_null(strstr(a, "\"modules\": [],\n  \"locations\": [],\n  \"native_stacks\": "
				  "[],\n  \"native_samples\": []"));
	q = parse_ok(a);
	assert_int_equal(profile__nr_modules(q), 0);
	assert_int_equal(profile__nr_native_samples(q), 0);
	free(a);
	profile__free(p);
	profile__free(q);
}

/* ---- hand-written files ------------------------------------------------------------------ */

#define HEAD(v) "{\"version\":" #v ",\"tool\":\"fsp-bpf\",\"strings\":[\"f\",\"main\",\"a.c\"],"
#define CORE                                                                                       \
	"\"stacks\":[{\"id\":0,\"pid\":7,\"key\":\"0x1\",\"frames\":[[\"m\",0]]}],"                \
	"\"samples\":[[0,7,7,0,10],[0,7,7,null,2]],"
#define MODS "\"modules\":[{\"path\":\"/bin/a\"},{\"kind\":\"kernel\",\"path\":\"k\"}],"
#define LOCS "\"locations\":[[0,\"0x10\",1,[[1,2,3]]],[0,32,0],[1,\"0x20\",0]],"
#define NSTACKS "\"native_stacks\":[[\"dwarf\",[0,1]],[\"fp\",[2,0],1]],"
#define NATIVE MODS LOCS NSTACKS

static void test_read_v3(void **state)
{
	struct profile *p;
	struct profile_native_sample ns;
	struct profile_location loc;
	struct profile_module m;

	(void)state;
	p = parse_ok(HEAD(3) CORE NATIVE
		     "\"native_samples\":[[0,7,7,0,0,6],[0,7,7,\"0x1\",1,4],[0,7,7,null,0,2],"
		     "[0,7,7,0,0,0]]}");
	assert_int_equal(profile__nr_modules(p), 2);
	assert_int_equal(profile__module(p, 0, &m), 0);
	assert_int_equal(m.kind, PROFILE_MODULE_USER); /* kind absent: user */
	assert_null(m.build_id);
	assert_int_equal(profile__location(p, 1, &loc), 0);
	assert_true(loc.address == 32); /* an integer address */
	assert_int_equal(profile__location(p, 0, &loc), 0);
	assert_string_equal(loc.lines[0].function, "main");
	assert_string_equal(loc.lines[0].file, "a.c");
	assert_int_equal(loc.lines[0].line, 3);
	/* a key naming a stored stack is that stack; a count of 0 adds nothing */
	assert_int_equal(profile__nr_native_samples(p), 3);
	assert_int_equal(profile__native_sample(p, 1, &ns), 0);
	assert_int_equal(ns.mark_stack, 0);
	assert_int_equal(ns.stack, 1);
	assert_int_equal(ns.count, 4);
	assert_int_equal(profile__native_sample(p, 2, &ns), 0);
	assert_int_equal(ns.mark_stack, PROFILE_NO_STACK);
	assert_int_equal(ns.key, 0);
	profile__free(p);

	/* lines may leave file and line out; unknown flag bits and columns are ignored */
	p = parse_ok(HEAD(3) CORE MODS "\"locations\":[[0,\"0x10\",13,[[1],[null,2,5,9]],7]],"
				       "\"native_stacks\":[[\"fp\",[0],0,3,\"later\"]],"
				       "\"native_samples\":[[0,7,7,0,0,1,\"later\"]]}");
	assert_int_equal(profile__location(p, 0, &loc), 0);
	assert_int_equal(loc.flags, PROFILE_LOC_DEBUGINFO);
	assert_int_equal(loc.nr_lines, 2);
	assert_null(loc.lines[0].file);
	assert_null(loc.lines[1].function);
	assert_int_equal(loc.lines[1].line, 5);
	profile__free(p);
}

/* Versions 1 and 2 have no native stacks: the sections are unknown fields there. */
static void test_read_older(void **state)
{
	struct profile *p;

	(void)state;
	p = parse_ok(HEAD(2) CORE "\"modules\":7,\"locations\":{},\"native_stacks\":[1],"
				  "\"native_samples\":null}");
	assert_int_equal(profile__nr_modules(p), 0);
	assert_int_equal(profile__nr_locations(p), 0);
	assert_int_equal(profile__nr_native_stacks(p), 0);
	assert_int_equal(profile__nr_native_samples(p), 0);
	assert_int_equal(profile__total_samples(p), 12);
	profile__free(p);
	p = parse_ok("{\"version\":1,\"tool\":\"fsp-bpf\",\"pids\":[7],\"modules\":[{\"x\":1}],"
		     "\"stacks\":[],\"samples\":[{\"pid\":7,\"tid\":7,\"count\":1}]}");
	assert_int_equal(profile__nr_modules(p), 0);
	profile__free(p);
	/* a version 3 file without the sections: no native stacks */
	p = parse_ok(HEAD(3) CORE "\"events\":[]}");
	assert_int_equal(profile__nr_native_samples(p), 0);
	profile__free(p);
}

static void test_bad_modules(void **state)
{
	(void)state;
	parse_bad(HEAD(3) "\"modules\":[{\"kind\":\"user\"}]}", "modules[0]: missing \"path\"");
	parse_bad(HEAD(3) "\"modules\":[{\"kind\":\"bpf\",\"path\":\"x\"}]}",
		  "modules[0].kind: unknown module kind \"bpf\"");
	parse_bad(HEAD(3) "\"modules\":[{\"path\":\"x\",\"build_id\":\"ABCD\"}]}",
		  "modules[0].build_id: \"ABCD\" is not a build-id");
	parse_bad(HEAD(3) "\"modules\":[{\"path\":\"x\",\"build_id\":\"abc\"}]}",
		  "is not a build-id");
	parse_bad(HEAD(3) "\"modules\":[{\"path\":\"x\",\"build_id\":\"\"}]}", "is not a build-id");
	parse_bad(HEAD(3) "\"modules\":[{\"path\":7}]}", "modules[0].path: expected a string");
	parse_bad(HEAD(3) "\"modules\":[[\"x\"]]}", "modules[0]: expected an object");
	parse_bad(HEAD(3) "\"modules\":[{\"path\":\"x\"},{\"path\":\"y\"},{\"path\":\"x\"}]}",
		  "modules[2]: the same module as modules[0] (each module once)");
}

static void test_bad_locations(void **state)
{
	(void)state;
	parse_bad(HEAD(3) "\"locations\":[[0,\"0x10\",0]]}",
		  "locations[0].module: module index 0 is out of range (0 modules; \"modules\" "
		  "must come before it)");
	parse_bad(HEAD(3) MODS "\"locations\":[[2,\"0x10\",0]]}",
		  "locations[0].module: module index 2 is out of range (2 modules)");
	parse_bad(HEAD(3) MODS "\"locations\":[[-1,\"0x10\",0]]}",
		  "locations[0].module: -1 is negative");
	parse_bad(HEAD(3) MODS "\"locations\":[[0,\"0x10\"]]}",
		  "locations[0]: 2 columns, expected 3 or 4");
	parse_bad(HEAD(3) MODS "\"locations\":[[0,\"zz\",0]]}",
		  "locations[0].address: \"zz\" is not a key");
	parse_bad(HEAD(3) MODS "\"locations\":[[0,\"0x10\",0.5]]}", "locations[0].flags:");
	parse_bad(HEAD(3) MODS "\"locations\":[[0,\"0x10\",0,{}]]}",
		  "locations[0].lines: expected an array, got an object");
	parse_bad(HEAD(3) MODS "\"locations\":[[0,\"0x10\",0,[[]]]]}",
		  "locations[0].lines[0]: expected [function, file, line], got an empty array");
	parse_bad(HEAD(3) MODS "\"locations\":[[0,\"0x10\",0,[7]]]}",
		  "locations[0].lines[0]: expected [function, file, line], got an integer");
	parse_bad(HEAD(3) MODS "\"locations\":[[0,\"0x10\",0,[[3]]]]}",
		  "locations[0].lines[0].function: string index 3 is out of range");
	parse_bad(HEAD(3) MODS "\"locations\":[[0,\"0x10\",0,[[1,\"a.c\"]]]]}",
		  "locations[0].lines[0].file: expected a string index");
	parse_bad(HEAD(3) MODS "\"locations\":[[0,\"0x10\",0,[[1,2,4294967296]]]]}",
		  "locations[0].lines[0].line: 4294967296 is beyond 2^32-1");
	parse_bad(HEAD(3) MODS "\"locations\":[[0,\"0x10\",0],[1,\"0x10\",0],[0,16,0]]}",
		  "locations[2]: the same module and address as locations[0] (each location once)");
	parse_bad(HEAD(3) MODS "\"locations\":[7]}", "locations[0]: expected an array");
}

static void test_bad_native_stacks(void **state)
{
	(void)state;
	parse_bad(HEAD(3) MODS "\"native_stacks\":[[\"fp\",[0]]]}",
		  "native_stacks[0].locations[0]: location index 0 is out of range (0 locations; "
		  "\"locations\" must come before it)");
	parse_bad(HEAD(3) MODS LOCS "\"native_stacks\":[[\"fp\",[0,3]]]}",
		  "native_stacks[0].locations[1]: location index 3 is out of range (3 locations)");
	parse_bad(HEAD(3) MODS LOCS "\"native_stacks\":[[\"fp\",[]]]}",
		  "native_stacks[0].locations: empty");
	parse_bad(HEAD(3) MODS LOCS "\"native_stacks\":[[\"fp\",0]]}",
		  "native_stacks[0].locations: expected an array of location indexes, got an "
		  "integer");
	parse_bad(HEAD(3) MODS LOCS "\"native_stacks\":[[\"lbr\",[0]]]}",
		  "native_stacks[0].method: unknown unwinding method \"lbr\"");
	parse_bad(HEAD(3) MODS LOCS "\"native_stacks\":[[7,[0]]]}",
		  "native_stacks[0].method: expected a string");
	parse_bad(HEAD(3) MODS LOCS "\"native_stacks\":[[null,[0,1],1]]}",
		  "native_stacks[0].method: null, but the stack has user frames");
	parse_bad(HEAD(3) MODS LOCS "\"native_stacks\":[[\"fp\",[0,1],3]]}",
		  "native_stacks[0].kernel: 3 kernel frames of a stack of 2");
	parse_bad(HEAD(3) MODS LOCS "\"native_stacks\":[[\"fp\"]]}",
		  "native_stacks[0]: 1 column, expected 2 to 4");
	parse_bad(HEAD(3) MODS LOCS "\"native_stacks\":[[\"fp\",[0,1]],[\"fp\",[0,1],0,0]]}",
		  "native_stacks[1]: the same as native_stacks[0] (each native stack once)");
}

static void test_bad_native_samples(void **state)
{
	(void)state;
	parse_bad(HEAD(3) CORE NATIVE "\"native_samples\":[[0,7,7,0,2,1]]}",
		  "native_samples[0].native_stack: native stack index 2 is out of range (2 "
		  "native stacks)");
	parse_bad(HEAD(3) CORE MODS LOCS "\"native_samples\":[[0,7,7,0,0,1]]}",
		  "\"native_stacks\" must come before it");
	parse_bad(HEAD(3) CORE NATIVE "\"native_samples\":[[0,7,7,5,0,1]]}",
		  "native_samples[0].stack: unknown stack id 5 (1 stacks)");
	parse_bad(
		HEAD(3) CORE NATIVE "\"native_samples\":[[0,8,8,0,0,1]]}",
		"native_samples[0]: stack 0 is source 0, pid 7, not the sample's source 0, pid 8");
	parse_bad(HEAD(3) CORE NATIVE "\"native_samples\":[[1,7,7,0,0,1]]}",
		  "native_samples[0].source: source 1 is not in \"sources\"");
	parse_bad(HEAD(3) CORE NATIVE "\"native_samples\":[[0,7,7,0,0]]}",
		  "native_samples[0]: 5 columns, expected 6");
	parse_bad(HEAD(3) CORE NATIVE "\"native_samples\":[[0,7,7,0,0,-1]]}",
		  "native_samples[0].count: -1 is negative");
	parse_bad(HEAD(3) CORE NATIVE "\"native_samples\":[[0,7,7,true,0,1]]}",
		  "native_samples[0].stack: expected a stack id, null or a key string");
	/* more native samples than the core sample has, in one row or several */
	parse_bad(HEAD(3) CORE NATIVE "\"native_samples\":[[0,7,7,0,0,11]]}",
		  "corrupt: native_samples count more samples of source 0, pid 7, tid 7 with mark "
		  "stack key 0x1 than \"samples\" (fewer with its frames)");
	parse_bad(HEAD(3) CORE NATIVE "\"native_samples\":[[0,7,7,0,0,6],[0,7,7,0,1,5]]}",
		  "than \"samples\" (fewer with its frames)");
	/* a thread or key with no core sample at all */
	parse_bad(HEAD(3) CORE NATIVE "\"native_samples\":[[0,7,8,0,0,1]]}",
		  "pid 7, tid 8 with mark stack key 0x1 than \"samples\" (none with its frames)");
	parse_bad(HEAD(3) CORE NATIVE "\"native_samples\":[[0,7,7,\"0x99\",0,1]]}",
		  "key 0x99 than \"samples\" (none with its frames)");
	/* the native sections need the version first */
	parse_bad("{\"tool\":\"fsp-bpf\",\"modules\":[],\"version\":3}",
		  "\"modules\" comes before \"version\"");
	parse_bad(HEAD(3) "\"modules\":[],\"modules\":[]}", "\"modules\" is given twice");
}

/*
 * A stack whose samples had payloads is stored once per payload vector (its
 * family: equal frames but for the payloads), and its native samples name
 * the stack without payloads (docs/profile-format.md): the check is per
 * thread and family. Files fsp-bpf wrote before the check knew families
 * have exactly this form (record --stacks of a program whose marks carry
 * payloads): they read as they are.
 */
#define FAMILY                                                                                     \
	"\"stacks\":[{\"id\":0,\"pid\":7,\"key\":\"0x1\",\"frames\":[[\"m\",0,null]]},"            \
	"{\"id\":1,\"pid\":7,\"key\":\"0x2\",\"frames\":[[\"m\",0,null,5]]},"                      \
	"{\"id\":2,\"pid\":7,\"key\":\"0x3\",\"frames\":[[\"m\",0,null,6]]},"                      \
	"{\"id\":3,\"pid\":7,\"key\":\"0x4\",\"frames\":[[\"m\",0,null]],"                         \
	"\"payloads_kept\":false},"                                                                \
	"{\"id\":4,\"pid\":7,\"key\":\"0x5\",\"frames\":[[\"m\",1,null,5]]}],"                     \
	"\"samples\":[[0,7,7,1,4],[0,7,7,2,3],[0,7,7,3,2],[0,7,8,4,9]],"

static void test_native_payload_family(void **state)
{
	struct profile_native_sample ns;
	struct profile *p;

	(void)state;
	/* stack 0 has no sample of its own: its family has 4 + 3 + 2 */
	p = parse_ok(HEAD(3) FAMILY NATIVE "\"native_samples\":[[0,7,7,0,0,5],[0,7,7,0,1,4]]}");
	assert_int_equal(profile__nr_native_samples(p), 2);
	assert_int_equal(profile__native_sample(p, 0, &ns), 0);
	assert_int_equal(ns.mark_stack, 0);
	profile__free(p);
	/* any stack of the family may be named */
	p = parse_ok(HEAD(3) FAMILY NATIVE
		     "\"native_samples\":[[0,7,7,2,0,5],[0,7,7,\"0x4\",1,4]]}");
	profile__free(p);
	/* not beyond the family's samples, nor another thread's, nor other frames' */
	parse_bad(HEAD(3) FAMILY NATIVE "\"native_samples\":[[0,7,7,0,0,5],[0,7,7,1,1,5]]}",
		  "tid 7 with mark stack key 0x2 than \"samples\" (fewer with its frames)");
	parse_bad(HEAD(3) FAMILY NATIVE "\"native_samples\":[[0,7,8,0,0,1]]}",
		  "tid 8 with mark stack key 0x1 than \"samples\" (none with its frames)");
	parse_bad(HEAD(3) FAMILY NATIVE "\"native_samples\":[[0,7,7,4,0,1]]}",
		  "tid 7 with mark stack key 0x5 than \"samples\" (none with its frames)");
}

/* The rows the reader takes from its buffer (the writer's exact form) and
 * every other form of them (blanks, upper-case keys, trailing columns, rows
 * its fast path leaves to json-c) read to the same profile. */
static void test_row_forms(void **state)
{
	static const char *const forms[] = {
		"\"native_stacks\":[[\"dwarf\",[0,1]],[\"fp\",[2,0],1]],"
		"\"native_samples\":[[0,7,7,0,0,6],[0,7,7,\"0x1\",1,4],[0,7,7,null,0,2]]}",
		"\"native_stacks\":[ [ \"dwarf\" , [ 0 , 1 ] ] , [\"fp\",[2,0],1,0,\"x\"]],"
		"\"native_samples\":[[0, 7,7,0,0,6],[0,7,7,\"0X1\",1,4,9],[0,7,7,\"0x0\",0,2]]}",
		"\"native_stacks\":[[\"dwarf\",[0,1],0,0],[\"fp\",[2,0],1,8]],"
		"\"native_samples\":[[0,7,7,\"0x01\",0,6],[0,7,7,0,1,4],[0,7,7,\"0x0000\",0,2],"
		"[0,7,7,null,0,0]]}",
	};
	char text[2048], *a = NULL, *b;
	struct profile *p;

	(void)state;
	for (size_t f = 0; f < sizeof(forms) / sizeof(forms[0]); f++) {
		snprintf(text, sizeof(text), "%s%s", HEAD(3) CORE MODS LOCS, forms[f]);
		p = parse_ok(text);
		b = write_str(p);
		if (a)
			assert_string_equal(a, b);
		free(a);
		a = b;
		profile__free(p);
	}
	free(a);
}

/* A file of HEAD(3) CORE MODS, then middle, then tail (a growing buffer). */
static char *limits_file(const char *middle, const char *item, size_t n, const char *tail)
{
	size_t len = strlen(HEAD(3) CORE MODS) + strlen(middle) + n * (strlen(item) + 1) +
		     strlen(tail) + 1;
	char *buf = malloc(len), *e;

	assert_non_null(buf);
	e = buf + sprintf(buf, "%s%s", HEAD(3) CORE MODS, middle);
	for (size_t i = 0; i < n; i++)
		e += sprintf(e, "%s%s", i ? "," : "", item);
	strcpy(e, tail);
	return buf;
}

static void test_limits(void **state)
{
	struct profile *p;
	char *text;

	(void)state;
	/* 256 functions at a location are read, 257 are not */
	text = limits_file("\"locations\":[[0,1,1,[", "[1,2,3]", PROFILE_IO_MAX_LINES, "]]]}");
	p = parse_ok(text);
	profile__free(p);
	free(text);
	text = limits_file("\"locations\":[[0,1,1,[", "[1,2,3]", PROFILE_IO_MAX_LINES + 1, "]]]}");
	parse_bad(text, "locations[0].lines: 257 functions, more than the limit of 256");
	free(text);
	/* 4096 frames of a native stack are read, 4097 are not */
	text = limits_file("\"locations\":[[0,1,1]],\"native_stacks\":[[\"fp\",[", "0",
			   PROFILE_IO_MAX_NATIVE_FRAMES, "]]]}");
	p = parse_ok(text);
	profile__free(p);
	free(text);
	text = limits_file("\"locations\":[[0,1,1]],\"native_stacks\":[[\"fp\",[", "0",
			   PROFILE_IO_MAX_NATIVE_FRAMES + 1, "]]]}");
	parse_bad(text, "native_stacks[0].locations: 4097 frames, more than the limit of 4096");
	free(text);
	/* indexes and counts beyond their integer types */
	parse_bad(HEAD(3) CORE MODS "\"locations\":[[4294967296,1,1]]}",
		  "module index 4294967296 is out of range");
	parse_bad(HEAD(3) CORE NATIVE "\"native_samples\":[[0,7,4294967296,0,0,1]]}",
		  "native_samples[0].tid:");
	parse_bad(HEAD(3) CORE MODS "\"locations\":[[0,\"0x10000000000000000\",1]]}",
		  "locations[0].address: \"0x10000000000000000\" is not a key");
	parse_bad(HEAD(3) CORE MODS "\"locations\":[[0,18446744073709551616,1]]}",
		  "does not fit in 64 bits");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_round_trip_empty),
		cmocka_unit_test(test_read_v3),
		cmocka_unit_test(test_read_older),
		cmocka_unit_test(test_bad_modules),
		cmocka_unit_test(test_bad_locations),
		cmocka_unit_test(test_bad_native_stacks),
		cmocka_unit_test(test_bad_native_samples),
		cmocka_unit_test(test_native_payload_family),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_row_forms),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
