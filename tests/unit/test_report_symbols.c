// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests of `fsp-bpf report --binaries DIR` (userspace/cmd/cmd_report.c): a
 * saved profile whose modules' recorded paths are gone is symbolized again
 * from the fixture binaries (tests/unit/fixtures/build.sh) and saved with
 * --format json; a module nowhere to be found is named in the warning and
 * keeps module+offset; without the option nothing is looked up; the
 * options' checks.
 */
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <unistd.h>

#include "commands.h"
#include "native.h"
#include "profile.h"
#include "profile_io.h"
#include "fixture_helpers.h"
#include "unit_helpers.h"

#define GONE_LIB "/opt/gone/libgone.so.3"

static char dir[] = "/tmp/fsp-report-symbols-XXXXXX";
static char in_path[256], out_path[256];

/* Saves a profile recorded "elsewhere": symfix and a library, at paths that
 * do not exist here, one location each, no lines. */
static int setup(void **state)
{
	struct profile *p = profile__new();
	struct profile_module fix = {PROFILE_MODULE_USER, "/opt/gone/bin/symfix", SYMFIX_BUILD_ID};
	struct profile_module gone = {PROFILE_MODULE_USER, GONE_LIB, "0011223344556677"};
	struct profile_location loc = {0};
	char err[256];
	int m;

	(void)state;
	strcpy(dir, "/tmp/fsp-report-symbols-XXXXXX");
	if (!p || !mkdtemp(dir))
		return -1;
	snprintf(in_path, sizeof(in_path), "%s/in.json", dir);
	snprintf(out_path, sizeof(out_path), "%s/out.json", dir);
	m = profile__add_module(p, &fix);
	loc.module = (uint32_t)m;
	loc.address = sym_addr(FSP_FIXTURES "/symfix", "symfix_inner_mark");
	if (m < 0 || profile__add_location(p, &loc) != 0)
		return -1;
	m = profile__add_module(p, &gone);
	loc.module = (uint32_t)m;
	loc.address = 0x1234;
	if (m < 0 || profile__add_location(p, &loc) != 1)
		return -1;
	if (profile__save(in_path, p, err, sizeof(err)))
		return -1;
	profile__free(p);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(in_path);
	unlink(out_path);
	rmdir(dir);
	return 0;
}

/* Sends stderr to a temporary file until stderr_end copies it into buf. */
static FILE *stderr_begin(int *saved)
{
	FILE *f = tmpfile();

	assert_non_null(f);
	fflush(stderr);
	*saved = dup(2);
	dup2(fileno(f), 2);
	return f;
}

static void stderr_end(FILE *f, int saved, char *buf, size_t size)
{
	size_t n;

	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(f);
	n = fread(buf, 1, size - 1, f);
	buf[n] = 0;
	fclose(f);
}

/* Runs "fsp-bpf report [A1 A2] --format json -o OUT IN", stderr into err. */
static int report(char *err, size_t errlen, const char *a1, const char *a2)
{
	char *argv[] = {"fsp-bpf", "report",   "--format", "json",  "-o",
			out_path,  (char *)a1, (char *)a2, in_path, NULL};
	int argc = a1 ? 9 : 7, status = 0, rc, saved;
	struct fsp_options o;
	FILE *f;

	if (!a1)
		argv[6] = in_path, argv[7] = NULL;
	f = stderr_begin(&saved);
	assert_true(options__parse(argc, argv, &o, &status));
	rc = o.command->run(&o, "fsp-bpf report");
	options__free(&o);
	stderr_end(f, saved, err, errlen);
	return rc;
}

static struct profile *load_out(void)
{
	char err[256];
	struct profile *p = profile__load(out_path, err, sizeof(err));

	if (!p)
		fail_msg("%s", err);
	return p;
}

static void test_binaries_dir(void **state)
{
	char err[4096];
	struct profile_location loc;
	struct profile *p;

	(void)state;
	assert_int_equal(report(err, sizeof(err), "--binaries", FSP_FIXTURES), 0);
	/* the module not found is named, with why; the one found is not */
	assert_non_null(strstr(err, "1 module not symbolized again from --binaries"));
	assert_non_null(strstr(err, GONE_LIB " build-id 0011223344556677: file not found"));
	assert_null(strstr(err, "symfix:"));

	p = load_out();
	assert_int_equal(profile__location(p, 0, &loc), 0);
	assert_int_equal(loc.nr_lines, 3); /* inner, middle, outer */
	assert_string_equal(loc.lines[0].function, "symfix_inner");
	assert_string_equal(loc.lines[2].function, "symfix_outer");
	assert_true(loc.flags & PROFILE_LOC_DEBUGINFO);
	assert_int_equal(profile__location(p, 1, &loc), 0);
	assert_int_equal(loc.nr_lines, 0);
	profile__free(p);
}

/* Without --binaries (or --debug-dirs) report looks nothing up. */
static void test_no_option(void **state)
{
	char err[4096];
	struct profile_location loc;
	struct profile *p;

	(void)state;
	assert_int_equal(report(err, sizeof(err), NULL, NULL), 0);
	assert_string_equal(err, "");
	p = load_out();
	assert_int_equal(profile__location(p, 0, &loc), 0);
	assert_int_equal(loc.nr_lines, 0);
	profile__free(p);
}

/* Parses "fsp-bpf report [ARGS...] x.json": whether it would run, stderr in err. */
static bool parse(struct fsp_options *o, char *err, size_t errlen, const char *a1, const char *a2,
		  const char *a3, const char *a4)
{
	char *argv[8] = {"fsp-bpf", "report", (char *)a1, (char *)a2, (char *)a3, (char *)a4};
	int argc = 2, status = 0, saved;
	FILE *f;
	bool run;

	while (argv[argc])
		argc++;
	argv[argc++] = "x.json";
	argv[argc] = NULL;
	f = stderr_begin(&saved);
	run = options__parse(argc, argv, o, &status);
	stderr_end(f, saved, err, errlen);
	return run;
}

/* The options: existing directories, or a usage error naming the bad one. */
static void test_options(void **state)
{
	struct fsp_options o;
	char err[1024];

	(void)state;
	assert_true(parse(&o, err, sizeof(err), NULL, NULL, NULL, NULL));
	assert_null(o.binaries_dir);
	assert_null(o.debug_dirs);
	options__free(&o);
	assert_true(parse(&o, err, sizeof(err), "--binaries", "/tmp", "--debug-dirs", "/tmp::/"));
	assert_string_equal(o.binaries_dir, "/tmp");
	assert_string_equal(o.debug_dirs, "/tmp::/");
	assert_string_equal(err, "");
	options__free(&o);
	assert_false(parse(&o, err, sizeof(err), "--binaries", "/nonexistent/bin", NULL, NULL));
	assert_non_null(strstr(err, "--binaries: '/nonexistent/bin' is not a directory"));
	options__free(&o);
	assert_false(parse(&o, err, sizeof(err), "--debug-dirs", "/tmp:/etc/passwd", NULL, NULL));
	assert_non_null(strstr(err, "--debug-dirs: '/etc/passwd' is not a directory"));
	options__free(&o);
	assert_false(parse(&o, err, sizeof(err), "--binaries=", NULL, NULL, NULL));
	assert_non_null(strstr(err, "--binaries needs a directory"));
	options__free(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_binaries_dir, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_option, setup, teardown),
		cmocka_unit_test(test_options),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
