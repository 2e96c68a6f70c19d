// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * wl_hooks - a C++ program without fsp probes of its own: does a profiler
 * hook its exceptions and longjmps? fsp-bpf hooks __cxa_begin_catch and
 * longjmp (a uprobe each, whose int3 this program sees in its own code) only
 * in processes that have probes, since every hook costs every call a trap.
 *
 *   wl_hooks TRUTH          throw and longjmp, look at the hooks
 *   wl_hooks TRUTH dlopen   the same, then dlopen() libwl_dl.so (which has
 *                           fsp probes; not run) and look again
 *
 * Truth keys: hooked_catch, hooked_longjmp (1: a uprobe at the function's
 * entry, or just past its endbr64, before the dlopen), dl_hooked_catch,
 * dl_hooked_longjmp (after it; 0 without dlopen), exceptions, longjmps,
 * exception_ns (wall time per throw+catch, information only).
 */
#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <dlfcn.h>
#include <exception>
#include <limits.h>

extern "C" {
#include "wl_common.h"
}

#define ROUNDS 10000

struct round_error : std::exception {
	const char *what() const noexcept override
	{
		return "round";
	}
};

static std::jmp_buf jb;
static volatile uint64_t sink;

static __attribute__((noinline)) void thrower(uint64_t i)
{
	sink = i;
	throw round_error();
}

static __attribute__((noinline)) void jumper(uint64_t i)
{
	sink = i;
	std::longjmp(jb, 1);
}

/* Is a uprobe (int3) on function name's entry, or just past an endbr64? */
static int hooked(const char *name)
{
	static const unsigned char endbr64[] = {0xf3, 0x0f, 0x1e, 0xfa};
	const unsigned char *code = (const unsigned char *)dlsym(RTLD_DEFAULT, name);

	if (!code)
		return 0;
	if (code[0] == 0xcc)
		return 1;
	return !memcmp(code, endbr64, sizeof(endbr64)) && code[sizeof(endbr64)] == 0xcc;
}

static int hooked_longjmp()
{
	return hooked("longjmp") || hooked("__longjmp_chk");
}

/* Throws and catches ROUNDS exceptions; wall ns per exception. */
static uint64_t exceptions(uint64_t *n)
{
	uint64_t t0 = wl_mono_ns();

	for (uint64_t i = 0; i < ROUNDS; i++) {
		try {
			thrower(i);
		} catch (const round_error &) {
			++*n;
		}
	}
	return (wl_mono_ns() - t0) / ROUNDS;
}

static void longjmps(uint64_t *n)
{
	for (volatile uint64_t i = 0; i < ROUNDS; i = i + 1) {
		if (!setjmp(jb))
			jumper(i);
		++*n;
	}
}

int main(int argc, char **argv)
{
	uint64_t nexc = 0, njmp = 0, exc_ns;
	int catch_before, jmp_before, catch_after = 0, jmp_after = 0;
	char dir[PATH_MAX], lib[PATH_MAX + 32];
	FILE *f;

	if (argc != 2 && (argc != 3 || strcmp(argv[2], "dlopen")))
		wl_die("usage: wl_hooks TRUTH [dlopen]");
	exc_ns = exceptions(&nexc);
	longjmps(&njmp);
	catch_before = hooked("__cxa_begin_catch");
	jmp_before = hooked_longjmp();
	if (argc == 3) {
		wl_self_dir(dir, sizeof(dir));
		snprintf(lib, sizeof(lib), "%s/libwl_dl.so", dir);
		if (!dlopen(lib, RTLD_NOW | RTLD_LOCAL))
			wl_die("dlopen %s: %s", lib, dlerror());
		exceptions(&nexc);
		longjmps(&njmp);
		catch_after = hooked("__cxa_begin_catch");
		jmp_after = hooked_longjmp();
	}

	f = wl_out_open(argv[1]);
	wl_out_u64(f, "hooked_catch", catch_before);
	wl_out_u64(f, "hooked_longjmp", jmp_before);
	wl_out_u64(f, "dl_hooked_catch", catch_after);
	wl_out_u64(f, "dl_hooked_longjmp", jmp_after);
	wl_out_u64(f, "exceptions", nexc);
	wl_out_u64(f, "longjmps", njmp);
	wl_out_u64(f, "exception_ns", exc_ns);
	return wl_out_close(f, argv[1]) ? 3 : 0;
}
