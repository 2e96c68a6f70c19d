// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests of the views of native stacks (record --stacks), continued:
 * pprof (decoded with protobuf-c, and read by `go tool pprof` when Go is
 * installed) and the HTML report's data.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <unistd.h>
#include <zlib.h>

#include "native_render_fixture.h"
#include "pprof_go.h"
#include "profile.pb-c.h"
#include "report.h"
#include "report_html.h"

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* ---- pprof ------------------------------------------------------------------------- */

static __attribute__((noinline)) Perftools__Profiles__Profile *
render_pprof(const struct profile *p, const struct report_opts *o, const char *path)
{
	Perftools__Profiles__Profile *prof;
	unsigned char *raw = NULL;
	char *gz = NULL;
	size_t gz_len = 0, cap = 1 << 20;
	z_stream zs = {};
	FILE *f = open_memstream(&gz, &gz_len);

	assert_non_null(f);
	assert_int_equal(report__pprof(f, p, o), 0);
	assert_int_equal(fclose(f), 0);
	if (path) {
		f = fopen(path, "w");
		assert_non_null(f);
		assert_int_equal(fwrite(gz, 1, gz_len, f), gz_len);
		assert_int_equal(fclose(f), 0);
	}
	raw = malloc(cap);
	assert_non_null(raw);
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

static const char *str(const Perftools__Profiles__Profile *prof, int64_t i)
{
	assert_true(i >= 0 && (size_t)i < prof->n_string_table);
	return prof->string_table[i];
}

static const Perftools__Profiles__Function *func(const Perftools__Profiles__Profile *prof,
						 uint64_t id)
{
	for (size_t i = 0; i < prof->n_function; i++)
		if (prof->function[i]->id == id)
			return prof->function[i];
	fail_msg("no function %llu", (unsigned long long)id);
	return NULL;
}

static const Perftools__Profiles__Location *loc(const Perftools__Profiles__Profile *prof,
						uint64_t id)
{
	for (size_t i = 0; i < prof->n_location; i++)
		if (prof->location[i]->id == id)
			return prof->location[i];
	fail_msg("no location %llu", (unsigned long long)id);
	return NULL;
}

static const Perftools__Profiles__Mapping *mapping(const Perftools__Profiles__Profile *prof,
						   uint64_t id)
{
	for (size_t i = 0; i < prof->n_mapping; i++)
		if (prof->mapping[i]->id == id)
			return prof->mapping[i];
	fail_msg("no mapping %llu", (unsigned long long)id);
	return NULL;
}

/* A location as "name[:line][+inlined-into[:line]]@FILE+0xADDR": its lines
 * innermost first, its mapping's file ("-" for none) and address. */
static size_t describe_loc(const Perftools__Profiles__Profile *prof, uint64_t id, char *buf,
			   size_t size)
{
	const Perftools__Profiles__Location *l = loc(prof, id);
	size_t i, len = 0;

	for (i = 0; i < l->n_line; i++) {
		const Perftools__Profiles__Function *f = func(prof, l->line[i]->function_id);

		len += snprintf(buf + len, size - len, "%s%s", i ? "+" : "", str(prof, f->name));
		if (l->mapping_id != 1)
			assert_string_equal(str(prof, f->name), str(prof, f->system_name));
		if (l->line[i]->line)
			len += snprintf(buf + len, size - len, ":%lld",
					(long long)l->line[i]->line);
	}
	if (l->mapping_id == 1)
		return len; /* fsp-bpf's own frames */
	len += snprintf(buf + len, size - len, "@%s+0x%llx",
			l->mapping_id ? str(prof, mapping(prof, l->mapping_id)->filename) : "-",
			(unsigned long long)l->address);
	return len;
}

/* The samples as "loc|loc|... samples/cpu" lines, sorted. */
static char *describe_samples(const Perftools__Profiles__Profile *prof)
{
	char **lines = calloc(prof->n_sample, sizeof(*lines)), *out;
	size_t i, j, len, total = 1;

	assert_non_null(lines);
	for (i = 0; i < prof->n_sample; i++) {
		const Perftools__Profiles__Sample *s = prof->sample[i];
		char buf[2048];

		len = 0;
		for (j = 0; j < s->n_location_id; j++) {
			len += snprintf(buf + len, sizeof(buf) - len, "%s", j ? "|" : "");
			len += describe_loc(prof, s->location_id[j], buf + len, sizeof(buf) - len);
		}
		len += snprintf(buf + len, sizeof(buf) - len, " %lld/%lld\n",
				(long long)s->value[0], (long long)s->value[1]);
		lines[i] = strdup(buf);
		total += strlen(buf);
	}
	qsort(lines, prof->n_sample, sizeof(*lines), cmp_str);
	out = calloc(1, total);
	assert_non_null(out);
	for (i = 0; i < prof->n_sample; i++) {
		strcat(out, lines[i]);
		free(lines[i]);
	}
	free(lines);
	return out;
}

static void test_pprof(void **state)
{
	Perftools__Profiles__Profile *prof = render_pprof(*state, NULL, NULL);
	const Perftools__Profiles__Mapping *m;
	char *got = describe_samples(prof);
	size_t i, nr_app = 0;

	/* the feature and instance are the roots; inlined functions are
	 * lines of one location, innermost first; native samples of two mark
	 * stacks charged alike (S2 of keys 1 and 3 in plan/q1) are one */
	assert_string_equal(
		got,
		"[jit]@-+0x7f0000001000|main:30@/usr/bin/app+0x2000|gc: major|gc 2/2000000\n"
		"[jit]@-+0x7f0000001000|main:30@/usr/bin/app+0x2000|plan: q1|plan 2/2000000\n"
		"do_syscall_64@[kernel.kallsyms]+0xffffffff81000010|app+0x3000@/usr/bin/app+0x3000|"
		"main:30@/usr/bin/app+0x2000|plan: q2|plan 5/5000000\n"
		"inl_helper:10+outer_fn:20@/usr/bin/app+0x1000|main:30@/usr/bin/app+0x2000|(no "
		"feature) 1/1000000\n"
		"inl_helper:10+outer_fn:20@/usr/bin/app+0x1000|main:30@/usr/bin/app+0x2000|plan: "
		"q1|plan 4/4000000\n"
		"memcpy@/lib/x86_64-linux-gnu/libc.so.6+0x500|inl_helper:10+outer_fn:20@/usr/bin/"
		"app+0x1000|main:30@/usr/bin/app+0x2000|plan: q1|plan 3/3000000\n"
		"plan: q1|plan 1/1000000\n"
		"rec:40@/usr/bin/app+0x4000|rec:40@/usr/bin/app+0x4000|rec:40@/usr/bin/app+0x4000|"
		"main:30@/usr/bin/app+0x2000|gc: major|gc 2/2000000\n"
		"rec:40@/usr/bin/app+0x4000|rec:40@/usr/bin/app+0x4000|rec:40@/usr/bin/app+0x4000|"
		"main:30@/usr/bin/app+0x2000|plan: q1|plan 4/4000000\n");
	free(got);
	/* a mapping per module, with its build-id; what it has */
	assert_int_equal(prof->n_mapping, 4);
	for (i = 0; i < prof->n_mapping; i++) {
		m = prof->mapping[i];
		assert_true(m->has_functions);
		if (m->id == 1)
			continue;
		assert_int_equal(m->memory_start, 0);
		assert_int_equal(m->memory_limit, 0);
		if (!strcmp(str(prof, m->filename), "/usr/bin/app")) {
			nr_app++;
			assert_string_equal(str(prof, m->build_id), "abcd");
			assert_true(m->has_filenames && m->has_line_numbers &&
				    m->has_inline_frames);
		} else {
			assert_string_equal(str(prof, m->build_id), "");
			assert_false(m->has_filenames || m->has_inline_frames);
		}
	}
	assert_int_equal(nr_app, 1);
	/* functions carry their file */
	for (i = 0; i < prof->n_function; i++) {
		const char *name = str(prof, prof->function[i]->name);

		if (!strcmp(name, "rec") || !strcmp(name, "inl_helper"))
			assert_string_equal(str(prof, prof->function[i]->filename), "app.c");
		if (!strcmp(name, "memcpy"))
			assert_string_equal(str(prof, prof->function[i]->filename), "");
	}
	perftools__profiles__profile__free_unpacked(prof, NULL);
}

/* pprof --feature: the native samples of that feature alone. */
static void test_pprof_feature(void **state)
{
	struct report_opts o = {.feature = "gc"};
	Perftools__Profiles__Profile *prof = render_pprof(*state, &o, NULL);
	char *got = describe_samples(prof);

	assert_string_equal(
		got, "[jit]@-+0x7f0000001000|main:30@/usr/bin/app+0x2000|gc: major|gc 2/2000000\n"
		     "rec:40@/usr/bin/app+0x4000|rec:40@/usr/bin/app+0x4000|rec:40@/usr/bin/"
		     "app+0x4000|main:30@/usr/bin/app+0x2000|gc: major|gc 2/2000000\n");
	free(got);
	/* only the modules of its stacks */
	assert_int_equal(prof->n_mapping, 2);
	perftools__profiles__profile__free_unpacked(prof, NULL);
}

/* ---- HTML --------------------------------------------------------------------------- */

static __attribute__((noinline)) char *render_html_data(const struct profile *p,
							const struct report_opts *o)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(report_html__data(f, p, o, NULL), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

/* The lines of member `name`'s array (one row a line), up to its end. */
static char *member_rows(const char *data, const char *name)
{
	char key[64], *s, *e;

	snprintf(key, sizeof(key), "\"%s\": [", name);
	s = strstr(data, key);
	assert_non_null(s);
	s = strdup(s + strlen(key));
	assert_non_null(s);
	e = strstr(s, "\n  ]");
	if (e)
		*e = 0;
	else
		*strchr(s, ']') = 0;
	return s;
}

/* The rows of charges: one per (thread, feature, instance, native stack),
 * the samples without a stack in a row without the sixth column; the
 * native stacks caller first, as function labels (strings 6 on). */
static void test_html_data(void **state)
{
	char *data = render_html_data(*state, NULL), *rows;

	rows = member_rows(data, "charges");
	assert_string_equal(rows, "\n    [0,1,2,1,0],\n"
				  "    [0,1,2,4,0,0],\n"
				  "    [0,1,2,3,0,1],\n"
				  "    [0,1,2,4,0,2],\n"
				  "    [0,1,3,5,0,3],\n"
				  "    [0,4,5,2,0,4],\n"
				  "    [0,1,2,2,0,4],\n"
				  "    [0,4,5,2,0,2]");
	free(rows);
	rows = member_rows(data, "native_stacks");
	assert_string_equal(rows, "\n    [8,7,6],\n"
				  "    [8,7,6,9],\n"
				  "    [8,10,10,10],\n"
				  "    [8,12,11],\n"
				  "    [8,13]");
	free(rows);
	assert_non_null(strstr(data, "\"strings\": [\n    \"app\",\n    \"plan\",\n    "
				     "\"q1\",\n    \"q2\",\n    \"gc\",\n    \"major\",\n    "
				     "\"inl_helper\",\n    \"outer_fn\",\n    \"main\",\n    "
				     "\"memcpy\",\n    \"rec\",\n    \"do_syscall_64_[k]\",\n    "
				     "\"app+0x3000\",\n    \"[jit]\""));
	free(data);
}

/* ---- go tool pprof ----------------------------------------------------------------- */

/* Whether text has a line matching all of the words, in order, separated by blanks. */
static bool has_row(const char *text, const char *row)
{
	const char *line = text;
	char want[256], got[256];
	size_t i, j;

	/* compare lines with runs of blanks squeezed */
	for (i = j = 0; row[i] && j + 1 < sizeof(want); i++)
		if (row[i] != ' ' || (j && want[j - 1] != ' '))
			want[j++] = row[i];
	want[j] = 0;
	while (line && *line) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);

		for (i = j = 0; i < len && j + 1 < sizeof(got); i++)
			if ((line[i] != ' ' && line[i] != '\t') || (j && got[j - 1] != ' '))
				got[j++] = line[i] == '\t' ? ' ' : line[i];
		while (j && got[j - 1] == ' ')
			j--;
		got[j] = 0;
		if (!strcmp(got[0] == ' ' ? got + 1 : got, want))
			return true;
		line = end ? end + 1 : NULL;
	}
	return false;
}

#define ASSERT_ROW(text, row)                                                                      \
	do {                                                                                       \
		if (!has_row((text), (row)))                                                       \
			fail_msg("no row \"%s\" in:\n%s", (row), (text));                          \
	} while (0)

static void test_go_tool_pprof(void **state)
{
	char dir[] = "/tmp/fsp-unit-native-XXXXXX", path[128], cmd[200];
	Perftools__Profiles__Profile *prof;
	char *out;
	FILE *src;

	if (!go_pprof_installed("the native stacks' pprof"))
		skip();
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/native.pb.gz", dir);
	prof = render_pprof(*state, NULL, path);
	perftools__profiles__profile__free_unpacked(prof, NULL);
	/* -top: self (flat) and total (cum) per function, 1 ms per sample;
	 * pprof counts recursion once per sample, the inlined function apart */
	out = go_pprof(dir, "-top -nodecount=100", path);
	ASSERT_ROW(out, "6ms 25.00% 25.00% 6ms 25.00% rec");
	ASSERT_ROW(out, "5ms 20.83% 66.67% 8ms 33.33% inl_helper (inline)");
	ASSERT_ROW(out, "0 0% 100% 23ms 95.83% main");
	ASSERT_ROW(out, "0 0% 100% 5ms 20.83% app+0x3000");
	ASSERT_ROW(out, "4ms 16.67% 83.33% 4ms 16.67% [jit]");
	ASSERT_ROW(out, "0 0% 100% 19ms 79.17% plan");
	free(out);
	/* -peek: main's callers are the instances (the roots stay features) */
	out = go_pprof(dir, "-peek '^main$'", path);
	ASSERT_ROW(out, "13ms 56.52% | plan: q1");
	ASSERT_ROW(out, "8ms 34.78% | outer_fn");
	free(out);
	/* -traces: a stack from its leaf to its feature */
	out = go_pprof(dir, "-traces", path);
	assert_non_null(strstr(out, "3ms   memcpy\n             inl_helper (inline)\n"
				    "             outer_fn\n             main\n"
				    "             plan: q1\n             plan\n"));
	free(out);
	/* -list: the source line of a function, from its file */
	snprintf(path, sizeof(path), "%s/app.c", dir);
	src = fopen(path, "w");
	assert_non_null(src);
	for (int i = 1; i <= 45; i++)
		fprintf(src, i == 40 ? "void rec(int n) { if (n) rec(n - 1); }\n" : "/* %d */\n",
			i);
	assert_int_equal(fclose(src), 0);
	snprintf(path, sizeof(path), "%s/native.pb.gz", dir);
	out = go_pprof(dir, "-list '^rec$' -source_path .", path);
	ASSERT_ROW(out, "6ms 6ms 40:void rec(int n) { if (n) rec(n - 1); }");
	free(out);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_pprof, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pprof_feature, setup, teardown),
		cmocka_unit_test_setup_teardown(test_html_data, setup, teardown),
		cmocka_unit_test_setup_teardown(test_go_tool_pprof, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
