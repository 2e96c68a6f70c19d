// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Unit tests of the unwinder's per-process state (userspace/stacks/unwind.c),
 * on this process: which image a state is for (exec ids), the mappings read
 * again for code mapped since (a dlopen) and when they are not, the state
 * following mappings that changed (a data file's range given to code), and
 * the vDSO as a module of its own. */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "stacks_int.h"
#include "unit_helpers.h"

static void fixture(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s/%s", FSP_FIXTURES, name);
}

/* The first pages of ELF file path mapped readable and executable (at addr
 * exactly, when not NULL), as a library's range; *code: an address in its
 * executable segment (the file's offsets are its addresses there). */
static void *map_elf(const char *path, void *addr, size_t pages, uint64_t *code)
{
	int fd = open(path, O_RDONLY);
	const Elf64_Ehdr *eh;
	void *map;

	assert_true(fd >= 0);
	map = mmap(addr, pages * 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | (addr ? MAP_FIXED : 0),
		   fd, 0);
	assert_true(map != MAP_FAILED);
	close(fd);
	eh = map;
	*code = 0;
	for (int i = 0; i < eh->e_phnum; i++) {
		const Elf64_Phdr *ph = (const Elf64_Phdr *)((char *)map + eh->e_phoff) + i;

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && !*code)
			*code = (uint64_t)map + ph->p_offset + 16;
	}
	assert_true(*code && *code < (uint64_t)map + pages * 4096);
	return map;
}

/* A state is for one image: records of an image an exec replaced are
 * stale, a record of a newer image makes the state anew. */
static void test_exec_ids(void **state)
{
	struct unwinder *u = unwinder__new();
	struct uproc *p, *q;
	pid_t pid = getpid();

	(void)state;
	assert_non_null(u);
	p = unwinder__proc(u, pid, 5);
	assert_non_null(p);
	assert_ptr_equal(unwinder__proc(u, pid, 5), p);
	/* exec 6 reported: image 5's records are stale */
	unwinder__exec(u, pid, 6);
	errno = 0;
	assert_null(unwinder__proc(u, pid, 5));
	assert_int_equal(errno, ESTALE);
	q = unwinder__proc(u, pid, 6);
	assert_non_null(q);
	assert_ptr_equal(unwinder__proc(u, pid, 6), q);
	/* a record of image 7 before its exec is reported: a state of its own,
	 * which the report of that exec then keeps */
	p = unwinder__proc(u, pid, 7);
	assert_non_null(p);
	unwinder__exec(u, pid, 7);
	assert_ptr_equal(unwinder__proc(u, pid, 7), p);
	errno = 0;
	assert_null(unwinder__proc(u, pid, 6));
	assert_int_equal(errno, ESTALE);
	/* the process is gone, its pid free: any image again */
	unwinder__forget(u, pid);
	assert_non_null(unwinder__proc(u, pid, 1));
	unwinder__free(u);
	unwinder__free(NULL);
}

/* A process that is gone has no state, and says so. */
static void test_gone(void **state)
{
	struct unwinder *u = unwinder__new();
	pid_t child = fork();

	(void)state;
	assert_non_null(u);
	assert_true(child >= 0);
	if (!child)
		_exit(0);
	assert_int_equal(waitpid(child, NULL, 0), child);
	errno = 0;
	assert_null(unwinder__proc(u, child, 1));
	assert_true(errno == ESRCH || errno == ENOENT);
	/* an exec reported for it changes nothing of that */
	unwinder__exec(u, child, 2);
	errno = 0;
	assert_null(unwinder__proc(u, child, 2));
	assert_true(errno == ESRCH || errno == ENOENT);
	unwinder__free(u);
}

static void sleep_ms(long ms)
{
	struct timespec ts = {0, ms * 1000000L};

	nanosleep(&ts, NULL);
}

/* Code of a library loaded after the state was made: found by reading the
 * mappings again; after four readings in a row that found nothing, not
 * again for 5 ms (a file mapped meanwhile is found after that). Every
 * reading gives the state a new generation (the frame cache's key,
 * stacks.c), a lookup that reads nothing keeps it. */
static void test_reload(void **state)
{
	struct unwinder *u = unwinder__new();
	char path[512], path2[512];
	struct uaddr ua;
	struct uproc *p;
	void *h, *fn, *map;
	uint64_t code, gen;

	(void)state;
	assert_non_null(u);
	p = unwinder__proc(u, getpid(), 1);
	assert_non_null(p);
	fixture(path, sizeof(path), "libsymfix.so");
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	assert_non_null(h);
	fn = dlsym(h, "symfix_lib_work");
	assert_non_null(fn);
	/* not known without reading again */
	gen = uproc__gen(p);
	assert_true(gen > 0);
	assert_false(uproc__addr(p, (uint64_t)fn, false, &ua));
	assert_int_equal(uproc__gen(p), gen);
	assert_true(uproc__reload(p, (uint64_t)fn));
	assert_true(uproc__gen(p) > gen);
	gen = uproc__gen(p);
	assert_true(uproc__addr(p, (uint64_t)fn, false, &ua));
	assert_non_null(ua.path);
	assert_non_null(strstr(ua.path, "libsymfix.so"));
	assert_non_null(ua.build_id);
	/* known now: nothing to read again */
	assert_false(uproc__reload(p, (uint64_t)fn));
	assert_true(uproc__addr(p, (uint64_t)fn, true, &ua));
	assert_int_equal(uproc__gen(p), gen);

	/* an address of no mapping, four times: the mappings are read each
	 * time and explain nothing */
	for (int i = 0; i < 4; i++) {
		assert_false(uproc__reload(p, 16));
		assert_true(uproc__gen(p) > gen);
		gen = uproc__gen(p);
	}
	/* a file mapped now (at once: within microseconds of the last read) */
	fixture(path2, sizeof(path2), "libsymfix.dynsym.so");
	map = map_elf(path2, NULL, 3, &code);
	/* not read again so soon after that... */
	assert_false(uproc__reload(p, code));
	/* ...but 5 ms later, and then found */
	sleep_ms(6);
	assert_true(uproc__reload(p, code));
	munmap(map, 3 * 4096);
	dlclose(h);
	unwinder__free(u);
}

/* The state follows the mappings: a file mapped only as data is no module,
 * so code mapped where it was once it is unmapped is found (ld.so maps
 * /etc/ld.so.cache while it loads libraries; the next dlopen() may put a
 * library there); a module whose mapping changed before its file was
 * opened (ld.so still mapping it when the mappings were read) is made
 * again. */
static void test_stale(void **state)
{
	struct unwinder *u = unwinder__new();
	char path[512];
	struct uaddr ua;
	struct uproc *p;
	uint64_t code, gen;
	void *data;
	int fd;

	(void)state;
	assert_non_null(u);
	fixture(path, sizeof(path), "libsymfix.dynsym.so");
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	data = mmap(NULL, 4 * 4096, PROT_READ, MAP_PRIVATE, fd, 0);
	assert_true(data != MAP_FAILED);
	close(fd);
	p = unwinder__proc(u, getpid(), 1);
	assert_non_null(p);
	/* data, not code: no module there */
	assert_false(uproc__addr(p, (uint64_t)data + 16, false, &ua));
	/* the data file unmapped, a library's code where it was */
	assert_ptr_equal(map_elf(path, data, 2, &code), data);
	assert_true(uproc__addr(p, code, true, &ua));
	assert_non_null(strstr(ua.path, "libsymfix.dynsym.so"));
	assert_int_equal(ua.addr, code - (uint64_t)data);

	/* mapped again with another extent before its file was opened: the
	 * module of the old extent cannot open it; the mappings are read
	 * again, the module made anew */
	assert_int_equal(munmap(data, 4 * 4096), 0);
	gen = uproc__gen(p);
	unwinder__forget(u, getpid());
	assert_ptr_equal(map_elf(path, data, 2, &code), data);
	p = unwinder__proc(u, getpid(), 1);
	assert_non_null(p);
	/* a state made anew never has an earlier state's generation */
	assert_true(uproc__gen(p) > gen);
	gen = uproc__gen(p);
	assert_int_equal(munmap(data, 2 * 4096), 0);
	assert_ptr_equal(map_elf(path, data, 3, &code), data);
	assert_true(uproc__addr(p, code, true, &ua));
	assert_true(uproc__gen(p) > gen);
	assert_non_null(strstr(ua.path, "libsymfix.dynsym.so"));
	assert_int_equal(ua.addr, code - (uint64_t)data);
	munmap(data, 3 * 4096);
	unwinder__free(u);
}

/* The vDSO is a module named [vdso], addresses in its ELF image (which
 * starts at the mapping), with its build-id. */
static void test_vdso(void **state)
{
	unsigned long base = getauxval(AT_SYSINFO_EHDR);
	struct unwinder *u;
	struct uaddr ua;
	struct uproc *p;

	(void)state;
	if (!base) {
		print_message("  SKIP: this process has no vDSO\n");
		skip();
	}
	u = unwinder__new();
	assert_non_null(u);
	p = unwinder__proc(u, getpid(), 1);
	assert_non_null(p);
	assert_true(uproc__addr(p, base + 0x100, false, &ua));
	assert_string_equal(ua.path, "[vdso]");
	assert_int_equal(ua.addr, 0x100);
	assert_non_null(ua.module); /* a module: its CFI unwinds */
	assert_non_null(ua.build_id);
	assert_true(ua.build_id_len > 0);
	unwinder__free(u);
}

/* ---- the cached CFI rules (cfi_cache.c) ---------------------------------------- */

#define STACK_COPY 8192

/* A record of this thread's stack, its registers as DWARF numbers them:
 * rbx (3), rbp (6), rsp (7), r12-r15 (12-15), rip (16); the others 0 (the
 * callee-saved ones and the pc are all the CFI of this code uses). */
static __attribute__((noinline, no_sanitize_address)) void capture(struct fsp_native_rec *r,
								   size_t *len)
{
	uint64_t *g = (uint64_t *)r->regs, start, end, top = 0;
	char line[512];
	FILE *f;

	__asm__ volatile("movq %%rbx, 24(%0)\n\t"
			 "movq %%rbp, 48(%0)\n\t"
			 "movq %%rsp, 56(%0)\n\t"
			 "movq %%r12, 96(%0)\n\t"
			 "movq %%r13, 104(%0)\n\t"
			 "movq %%r14, 112(%0)\n\t"
			 "movq %%r15, 120(%0)\n\t"
			 "leaq 0(%%rip), %%rax\n\t"
			 "movq %%rax, 128(%0)"
			 :
			 : "r"(g)
			 : "rax", "memory");
	/* up to the end of the stack's mapping */
	f = fopen("/proc/self/maps", "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%lx", &start, &end) == 2 && g[7] >= start && g[7] < end)
			top = end;
	fclose(f);
	assert_true(top > g[7]);
	*len = top - g[7] < STACK_COPY ? top - g[7] : STACK_COPY;
	/* word by word: not memcpy, which ASan checks (other frames' redzones) */
	for (size_t i = 0; i < *len / 8; i++)
		((volatile uint64_t *)r->stack)[i] = ((const volatile uint64_t *)g[7])[i];
	r->stack_len = *len;
	r->tgid = getpid();
	r->tid = gettid();
	r->flags = FSP_NATIVE_USER;
}

static struct unwinder *checking_unwinder(void)
{
	struct unwinder *u;

	setenv("FSP_UNWIND_CHECK", "1", 1);
	u = unwinder__new();
	unsetenv("FSP_UNWIND_CHECK");
	assert_non_null(u);
	assert_non_null(unwinder__cfi_stats(u));
	return u;
}

/* This thread's own stack: the cached rules unwind it whole (to _start,
 * whose return address is undefined), as libdw does; cut short by a copy of
 * 64 bytes, truncated both ways. */
static void test_cfi_own_stack(void **state)
{
	struct fsp_native_rec *r = calloc(1, sizeof(*r) + STACK_COPY);
	uint64_t pcs[STACKS_MAX_USER], sps[STACKS_MAX_USER];
	bool act[STACKS_MAX_USER], complete;
	struct unwinder *u = checking_unwinder();
	const struct cfi_stats *cs = unwinder__cfi_stats(u);
	struct uproc *p;
	size_t len, n;

	(void)state;
	assert_non_null(r);
	capture(r, &len);
	p = unwinder__proc(u, getpid(), 1);
	assert_non_null(p);
	n = uproc__dwarf(p, r, pcs, sps, act, STACKS_MAX_USER, &complete);
	assert_true(n >= 4); /* capture, this test, cmocka's runner..., main */
	assert_true(complete);
	assert_int_equal(pcs[0], r->regs[16]);
	assert_true(act[0] && !act[1]);
	assert_int_equal(sps[0], r->regs[7]);
	for (size_t i = 1; i < n; i++)
		assert_true(sps[i] > sps[i - 1]);
	assert_int_equal(cs->records, 1);
	assert_int_equal(cs->checked, 1);
	assert_int_equal(cs->differences, 0);
	assert_true(cs->computed >= n);
	/* the same again: every rule from the cache */
	uproc__dwarf(p, r, pcs, sps, act, STACKS_MAX_USER, &complete);
	assert_int_equal(cs->records, 2);
	assert_true(cs->computed <= n + 1);
	/* a copy too short for the first caller's return address */
	r->stack_len = 64;
	n = uproc__dwarf(p, r, pcs, sps, act, STACKS_MAX_USER, &complete);
	assert_false(complete);
	assert_true(n >= 1);
	assert_int_equal(cs->checked, 3);
	assert_int_equal(cs->differences, 0);
	free(r);
	unwinder__free(u);
}

/* The rules at a function's entry (the ABI's: CFA = rsp + 8, the return
 * address at CFA - 8, rbp unchanged): a library's function, the return
 * address on top of the copied stack into this program. */
static void test_cfi_entry(void **state)
{
	struct fsp_native_rec *r = calloc(1, sizeof(*r) + 512);
	uint64_t pcs[STACKS_MAX_USER], sps[STACKS_MAX_USER], ret;
	bool act[STACKS_MAX_USER], complete;
	struct unwinder *u = checking_unwinder();
	const struct cfi_stats *cs = unwinder__cfi_stats(u);
	struct uproc *p;
	struct uaddr ua;
	char path[512];
	void *h, *fn;
	size_t n;

	(void)state;
	assert_non_null(r);
	fixture(path, sizeof(path), "libsymfix.so");
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	assert_non_null(h);
	fn = dlsym(h, "symfix_lib_work");
	assert_non_null(fn);
	p = unwinder__proc(u, getpid(), 1);
	assert_non_null(p);
	assert_true(uproc__addr(p, (uint64_t)fn, true, &ua));
	ret = (uint64_t)&test_cfi_own_stack + 16; /* code of this program */
	r->tgid = getpid();
	r->tid = gettid();
	r->flags = FSP_NATIVE_USER;
	r->regs[16] = (uint64_t)fn;
	r->regs[7] = 0x7ff000001000ULL;
	r->regs[6] = 0x1234;
	r->stack_len = 512;
	memcpy(r->stack, &ret, sizeof(ret));
	n = uproc__dwarf(p, r, pcs, sps, act, STACKS_MAX_USER, &complete);
	assert_true(n >= 2);
	assert_int_equal(pcs[0], (uint64_t)fn);
	assert_int_equal(sps[0], r->regs[7]);
	assert_int_equal(pcs[1], ret);
	assert_int_equal(sps[1], r->regs[7] + 8);
	assert_true(act[0] && !act[1]);
	assert_int_equal(cs->records, 1);
	assert_int_equal(cs->differences, 0);
	dlclose(h);
	free(r);
	unwinder__free(u);
}

/* Code in no module: the record goes to libdw, counted; FSP_CFI_CACHE=off:
 * every record to libdw, none counted. */
static void test_cfi_fallback(void **state)
{
	struct fsp_native_rec *r = calloc(1, sizeof(*r) + 64);
	uint64_t pcs[STACKS_MAX_USER], sps[STACKS_MAX_USER];
	bool act[STACKS_MAX_USER], complete;
	struct unwinder *u = checking_unwinder();
	const struct cfi_stats *cs = unwinder__cfi_stats(u);
	struct uproc *p;
	size_t len;

	(void)state;
	assert_non_null(r);
	p = unwinder__proc(u, getpid(), 1);
	assert_non_null(p);
	r->tgid = getpid();
	r->tid = gettid();
	r->regs[16] = 16;
	r->regs[7] = 0x7ff000001000ULL;
	r->stack_len = 64;
	uproc__dwarf(p, r, pcs, sps, act, STACKS_MAX_USER, &complete);
	assert_int_equal(cs->records, 0);
	assert_int_equal(cs->fallbacks, 1);
	unwinder__free(u);

	setenv("FSP_CFI_CACHE", "off", 1);
	u = unwinder__new();
	unsetenv("FSP_CFI_CACHE");
	assert_non_null(u);
	cs = unwinder__cfi_stats(u);
	assert_int_equal(cs->slots, 0);
	p = unwinder__proc(u, getpid(), 1);
	assert_non_null(p);
	memset(r, 0, sizeof(*r));
	free(r);
	r = calloc(1, sizeof(*r) + STACK_COPY);
	assert_non_null(r);
	capture(r, &len);
	assert_true(uproc__dwarf(p, r, pcs, sps, act, STACKS_MAX_USER, &complete) >= 4);
	assert_int_equal(cs->records + cs->fallbacks, 0);
	free(r);
	unwinder__free(u);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exec_ids),  cmocka_unit_test(test_gone),
		cmocka_unit_test(test_reload),	  cmocka_unit_test(test_stale),
		cmocka_unit_test(test_vdso),	  cmocka_unit_test(test_cfi_own_stack),
		cmocka_unit_test(test_cfi_entry), cmocka_unit_test(test_cfi_fallback),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
