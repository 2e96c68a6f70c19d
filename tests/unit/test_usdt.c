// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Unit tests of the USDT site reader (userspace/probes/usdt.c): the argument
 * specs of SystemTap notes (x86-64 syntax: registers, sizes, signs, memory
 * operands, constants; RIP-relative and garbage refused), the notes of a real
 * ELF file (this test's own probes) and its interpreter. */
#include <dlfcn.h>
#include <errno.h>
#include <gnu/libc-version.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/sdt.h>
#include <unistd.h>

#include "unit_helpers.h"
#include "usdt.h"

/* Offsets in struct pt_regs (x86-64) the BPF side reads. */
enum {
	PT_R15 = 0,
	PT_R8 = 72,
	PT_RBP = 32,
	PT_RAX = 80,
	PT_RCX = 88,
	PT_RDX = 96,
	PT_RSI = 104,
	PT_RDI = 112,
	PT_RSP = 152,
};

static struct fsp_usdt_arg parse_ok(const char *s)
{
	struct fsp_usdt_arg a;

	if (usdt__parse_arg(s, &a))
		fail_msg("\"%s\" did not parse", s);
	return a;
}

static void assert_arg(const char *s, uint64_t type, uint64_t size, bool is_signed,
		       uint64_t reg_off, int64_t val_off)
{
	struct fsp_usdt_arg a = parse_ok(s);

	assert_int_equal(a.type, type);
	assert_int_equal(a.size, size);
	assert_int_equal(a.is_signed, is_signed);
	if (type != FSP_ARG_CONST)
		assert_int_equal(a.reg_off, reg_off);
	assert_int_equal((int64_t)a.val_off, val_off);
}

static void test_registers(void **state)
{
	(void)state;
	assert_arg("8@%rdi", FSP_ARG_REG, 8, false, PT_RDI, 0);
	assert_arg("8@%rsi", FSP_ARG_REG, 8, false, PT_RSI, 0);
	assert_arg("8@%rax", FSP_ARG_REG, 8, false, PT_RAX, 0);
	assert_arg("8@%r15", FSP_ARG_REG, 8, false, PT_R15, 0);
	/* The 32-, 16- and 8-bit names of the same registers. */
	assert_arg("4@%edx", FSP_ARG_REG, 4, false, PT_RDX, 0);
	assert_arg("2@%cx", FSP_ARG_REG, 2, false, PT_RCX, 0);
	assert_arg("1@%al", FSP_ARG_REG, 1, false, PT_RAX, 0);
	assert_arg("1@%sil", FSP_ARG_REG, 1, false, PT_RSI, 0);
	assert_arg("4@%r8d", FSP_ARG_REG, 4, false, PT_R8, 0);
	assert_arg("2@%r8w", FSP_ARG_REG, 2, false, PT_R8, 0);
	assert_arg("1@%r8b", FSP_ARG_REG, 1, false, PT_R8, 0);
	assert_arg("8@%rsp", FSP_ARG_REG, 8, false, PT_RSP, 0);
}

static void test_sizes_and_signs(void **state)
{
	struct fsp_usdt_arg a;

	(void)state;
	assert_arg("-4@%esi", FSP_ARG_REG, 4, true, PT_RSI, 0);
	assert_arg("-1@%dil", FSP_ARG_REG, 1, true, PT_RDI, 0);
	assert_arg("-8@%rax", FSP_ARG_REG, 8, true, PT_RAX, 0);
	assert_arg("-2@%ax", FSP_ARG_REG, 2, true, PT_RAX, 0);
	/* Only 1, 2, 4 and 8 bytes. */
	assert_int_equal(usdt__parse_arg("3@%rax", &a), -EINVAL);
	assert_int_equal(usdt__parse_arg("0@%rax", &a), -EINVAL);
	assert_int_equal(usdt__parse_arg("16@%rax", &a), -EINVAL);
	assert_int_equal(usdt__parse_arg("-3@%rax", &a), -EINVAL);
}

static void test_memory_operands(void **state)
{
	(void)state;
	assert_arg("8@-8(%rbp)", FSP_ARG_REG_DEREF, 8, false, PT_RBP, -8);
	assert_arg("-4@16(%rsp)", FSP_ARG_REG_DEREF, 4, true, PT_RSP, 16);
	assert_arg("8@(%rax)", FSP_ARG_REG_DEREF, 8, false, PT_RAX, 0);
	assert_arg("8@0x10(%rdi)", FSP_ARG_REG_DEREF, 8, false, PT_RDI, 16);
	assert_arg("1@-0x1(%r15)", FSP_ARG_REG_DEREF, 1, false, PT_R15, -1);
}

static void test_constants(void **state)
{
	(void)state;
	assert_arg("4@$42", FSP_ARG_CONST, 4, false, 0, 42);
	assert_arg("-8@$-1", FSP_ARG_CONST, 8, true, 0, -1);
	assert_arg("8@$0x10", FSP_ARG_CONST, 8, false, 0, 16);
	assert_arg("1@$0", FSP_ARG_CONST, 1, false, 0, 0);
}

/* A global's address relative to the instruction pointer: the BPF side
 * cannot compute it, so the site's arguments are unreadable. */
static void test_rip_relative_refused(void **state)
{
	struct fsp_usdt_arg a;

	(void)state;
	assert_int_equal(usdt__parse_arg("8@counter(%rip)", &a), -EINVAL);
	assert_int_equal(usdt__parse_arg("8@8(%rip)", &a), -EINVAL);
	assert_int_equal(usdt__parse_arg("8@(%rip)", &a), -EINVAL);
	assert_int_equal(usdt__parse_arg("8@%rip", &a), -EINVAL);
	assert_int_equal(usdt__parse_arg("4@%eip", &a), -EINVAL);
}

static void test_garbage_refused(void **state)
{
	static const char *const bad[] = {
		"",	   "8",		 "8@",
		"@%rax",   "x@%rax",	 "8%rax",
		"8@%",	   "8@%xyz",	 "8@%rax ",
		"8@%raxx", "8@(%rax",	 "8@(%rax)x",
		"8@(rax)", "8@-8%rbp",	 "8@-8(%)",
		"8@-8()",  "8@$",	 "8@$12x",
		"8@abc",   "8@1+(%rax)", "8@(%rax,%rbx)",
	};
	struct fsp_usdt_arg a;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (usdt__parse_arg(bad[i], &a) != -EINVAL)
			fail_msg("\"%s\" parsed", bad[i]);
}

static void test_parse_args(void **state)
{
	struct fsp_usdt_spec spec;
	char many[256] = "";

	(void)state;
	assert_int_equal(usdt__parse_args("8@%rdi -4@%esi 8@-16(%rbp)", &spec), 0);
	assert_int_equal(spec.nr_args, 3);
	assert_int_equal(spec.args[0].reg_off, PT_RDI);
	assert_true(spec.args[1].is_signed);
	assert_int_equal(spec.args[2].type, FSP_ARG_REG_DEREF);
	assert_int_equal((int64_t)spec.args[2].val_off, -16);
	/* Tabs and repeated blanks separate too; no arguments is a spec. */
	assert_int_equal(usdt__parse_args("\t8@%rdi\t\t4@$7 ", &spec), 0);
	assert_int_equal(spec.nr_args, 2);
	assert_int_equal(spec.args[1].val_off, 7);
	assert_int_equal(usdt__parse_args("", &spec), 0);
	assert_int_equal(spec.nr_args, 0);
	/* One bad argument spoils the spec. */
	assert_int_equal(usdt__parse_args("8@%rdi 8@foo(%rip)", &spec), -EINVAL);
	assert_int_equal(usdt__parse_args("8@%rdi junk", &spec), -EINVAL);
	/* Arguments beyond FSP_USDT_MAX_ARGS are never read: not parsed. */
	for (int i = 0; i < FSP_USDT_MAX_ARGS + 2; i++)
		strcat(many, i == FSP_USDT_MAX_ARGS ? "junk " : "8@%rax ");
	assert_int_equal(usdt__parse_args(many, &spec), 0);
	assert_int_equal(spec.nr_args, FSP_USDT_MAX_ARGS);
	/* Longer than any note's arguments could sensibly be. */
	memset(many, 'x', sizeof(many) - 1);
	many[sizeof(many) - 1] = 0;
	assert_int_equal(usdt__parse_args(many, &spec), -EINVAL);
}

/* ---- the notes of this test's own file ---- */

static volatile long probe_value = 7;

static void __attribute__((noinline)) fire_probes(long a, long b)
{
	STAP_PROBE2(fsp_unit, two, a, b);
	STAP_PROBE(fsp_unit, none);
	STAP_PROBE1(fsp_other, one, probe_value);
}

static void test_read_own_sites(void **state)
{
	struct usdt_site *sites = NULL;
	size_t nr = 0, skipped = 1;
	char why[256];
	int fd, seen_two = 0, seen_none = 0;

	(void)state;
	fire_probes(1, 2);
	assert_int_equal(usdt__read_sites("/proc/self/exe", "fsp_unit", &sites, &nr, &skipped, why,
					  sizeof(why)),
			 0);
	assert_int_equal(skipped, 0);
	assert_int_equal(nr, 2);
	fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	for (size_t i = 0; i < nr; i++) {
		unsigned char insn = 0;

		assert_string_equal(sites[i].provider, "fsp_unit");
		assert_true(sites[i].args_ok);
		assert_int_equal(sites[i].ref_ctr_offset, 0); /* no semaphore */
		/* The file offset is the probe's nop. */
		assert_int_equal(pread(fd, &insn, 1, sites[i].offset), 1);
		assert_int_equal(insn, 0x90);
		if (!strcmp(sites[i].name, "two")) {
			seen_two++;
			assert_int_equal(sites[i].spec.nr_args, 2);
			assert_int_equal(sites[i].spec.args[0].size, 8);
			assert_true(sites[i].spec.args[0].is_signed);
		} else {
			assert_string_equal(sites[i].name, "none");
			seen_none++;
			assert_int_equal(sites[i].spec.nr_args, 0);
		}
	}
	close(fd);
	assert_int_equal(seen_two, 1);
	assert_int_equal(seen_none, 1);
	free(sites);
	/* Every provider's sites, or none of one the file does not carry. */
	assert_int_equal(usdt__read_sites("/proc/self/exe", NULL, &sites, &nr, &skipped, NULL, 0),
			 0);
	assert_true(nr >= 3);
	free(sites);
	assert_int_equal(
		usdt__read_sites("/proc/self/exe", "nosuch", &sites, &nr, &skipped, NULL, 0), 0);
	assert_int_equal(nr, 0);
	free(sites);
}

static void test_read_sites_errors(void **state)
{
	char path[] = "/tmp/fsp-usdt-XXXXXX";
	struct usdt_site *sites = (struct usdt_site *)1;
	size_t nr = 1, skipped = 1;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "#!/bin/sh\nexit 0\n", 17), 17);
	close(fd);
	assert_int_equal(usdt__read_sites(path, NULL, &sites, &nr, &skipped, NULL, 0), -ENOEXEC);
	assert_null(sites);
	assert_int_equal(nr, 0);
	assert_int_equal(usdt__read_sites("/nonexistent/fsp", NULL, &sites, &nr, &skipped, NULL, 0),
			 -ENOENT);
	unlink(path);
}

static void test_elf_interp(void **state)
{
	char buf[256] = "x", path[] = "/tmp/fsp-usdt-XXXXXX";
	int fd = mkstemp(path);

	(void)state;
	/* This test is dynamically linked: ld.so is its interpreter. */
	assert_int_equal(usdt__elf_interp("/proc/self/exe", buf, sizeof(buf)), 0);
	assert_non_null(strstr(buf, "ld-linux"));
	assert_int_equal(usdt__elf_interp("/proc/self/exe", buf, 4), -EINVAL);
	assert_string_equal(buf, "");
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(usdt__elf_interp(path, buf, sizeof(buf)), -ENOEXEC);
	assert_string_equal(buf, "");
	unlink(path);
}

/* A data symbol (usdt__func_probe() must not take it for a function). */
int unit_data_symbol = 1;

/* Function entries for usdt__func_probe(): one whose endbr64 is followed by
 * an instruction the kernel emulates (push), one whose is not (sub). */
void unit_endbr_push(void);
void unit_endbr_sub(void);
__asm__(".text\n"
	".globl unit_endbr_push\n.type unit_endbr_push,@function\n"
	"unit_endbr_push:\nendbr64\npush %rbx\npop %rbx\nret\n"
	".size unit_endbr_push,.-unit_endbr_push\n"
	".globl unit_endbr_sub\n.type unit_endbr_sub,@function\n"
	"unit_endbr_sub:\nendbr64\nsub $8,%rsp\nadd $8,%rsp\nret\n"
	".size unit_endbr_sub,.-unit_endbr_sub\n");

static void assert_entry(const uint8_t *code, size_t len, size_t off, bool emulated)
{
	bool em = !emulated;

	assert_int_equal(usdt__entry_probe(code, len, &em), off);
	assert_int_equal(em, emulated);
}

static void test_entry_probe(void **state)
{
	static const uint8_t push_rbp[] = {0x55, 0x48, 0x89, 0xe5};
	static const uint8_t endbr_push[] = {0xf3, 0x0f, 0x1e, 0xfa, 0x53};
	static const uint8_t endbr_push_r12[] = {0xf3, 0x0f, 0x1e, 0xfa, 0x41, 0x54};
	static const uint8_t endbr_sub[] = {0xf3, 0x0f, 0x1e, 0xfa, 0x48, 0x83, 0xec, 0x08};
	static const uint8_t endbr_call[] = {0xf3, 0x0f, 0x1e, 0xfa, 0xe8, 0, 0, 0, 0};
	static const uint8_t sub[] = {0x48, 0x83, 0xec, 0x08};
	static const uint8_t rex_not_push[] = {0xf3, 0x0f, 0x1e, 0xfa, 0x41, 0x89};

	(void)state;
	assert_entry(push_rbp, sizeof(push_rbp), 0, true); /* glibc's longjmp */
	assert_entry(endbr_push, sizeof(endbr_push), 4, true); /* __cxa_begin_catch */
	assert_entry(endbr_push_r12, sizeof(endbr_push_r12), 4, true);
	assert_entry(endbr_call, sizeof(endbr_call), 4, true);
	assert_entry(endbr_sub, sizeof(endbr_sub), 0, false);
	assert_entry(rex_not_push, sizeof(rex_not_push), 0, false);
	assert_entry(sub, sizeof(sub), 0, false);
	/* Truncated code (a function shorter than its read): nothing past it. */
	assert_entry(endbr_push, 4, 0, false);
	assert_entry(endbr_push_r12, 5, 0, false);
	assert_entry(push_rbp, 0, 0, false);
}

static void test_func_probe(void **state)
{
	uint64_t push_off, sub_off;
	bool em;

	(void)state;
	assert_int_equal(usdt__func_probe("/proc/self/exe", "unit_endbr_push", &push_off, &em), 0);
	assert_true(em);
	assert_int_equal(usdt__func_probe("/proc/self/exe", "unit_endbr_sub", &sub_off, &em), 0);
	assert_false(em);
	/* Both in one segment: file offsets differ as the addresses do, and
	 * the first probe is past its endbr64. */
	assert_int_equal((int64_t)(push_off - sub_off),
			 (intptr_t)unit_endbr_push + 4 - (intptr_t)unit_endbr_sub);
	assert_int_equal(usdt__func_probe("/proc/self/exe", "no_such_function", &push_off, &em),
			 -ENOENT);
	/* A data symbol is no function. */
	assert_int_equal(usdt__func_probe("/proc/self/exe", "unit_data_symbol", &push_off, &em),
			 -ENOENT);
	assert_int_equal(usdt__func_probe("/nonexistent", "unit_endbr_push", &push_off, &em),
			 -ENOENT);
}

/*
 * Functions for usdt__func_range(), with "sites" (labels) where a probe would
 * be. unit_rows: two sites in one function, with different stack-pointer
 * rules (CFI rows) at each, as -Og code or a push between them has.
 * unit_other: a site in the next function. unit_split: a part split off a
 * function (as GCC's ".cold" blocks), entered by a jump inside its frame.
 */
void unit_rows(void);
void unit_other(void);
void unit_split(void);
extern const char unit_rows_enter[], unit_rows_leave[], unit_other_site[], unit_split_site[];
__asm__(".text\n"
	".globl unit_rows\n.type unit_rows,@function\n"
	"unit_rows:\n.cfi_startproc\n"
	"push %rbx\n.cfi_adjust_cfa_offset 8\n"
	".globl unit_rows_enter\nunit_rows_enter: nop\n"
	"push %rax\n.cfi_adjust_cfa_offset 8\n"
	"nop\n"
	".globl unit_rows_leave\nunit_rows_leave: nop\n"
	"pop %rax\n.cfi_adjust_cfa_offset -8\n"
	"pop %rbx\n.cfi_adjust_cfa_offset -8\n"
	"ret\n.cfi_endproc\n.size unit_rows,.-unit_rows\n"
	".globl unit_other\n.type unit_other,@function\n"
	"unit_other:\n.cfi_startproc\n"
	".globl unit_other_site\nunit_other_site: nop\n"
	"ret\n.cfi_endproc\n.size unit_other,.-unit_other\n"
	".globl unit_split\n.type unit_split,@function\n"
	"unit_split:\n.cfi_startproc\n.cfi_def_cfa_offset 16\n"
	".globl unit_split_site\nunit_split_site: nop\n"
	"pop %rbx\n.cfi_def_cfa_offset 8\n"
	"ret\n.cfi_endproc\n.size unit_split,.-unit_split\n");

/* The link-time address of code at run-time address p of this program. */
static uint64_t own_vaddr(const void *p)
{
	uint64_t rows;

	assert_int_equal(usdt__func("/proc/self/exe", "unit_rows", &rows), 0);
	return (uint64_t)(uintptr_t)p - ((uint64_t)(uintptr_t)unit_rows - rows);
}

/* Thread-local variables of this executable, one over-aligned before the
 * other: the offset from the thread pointer depends on the TLS block's size
 * and alignment. */
__thread char unit_tls_pad[40] __attribute__((aligned(32)));
__thread const char *unit_tls_var;

static void test_tls_symbol(void **state)
{
	int64_t off;
	Dl_info info;

	(void)state;
	unit_tls_pad[0] = 1;
	assert_int_equal(usdt__tls_symbol("/proc/self/exe", "unit_tls_var", &off), 0);
	/* What the sampler adds to the thread's fsbase: where the variable is. */
	assert_int_equal(off, (char *)&unit_tls_var - (char *)__builtin_thread_pointer());
	assert_int_equal(usdt__tls_symbol("/proc/self/exe", "unit_tls_pad", &off), 0);
	assert_int_equal(off, (char *)unit_tls_pad - (char *)__builtin_thread_pointer());
	assert_int_equal(usdt__tls_symbol("/proc/self/exe", "no_such_tls", &off), -ENOENT);
	/* A data symbol is not a thread-local one. */
	assert_int_equal(usdt__tls_symbol("/proc/self/exe", "unit_rows", &off), -ENOENT);
	/* A library's block is placed by ld.so: not read. */
	/* (a function of libc's that ASan does not intercept) */
	assert_true(dladdr((void *)gnu_get_libc_version, &info) && info.dli_fname);
	assert_int_equal(usdt__tls_symbol(info.dli_fname, "errno", &off), -ENOTSUP);
}

static void test_func_range(void **state)
{
	uint64_t es, ee, ls, le, os, oe, s, e;

	(void)state;
	/* One function, whatever its rows: the warning on "frame" features
	 * (enter and leave in different functions) compares these. */
	assert_int_equal(usdt__func_range("/proc/self/exe", own_vaddr(unit_rows_enter), &es, &ee),
			 0);
	assert_int_equal(usdt__func_range("/proc/self/exe", own_vaddr(unit_rows_leave), &ls, &le),
			 0);
	assert_int_equal(es, own_vaddr(unit_rows));
	assert_int_equal(ls, es);
	assert_int_equal(le, ee);
	assert_true(ee > own_vaddr(unit_rows_leave));
	/* Another function: another range. */
	assert_int_equal(usdt__func_range("/proc/self/exe", own_vaddr(unit_other_site), &os, &oe),
			 0);
	assert_int_equal(os, own_vaddr(unit_other));
	assert_true(os >= ee);
	/* A split-off part says nothing on its function. */
	assert_int_equal(usdt__func_range("/proc/self/exe", own_vaddr(unit_split_site), &s, &e),
			 -ENOENT);
	assert_int_equal(usdt__func_range("/nonexistent", 0, &s, &e), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_registers),
		cmocka_unit_test(test_sizes_and_signs),
		cmocka_unit_test(test_memory_operands),
		cmocka_unit_test(test_constants),
		cmocka_unit_test(test_rip_relative_refused),
		cmocka_unit_test(test_garbage_refused),
		cmocka_unit_test(test_parse_args),
		cmocka_unit_test(test_read_own_sites),
		cmocka_unit_test(test_read_sites_errors),
		cmocka_unit_test(test_elf_interp),
		cmocka_unit_test(test_entry_probe),
		cmocka_unit_test(test_func_probe),
		cmocka_unit_test(test_func_range),
		cmocka_unit_test(test_tls_symbol),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
