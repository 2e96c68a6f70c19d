// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests of kernel symbolization (analysis/symbol/kallsyms.c): a
 * kallsyms file's text symbols, aliases, hidden addresses; the kernel's
 * build-id among raw notes; this host's kallsyms used for the running
 * kernel only.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "fixture_helpers.h"
#include "symbol_int.h"

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_kallsyms(void **state)
{
	struct profile *p = *state;
	char ks[512];
	struct symbolizer_opts opts = {.kallsyms = ks};
	uint32_t k;
	size_t a, b, c, d, e;

	make_tmpdir();
	snprintf(ks, sizeof(ks), "%s/kallsyms", tmpdir);
	write_text(ks, "ffffffff81000000 T _stext\n"
		       "ffffffff81000100 t do_thing\n"
		       "ffffffff81000180 D some_data\n"
		       "ffffffff81000200 T other_fn\n"
		       "ffffffffc0001000 t ext4_fn\t[ext4]\n"
		       "ffffffff81000200 t other_local\n"
		       "ffffffff81000200 T other_alias\n"
		       "garbage line\n");
	k = add_module(p, PROFILE_MODULE_KERNEL, "[kernel.kallsyms]", NULL);
	a = add_loc(p, k, 0xffffffff81000150);
	b = add_loc(p, k, 0xffffffff81000200);
	c = add_loc(p, k, 0xffffffff80000000);
	d = add_loc(p, k, 0xffffffffc0001010);
	e = add_loc(p, k, 0xffffffff81000190); /* data symbols are skipped */
	assert_int_equal(run(p, &opts, 0, 0), 4);
	assert_line(&get_loc(p, a).lines[0], "do_thing", NULL, 0);
	/* one address, several names: the first global one */
	assert_line(&get_loc(p, b).lines[0], "other_fn", NULL, 0);
	assert_int_equal(get_loc(p, c).nr_lines, 0);
	assert_line(&get_loc(p, d).lines[0], "ext4_fn", NULL, 0);
	assert_line(&get_loc(p, e).lines[0], "do_thing", NULL, 0);

	/* kptr_restrict: every address 0 */
	write_text(ks, "0000000000000000 T _stext\n0000000000000000 t do_thing\n");
	add_loc(p, k, 0xffffffff81000300);
	assert_missing(p, &opts, k, "kallsyms unreadable or its addresses hidden");
	remove_tmpdir();
}

/* The build-id among raw notes, as /sys/kernel/notes has them. */
static void test_kernel_notes(void **state)
{
	/* a note of another type, then NT_GNU_BUILD_ID with 20 bytes */
	static const unsigned char notes[] = {
		4,    0,    0,	  0,	4,    0,    0,	  0,	1,    0,    0,	  0,	'X',  'e',
		'n',  0,    1,	  2,	3,    4,    4,	  0,	0,    0,    20,	  0,	0,    0,
		3,    0,    0,	  0,	'G',  'N',  'U',  0,	0xde, 0xad, 0xbe, 0xef, 0x00, 0x11,
		0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff,
	};
	char path[512], id[129];
	int fd;

	(void)state;
	make_tmpdir();
	snprintf(path, sizeof(path), "%s/notes", tmpdir);
	for (size_t len = 0; len <= sizeof(notes); len++) {
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		assert_true(fd >= 0);
		assert_int_equal(write(fd, notes, len), (ssize_t)len);
		close(fd);
		/* cut anywhere: not found, never read past the end */
		assert_int_equal(kallsyms__notes_build_id(path, id, sizeof(id)),
				 len == sizeof(notes) ? 0 : -ENOENT);
	}
	assert_string_equal(id, "deadbeef00112233445566778899aabbccddeeff");
	assert_int_equal(kallsyms__notes_build_id(path, id, 40), -ENOSPC);
	remove_tmpdir();
	if (kernel__build_id(id, sizeof(id)))
		skip(); /* no /sys/kernel/notes here */
	assert_true(strlen(id) >= 16 && strspn(id, "0123456789abcdef") == strlen(id));
}

/* The running kernel's kallsyms: used for the running kernel only. */
static void test_running_kernel(void **state)
{
	struct profile *p = *state;
	char id[129], line[512], name[256] = "";
	unsigned long long addr = 0;
	char type;
	FILE *f = fopen("/proc/kallsyms", "r");
	uint32_t k, other, none;
	size_t a, b, c;

	/* the first global text symbol (of those at its address, the first
	 * listed: the name kallsyms lookups give) */
	while (f && !addr && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3 || type != 'T')
			addr = 0;
	if (f)
		fclose(f);
	if (!addr || kernel__build_id(id, sizeof(id)))
		skip(); /* addresses hidden (not root), or no notes */
	k = add_module(p, PROFILE_MODULE_KERNEL, "[kernel.kallsyms]", id);
	other = add_module(p, PROFILE_MODULE_KERNEL, "[kernel.kallsyms]", "0123456789abcdef");
	none = add_module(p, PROFILE_MODULE_KERNEL, "[kernel.kallsyms]", NULL);
	a = add_loc(p, k, addr);
	b = add_loc(p, other, addr);
	c = add_loc(p, none, addr);
	/* another host's report (all): the same kernel by build-id only */
	assert_int_equal(run(p, NULL, 1, 2), 1);
	assert_string_equal(get_loc(p, a).lines[0].function, name);
	assert_int_equal(get_loc(p, b).nr_lines, 0);
	assert_int_equal(get_loc(p, c).nr_lines, 0);
	/* the recording itself: no build-id is this kernel */
	assert_int_equal(run(p, NULL, 0, 1), 1);
	assert_string_equal(get_loc(p, c).lines[0].function, name);
	assert_int_equal(get_loc(p, b).nr_lines, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		PROFILE_TEST(test_kallsyms),
		cmocka_unit_test(test_kernel_notes),
		PROFILE_TEST(test_running_kernel),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
