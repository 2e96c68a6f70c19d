// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests of what fsp-bpf knows of probe ABI v2 records
 * (userspace/probes/fsp_v2.c). This program includes usdt/fsp.h and marks a
 * feature, so it is itself a DSO with a record: its notes, its mappings and
 * its memory are read as fsp-bpf reads a target's.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "fsp.h"
#include "fsp_v2.h"
#include "procmaps.h"
#include "usdt.h"
#include "unit_helpers.h"

/* A mark, so that the notes have v1 sites besides the fsp:v2 ones. */
static __attribute__((noinline)) void marked(void)
{
	FSP_MARK_ENTER("unit", FSP_HERE, 1);
	FSP_MARK_LEAVE("unit", FSP_HERE, 1);
}

/* The raw layout fsp-bpf reads is the header's. */
static void test_record_layout(void **state)
{
	(void)state;
	assert_int_equal(sizeof(struct fsp_v2_record_raw), sizeof(struct fsp_v2_record));
#define SAME_OFF(f)                                                                                \
	assert_int_equal(offsetof(struct fsp_v2_record_raw, f), offsetof(struct fsp_v2_record, f))
	SAME_OFF(sema_v2);
	SAME_OFF(sema_v1);
	SAME_OFF(magic);
	SAME_OFF(version);
	SAME_OFF(gen);
	SAME_OFF(tp_offset);
	SAME_OFF(ready);
	SAME_OFF(depth);
	SAME_OFF(frame_size);
	SAME_OFF(header_size);
#undef SAME_OFF
	assert_int_equal(FSP_V2_RECORD_GEN_OFF, offsetof(struct fsp_v2_record, gen));
}

/* This program's own notes: one record, its sites, the v1 sites beside. */
static void test_file_of_self(void **state)
{
	struct usdt_site *sites;
	struct fsp_v2_file vf;
	size_t nr, skipped;

	(void)state;
	marked();
	assert_int_equal(usdt__read_sites("/proc/self/exe", NULL, &sites, &nr, &skipped, NULL, 0),
			 0);
	assert_int_equal(fsp_v2__file(sites, nr, &vf), 0);
	assert_true(vf.has_record);
	assert_true(vf.nr_sites >= 1);
	assert_true(vf.nr_v1_sites >= 2); /* the mark's enter and leave */
	assert_int_not_equal(vf.record_off, 0);
	for (size_t i = 0; i < nr; i++)
		if (!strcmp(sites[i].name, "mark_enter"))
			assert_true(fsp_v2__is_v1_site(&sites[i]));
		else if (!strcmp(sites[i].name, FSP_V2_PROBE))
			assert_false(fsp_v2__is_v1_site(&sites[i]));
	free(sites);
}

static struct usdt_site site(const char *name, uint64_t sema_off)
{
	struct usdt_site s = {.ref_ctr_offset = sema_off, .sema_vaddr = sema_off + 0x1000};

	snprintf(s.provider, sizeof(s.provider), "fsp");
	snprintf(s.name, sizeof(s.name), "%s", name);
	return s;
}

/* Notes that disagree on the record, or a record without a semaphore. */
static void test_file_errors(void **state)
{
	struct usdt_site s[3] = {site("v2", 0x4000), site("v2", 0x4040),
				 site("mark_enter", 0x4002)};
	struct fsp_v2_file vf;

	(void)state;
	assert_int_equal(fsp_v2__file(s, 3, &vf), -EINVAL);
	s[1] = site("v2", 0x4000);
	assert_int_equal(fsp_v2__file(s, 3, &vf), 0);
	assert_int_equal(vf.nr_sites, 2);
	assert_int_equal(vf.nr_v1_sites, 1);
	assert_int_equal(vf.record_off, 0x4000);
	assert_int_equal(vf.record_vaddr, 0x5000);
	s[0] = site("v2", 0);
	assert_int_equal(fsp_v2__file(s, 1, &vf), -EINVAL);
	assert_int_equal(fsp_v2__file(&s[2], 1, &vf), 0);
	assert_false(vf.has_record);
}

/* Where a record is in a process: the file's mapping that holds its offset. */
static void test_record_addr(void **state)
{
	struct mapping m[4] = {
		{.start = 0x1000, .end = 0x3000, .offset = 0, .dev = 1, .ino = 7},
		{.start = 0x10000, .end = 0x12000, .offset = 0x4000, .dev = 1, .ino = 7},
		{.start = 0x20000, .end = 0x22000, .offset = 0x4000, .dev = 1, .ino = 8},
		/* a second copy of file 7 (dlmopen) */
		{.start = 0x30000, .end = 0x32000, .offset = 0x4000, .dev = 1, .ino = 7},
	};
	uint64_t addr = 0;
	size_t i = 0;

	(void)state;
	assert_int_equal(fsp_v2__record_addr(m, 4, &i, 1, 7, 0x4040, &addr), 0);
	assert_int_equal(addr, 0x10040);
	assert_int_equal(fsp_v2__record_addr(m, 4, &i, 1, 7, 0x4040, &addr), 0);
	assert_int_equal(addr, 0x30040);
	assert_int_equal(fsp_v2__record_addr(m, 4, &i, 1, 7, 0x4040, &addr), -ENOENT);
	i = 0;
	assert_int_equal(fsp_v2__record_addr(m, 4, &i, 1, 8, 0x4040, &addr), 0);
	assert_int_equal(addr, 0x20040);
	/* Not mapped, another file, or running past the mapping's end. */
	i = 0;
	assert_int_equal(fsp_v2__record_addr(m, 4, &i, 1, 7, 0x8000, &addr), -ENOENT);
	i = 0;
	assert_int_equal(fsp_v2__record_addr(m, 4, &i, 2, 7, 0x4040, &addr), -ENOENT);
	i = 0;
	assert_int_equal(fsp_v2__record_addr(m, 4, &i, 1, 7, 0x5fe0, &addr), -ENOENT);
}

/* This process's record, found and read as fsp-bpf finds a target's; its gen
 * written through /proc/PID/mem. */
static void test_record_in_process(void **state)
{
	struct usdt_site *sites;
	struct fsp_v2_record_raw rec;
	struct fsp_v2_file vf;
	struct mapping *m;
	struct stat st;
	size_t nr, nm, skipped, i = 0;
	uint64_t addr = 0;
	uint32_t gen;

	(void)state;
	assert_int_equal(usdt__read_sites("/proc/self/exe", NULL, &sites, &nr, &skipped, NULL, 0),
			 0);
	assert_int_equal(fsp_v2__file(sites, nr, &vf), 0);
	free(sites);
	assert_int_equal(stat("/proc/self/exe", &st), 0);
	assert_int_equal(procmaps__read(getpid(), &m, &nm), 0);
	assert_int_equal(fsp_v2__record_addr(m, nm, &i, st.st_dev, st.st_ino, vf.record_off, &addr),
			 0);
	procmaps__free(m, nm);
	assert_ptr_equal((void *)(uintptr_t)addr, &fsp__v2_rec);
	assert_int_equal(fsp_v2__read_record(getpid(), addr, &rec), 0);
	assert_true(fsp_v2__record_ok(&rec));
	assert_int_equal(rec.ready, 1);
	assert_int_equal(rec.tp_offset, fsp__v2_rec.tp_offset);
	gen = fsp__v2_rec.gen;
	assert_int_equal(fsp_v2__write_gen(getpid(), addr, gen + 5), 0);
	assert_int_equal(*(volatile uint32_t *)&fsp__v2_rec.gen, gen + 5);
	rec.magic ^= 1;
	assert_false(fsp_v2__record_ok(&rec));
	assert_int_equal(fsp_v2__read_record(999999999, addr, &rec), -ESRCH);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_record_layout),	  cmocka_unit_test(test_file_of_self),
		cmocka_unit_test(test_file_errors),	  cmocka_unit_test(test_record_addr),
		cmocka_unit_test(test_record_in_process),
	};

	return cmocka_run_group_tests_name("fsp_v2", tests, NULL, NULL);
}
