// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * usdt/fsp.h compiled out with FSP_DISABLE: every macro still compiles, none
 * evaluates its arguments, FSP_ENABLED() is 0, and the program carries no fsp
 * probe notes, no semaphores and no .probes section. A separate program from
 * test_fsp_header.c because the switch applies to a whole translation unit.
 */
#define FSP_DISABLE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "fsp.h"
#include "sdt_notes.h"

static int calls;

static uint64_t payload_fn(uint64_t v)
{
	calls++;
	return v;
}

static const char *label_fn(const char *s)
{
	calls++;
	return s;
}

static int scoped_exits(int n)
{
	int i, r = 0;

	for (i = 0; i < n; i++) {
		FSP_SCOPED_MARK(label_fn("loop"), label_fn(FSP_HERE), payload_fn((uint64_t)i));
		FSP_SCOPED_MARK("loop2", NULL, 0); /* twice in one block */
		FSP_SCOPED_ANTIMARK(label_fn("loop"));
		FSP_SCOPED_ANTIMARK("loop2");
		if (i == 2)
			break;
		r++;
	}
	return r;
}

static void test_disabled_evaluates_nothing(void **state)
{
	uint64_t only_a_payload = 99; /* used only as a payload: must not warn */

	(void)state;
	calls = 0;
	assert_int_equal(FSP_ENABLED(), 0);
	FSP_MARK_ENTER(label_fn("f"), label_fn(FSP_HERE), payload_fn(1));
	FSP_ANTIMARK_ENTER(label_fn("f"));
	FSP_ANTIMARK_LEAVE(label_fn("f"));
	FSP_MARK_LEAVE(label_fn("f"), label_fn(FSP_HERE), only_a_payload);
	assert_int_equal(scoped_exits(5), 2);
	assert_int_equal(calls, 0);
}

static void test_disabled_constants(void **state)
{
	(void)state;
	/* The ABI the header implements, compiled out or not. */
	assert_int_equal(FSP_ABI_VERSION, 2);
	assert_string_equal(FSP_HERE, "test_fsp_disabled.c:" FSP__STR(__LINE__));
}

static void test_disabled_no_probes_in_binary(void **state)
{
	static struct sdt_file f;
	size_t i, fsp_notes = 0;

	(void)state;
	assert_int_equal(sdt_file_read("/proc/self/exe", &f), 0);
	assert_true(f.nsyms > 0); /* the file was really read */
	for (i = 0; i < f.n; i++)
		if (!strcmp(f.notes[i].provider, "fsp"))
			fsp_notes++;
	assert_int_equal(fsp_notes, 0);
	assert_false(f.has_probes_section);
	assert_int_equal(f.fsp_semaphore_syms, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_disabled_evaluates_nothing),
		cmocka_unit_test(test_disabled_constants),
		cmocka_unit_test(test_disabled_no_probes_in_binary),
	};

	return cmocka_run_group_tests_name("fsp_disabled", tests, NULL, NULL);
}
