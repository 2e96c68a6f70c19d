// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Tests for usdt/fsp.h, the probe header feature libraries include.
 *
 * The header's promises are checked two ways:
 *   - statically, on this program's own ELF file: the .note.stapsdt notes carry
 *     exactly the four ABI v1 probes, with semaphores, 1-byte nops at the probe
 *     sites and argument specs libbpf can read;
 *   - dynamically, by playing the profiler in-process: "attaching" raises the
 *     semaphores (as the kernel does) and replaces each probe's nop with int3;
 *     a SIGTRAP handler decodes the arguments from the note's specs, as
 *     libbpf's USDT support does from BPF, and logs the event. Execution then
 *     simply continues after the int3, which is what the nop would have done.
 *     So the tests see exactly which probes fire, in which order and with
 *     which feature, instance and payload.
 */
#include <errno.h>
#include <link.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <cmocka.h>

#include "fsp.h"
#include "sdt_notes.h"

enum probe_kind { MARK_ENTER, MARK_LEAVE, ANTIMARK_ENTER, ANTIMARK_LEAVE, NKINDS };

static const char *const kind_name[NKINDS] = {"mark_enter", "mark_leave", "antimark_enter",
					      "antimark_leave"};
static const int kind_nargs[NKINDS] = {3, 3, 1, 1};

/* ---- the in-process "profiler" -------------------------------------------------- */

struct site {
	uintptr_t addr; /* run-time address of the probe's nop */
	enum probe_kind kind;
	int nargs;
	struct sdt_arg args[3];
};

struct event {
	enum probe_kind kind;
	uint64_t a[3];
	uint64_t sp; /* stack pointer at the probe: marks are bound to it */
};

#define MAX_SITES 128
#define MAX_EVENTS 64

static struct sdt_file elf;
static uintptr_t load_bias;
static struct site sites[MAX_SITES];
static size_t nsites;
static uint8_t note_byte[SDT_MAX_NOTES]; /* each note's probe byte before we patched it */
static bool traps_armed;

/* Written by the SIGTRAP handler, read by the tests: volatile. */
static volatile struct event events[MAX_EVENTS];
static volatile size_t nevents;
static volatile size_t stray_traps;

static const struct {
	const char *name;
	int greg;
} regs[] = {
	{"rax", REG_RAX}, {"rbx", REG_RBX}, {"rcx", REG_RCX}, {"rdx", REG_RDX},
	{"rsi", REG_RSI}, {"rdi", REG_RDI}, {"rbp", REG_RBP}, {"rsp", REG_RSP},
	{"r8", REG_R8},	  {"r9", REG_R9},   {"r10", REG_R10}, {"r11", REG_R11},
	{"r12", REG_R12}, {"r13", REG_R13}, {"r14", REG_R14}, {"r15", REG_R15},
};

static int greg_of(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(regs) / sizeof(regs[0]); i++)
		if (!strcmp(regs[i].name, name))
			return regs[i].greg;
	return -1;
}

/* What a USDT consumer reads for one argument at the probe. */
static uint64_t read_arg(const struct sdt_arg *a, const greg_t *g)
{
	switch (a->kind) {
	case SDT_ARG_CONST:
		return (uint64_t)a->off;
	case SDT_ARG_REG:
		return (uint64_t)g[greg_of(a->reg)];
	case SDT_ARG_DEREF:
		return *(const uint64_t *)((uintptr_t)g[greg_of(a->reg)] + (uintptr_t)a->off);
	}
	return 0;
}

static void on_sigtrap(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	greg_t *g = uc->uc_mcontext.gregs;
	uintptr_t pc = (uintptr_t)g[REG_RIP] - 1; /* int3 leaves rip past itself */
	size_t i;
	int j;

	(void)sig;
	(void)si;
	for (i = 0; i < nsites; i++) {
		volatile struct event *ev;

		if (sites[i].addr != pc)
			continue;
		if (nevents == MAX_EVENTS)
			return;
		ev = &events[nevents];
		ev->kind = sites[i].kind;
		ev->sp = (uint64_t)g[REG_RSP];
		for (j = 0; j < sites[i].nargs; j++)
			ev->a[j] = read_arg(&sites[i].args[j], g);
		nevents = nevents + 1;
		return; /* resume after the int3 == after the nop */
	}
	stray_traps = stray_traps + 1;
}

static void set_semaphores(unsigned short v)
{
	fsp_mark_enter_semaphore = v;
	fsp_mark_leave_semaphore = v;
	fsp_antimark_enter_semaphore = v;
	fsp_antimark_leave_semaphore = v;
}

static int poke(uintptr_t addr, uint8_t byte)
{
	long psz = sysconf(_SC_PAGESIZE);
	void *page = (void *)(addr & ~(uintptr_t)(psz - 1));

	if (mprotect(page, (size_t)psz, PROT_READ | PROT_WRITE | PROT_EXEC))
		return -1;
	*(volatile uint8_t *)addr = byte;
	return mprotect(page, (size_t)psz, PROT_READ | PROT_EXEC);
}

/* Replace every probe nop with int3 (or back). */
static int arm_traps(bool on)
{
	size_t i;

	for (i = 0; i < nsites; i++)
		if (poke(sites[i].addr, on ? 0xcc : 0x90))
			return -1;
	traps_armed = on;
	return 0;
}

static void clear_events(void)
{
	nevents = 0;
	stray_traps = 0;
}

/* "Attach": raise the semaphores, as the kernel does for an attached uprobe. */
static void attach(void)
{
	clear_events();
	set_semaphores(1);
}

static void detach(void)
{
	set_semaphores(0);
}

static int find_bias(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	*(uintptr_t *)data = info->dlpi_addr; /* the first object is the executable */
	return 1;
}

static int group_setup(void **state)
{
	struct sigaction sa;
	size_t i;
	int k;

	(void)state;
	if (sdt_file_read("/proc/self/exe", &elf))
		return -1;
	dl_iterate_phdr(find_bias, &load_bias);
	for (i = 0; i < elf.n && nsites < MAX_SITES; i++) {
		struct site *s = &sites[nsites];

		note_byte[i] = *(const uint8_t *)(uintptr_t)(elf.notes[i].pc + load_bias);
		if (note_byte[i] != 0x90)
			continue; /* int3 over a longer instruction would crash; test_notes_abi fails */

		if (strcmp(elf.notes[i].provider, "fsp"))
			continue;
		for (k = 0; k < NKINDS; k++)
			if (!strcmp(elf.notes[i].name, kind_name[k]))
				break;
		if (k == NKINDS)
			continue;
		s->kind = (enum probe_kind)k;
		s->addr = (uintptr_t)elf.notes[i].pc + load_bias;
		s->nargs = sdt_args_parse(elf.notes[i].args, s->args, 3);
		if (s->nargs != kind_nargs[k])
			continue; /* test_notes_abi says why */
		nsites++;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sigtrap;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGTRAP, &sa, NULL))
		return -1;
	/* Probes fire only on raised semaphores, so the traps can stay armed. */
	if (arm_traps(true))
		fprintf(stderr, "note: cannot patch probe sites (%s); event tests skip\n",
			strerror(errno));
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	if (traps_armed)
		arm_traps(false);
	detach();
	return 0;
}

static int test_setup(void **state)
{
	(void)state;
	detach();
	clear_events();
	return 0;
}

#define REQUIRE_TRAPS()                                                                            \
	do {                                                                                       \
		if (!traps_armed)                                                                  \
			skip();                                                                    \
	} while (0)

static void expect_event(size_t i, enum probe_kind kind, const char *feature, const char *instance,
			 uint64_t payload)
{
	assert_true(i < nevents);
	assert_string_equal(kind_name[events[i].kind], kind_name[kind]);
	assert_ptr_equal((const char *)(uintptr_t)events[i].a[0], feature);
	if (kind_nargs[kind] == 3) {
		assert_ptr_equal((const char *)(uintptr_t)events[i].a[1], instance);
		assert_int_equal(events[i].a[2], payload);
	}
}

/* ---- payload and label helpers with side effects ---------------------------------- */

static int payload_calls;
static int label_calls;

static uint64_t payload_fn(uint64_t v)
{
	payload_calls++;
	return v;
}

static const char *label_fn(const char *s)
{
	label_calls++;
	return s;
}

/* Globals as arguments: GCC would name these "sym(%rip)" without the header's care. */
uint64_t g_payload = 0x1234;
const char *g_feature = "global-feature";
static const char g_instance[] = "global-instance";

/* ---- (c) the notes in this very binary ----------------------------------------- */

static void test_notes_abi(void **state)
{
	size_t i, seen[NKINDS] = {0};
	uintptr_t sema_addr[NKINDS] = {
		(uintptr_t)&fsp_mark_enter_semaphore,
		(uintptr_t)&fsp_mark_leave_semaphore,
		(uintptr_t)&fsp_antimark_enter_semaphore,
		(uintptr_t)&fsp_antimark_leave_semaphore,
	};
	int k;

	(void)state;
	assert_true(elf.n > 0);
	assert_true(elf.has_stapsdt_base);
	assert_true(elf.has_probes_section);
	for (i = 0; i < elf.n; i++) {
		const struct sdt_note *n = &elf.notes[i];
		struct sdt_arg args[SDT_MAX_ARGS];
		uint8_t byte;
		int nargs;

		/* Only fsp probes in this program, and only the four of ABI v1. */
		assert_string_equal(n->provider, "fsp");
		for (k = 0; k < NKINDS; k++)
			if (!strcmp(n->name, kind_name[k]))
				break;
		if (k == NKINDS)
			fail_msg("unexpected probe fsp:%s", n->name);
		seen[k]++;

		/* Semaphore: present, and it is the variable the header defines. */
		assert_int_not_equal(n->sema, 0);
		assert_ptr_equal((void *)(uintptr_t)(n->sema + load_bias), (void *)sema_addr[k]);

		/* Arguments: the right count, 8 bytes each, forms libbpf reads. */
		if (strstr(n->args, "(%rip)"))
			fail_msg("fsp:%s has a %%rip-relative argument: %s", n->name, n->args);
		nargs = sdt_args_parse(n->args, args, SDT_MAX_ARGS);
		if (nargs < 0)
			fail_msg("fsp:%s: unreadable argument spec \"%s\"", n->name, n->args);
		assert_int_equal(nargs, kind_nargs[k]);
		for (int j = 0; j < nargs; j++) {
			assert_int_equal(args[j].size, 8);
			if (args[j].kind != SDT_ARG_CONST)
				assert_true(greg_of(args[j].reg) >= 0);
		}

		/* The probe site: a 1-byte nop, as found before our traps went in. */
		if (note_byte[i] != 0x90)
			fail_msg("fsp:%s at %#lx: byte %#x, not a 1-byte nop (0x90)", n->name,
				 (unsigned long)n->pc, note_byte[i]);
		if (traps_armed) {
			byte = *(const uint8_t *)(uintptr_t)(n->pc + load_bias);
			assert_int_equal(byte, 0xcc);
		}
	}
	for (k = 0; k < NKINDS; k++)
		if (!seen[k])
			fail_msg("no fsp:%s probe found", kind_name[k]);
	assert_int_equal(nsites, elf.n);
}

static void test_abi_version_and_here(void **state)
{
	char want[64];
	const char *here = FSP_HERE;
	int line = __LINE__ - 1;

	(void)state;
	assert_int_equal(FSP_ABI_VERSION, 1);
	snprintf(want, sizeof(want), "test_fsp_header.c:%d", line);
	assert_string_equal(here, want);
}

/* ---- (a) nobody attached ------------------------------------------------------- */

static void scoped_body(int *n)
{
	FSP_SCOPED_MARK("scoped", label_fn(FSP_HERE), payload_fn(1));
	FSP_SCOPED_ANTIMARK(label_fn("scoped"));
	(*n)++;
}

static void test_detached_evaluates_nothing(void **state)
{
	int n = 0;

	(void)state;
	payload_calls = label_calls = 0;
	assert_false(FSP_ENABLED());
	FSP_MARK_ENTER(label_fn("f"), label_fn(FSP_HERE), payload_fn(7));
	FSP_ANTIMARK_ENTER(label_fn("f"));
	FSP_ANTIMARK_LEAVE(label_fn("f"));
	FSP_MARK_LEAVE(label_fn("f"), label_fn(FSP_HERE), payload_fn(7));
	scoped_body(&n);
	assert_int_equal(n, 1);
	assert_int_equal(payload_calls, 0);
	assert_int_equal(label_calls, 0);
	assert_int_equal(nevents, 0); /* armed traps, and still nothing fired */
	assert_int_equal(stray_traps, 0);
}

/* ---- (b) attached ------------------------------------------------------------------ */

static void test_attached_fires_once(void **state)
{
	static const char feat[] = "feat";
	const char *inst = FSP_HERE;

	(void)state;
	REQUIRE_TRAPS();
	payload_calls = 0;
	attach();
	assert_true(FSP_ENABLED());
	FSP_MARK_ENTER(feat, inst, payload_fn(42));
	assert_int_equal(payload_calls, 1);
	FSP_ANTIMARK_ENTER(feat);
	FSP_ANTIMARK_LEAVE(feat);
	FSP_MARK_LEAVE(feat, inst, payload_fn(43));
	assert_int_equal(payload_calls, 2);
	detach();
	assert_false(FSP_ENABLED());

	assert_int_equal(nevents, 4);
	expect_event(0, MARK_ENTER, feat, inst, 42);
	expect_event(1, ANTIMARK_ENTER, feat, NULL, 0);
	expect_event(2, ANTIMARK_LEAVE, feat, NULL, 0);
	expect_event(3, MARK_LEAVE, feat, inst, 43);
	assert_int_equal(stray_traps, 0);
}

static void test_attached_global_and_null_args(void **state)
{
	(void)state;
	REQUIRE_TRAPS();
	attach();
	FSP_MARK_ENTER(g_feature, g_instance, g_payload);
	FSP_MARK_LEAVE(g_feature, NULL, 0);
	FSP_ANTIMARK_ENTER(g_feature);
	FSP_ANTIMARK_LEAVE(g_feature);
	detach();
	assert_int_equal(nevents, 4);
	expect_event(0, MARK_ENTER, g_feature, g_instance, 0x1234);
	expect_event(1, MARK_LEAVE, g_feature, NULL, 0);
	expect_event(2, ANTIMARK_ENTER, g_feature, NULL, 0);
	expect_event(3, ANTIMARK_LEAVE, g_feature, NULL, 0);
	assert_string_equal((const char *)(uintptr_t)events[0].a[0], "global-feature");
	assert_string_equal((const char *)(uintptr_t)events[0].a[1], "global-instance");
}

/* Scoped marks: one enter and one leave, with the same arguments, per exit path. */

static const char scope_feat[] = "scope";
static const char scope_inst[] = "scope-inst";

static __attribute__((noinline)) int exit_by_return(int early)
{
	FSP_SCOPED_MARK(scope_feat, scope_inst, payload_fn(1));
	if (early)
		return 1;
	return 2;
}

static __attribute__((noinline)) int exit_by_goto(int jump)
{
	int r = 0;

	{
		FSP_SCOPED_MARK(scope_feat, scope_inst, payload_fn(2));
		if (jump)
			goto out;
		r = 1;
	}
out:
	return r;
}

static __attribute__((noinline)) int exit_by_break_continue(void)
{
	int i, n = 0;

	for (i = 0; i < 5; i++) {
		FSP_SCOPED_MARK(scope_feat, scope_inst, payload_fn(3));
		if (i == 1)
			continue;
		if (i == 3)
			break;
		n++;
	}
	return n;
}

static void expect_pairs(size_t pairs, uint64_t payload)
{
	size_t i;

	assert_int_equal(nevents, 2 * pairs);
	for (i = 0; i < pairs; i++) {
		expect_event(2 * i, MARK_ENTER, scope_feat, scope_inst, payload);
		expect_event(2 * i + 1, MARK_LEAVE, scope_feat, scope_inst, payload);
	}
}

static void test_scoped_mark_every_exit(void **state)
{
	(void)state;
	REQUIRE_TRAPS();

	payload_calls = 0;
	attach();
	assert_int_equal(exit_by_return(1), 1);
	detach();
	expect_pairs(1, 1);

	attach();
	assert_int_equal(exit_by_return(0), 2);
	detach();
	expect_pairs(1, 1);

	attach();
	assert_int_equal(exit_by_goto(1), 0);
	detach();
	expect_pairs(1, 2);

	attach();
	assert_int_equal(exit_by_goto(0), 1);
	detach();
	expect_pairs(1, 2);

	attach();
	assert_int_equal(exit_by_break_continue(), 2); /* i = 0, 2 count; 1 continues; 3 breaks */
	detach();
	expect_pairs(4, 3);

	assert_int_equal(payload_calls, 8); /* once per enter, never at leave */
	assert_int_equal(stray_traps, 0);
}

static __attribute__((noinline)) void two_in_one_block(void)
{
	FSP_SCOPED_MARK("outer", "o", 1);
	FSP_SCOPED_MARK("inner", "i", 2);
	FSP_SCOPED_ANTIMARK("outer");
	FSP_SCOPED_ANTIMARK("inner");
}

static void test_scoped_twice_in_block(void **state)
{
	const char *ev[8];
	size_t i;

	(void)state;
	REQUIRE_TRAPS();
	attach();
	two_in_one_block();
	detach();
	assert_int_equal(nevents, 8);
	/* Entered in order, left in reverse order. */
	for (i = 0; i < 8; i++)
		ev[i] = kind_name[events[i].kind];
	assert_string_equal(ev[0], "mark_enter");
	assert_string_equal((const char *)(uintptr_t)events[0].a[0], "outer");
	assert_string_equal(ev[1], "mark_enter");
	assert_string_equal((const char *)(uintptr_t)events[1].a[0], "inner");
	assert_string_equal(ev[2], "antimark_enter");
	assert_string_equal((const char *)(uintptr_t)events[2].a[0], "outer");
	assert_string_equal(ev[3], "antimark_enter");
	assert_string_equal((const char *)(uintptr_t)events[3].a[0], "inner");
	assert_string_equal(ev[4], "antimark_leave");
	assert_string_equal((const char *)(uintptr_t)events[4].a[0], "inner");
	assert_string_equal(ev[5], "antimark_leave");
	assert_string_equal((const char *)(uintptr_t)events[5].a[0], "outer");
	assert_string_equal(ev[6], "mark_leave");
	assert_string_equal((const char *)(uintptr_t)events[6].a[0], "inner");
	assert_int_equal(events[6].a[2], 2);
	assert_string_equal(ev[7], "mark_leave");
	assert_string_equal((const char *)(uintptr_t)events[7].a[0], "outer");
	assert_int_equal(events[7].a[2], 1);
	/*
	 * The profiler binds a mark to the stack pointer at its enter and drops it
	 * once the thread's stack pointer is above that. So every probe of a
	 * scoped guard must fire in the frame of the function declaring it, not
	 * in a deeper helper that returns right away.
	 */
	for (i = 1; i < 8; i++)
		assert_int_equal(events[i].sp, events[0].sp);
}

/* A profiler attaching mid-scope sees no leave for the enter it never saw. */
static __attribute__((noinline)) void attach_inside(void)
{
	FSP_SCOPED_MARK(scope_feat, scope_inst, payload_fn(5));
	attach();
}

static void test_scoped_attach_mid_scope(void **state)
{
	(void)state;
	REQUIRE_TRAPS();
	payload_calls = 0;
	attach_inside();
	detach();
	assert_int_equal(nevents, 0);
	assert_int_equal(payload_calls, 0);
}

/* A user callback run under an antimark, as a feature library would. */
static int user_callback(int x)
{
	return x * 2;
}

static __attribute__((noinline)) int feature_with_callback(int (*cb)(int), int x)
{
	int r;

	FSP_SCOPED_MARK("map", "feature_with_callback", (uint64_t)x);
	FSP_ANTIMARK_ENTER("map");
	r = cb(x);
	FSP_ANTIMARK_LEAVE("map");
	return r + 1;
}

static void test_antimark_around_callback(void **state)
{
	(void)state;
	REQUIRE_TRAPS();
	attach();
	assert_int_equal(feature_with_callback(user_callback, 20), 41);
	detach();
	assert_int_equal(nevents, 4);
	assert_string_equal(kind_name[events[0].kind], "mark_enter");
	assert_int_equal(events[0].a[2], 20);
	assert_string_equal(kind_name[events[1].kind], "antimark_enter");
	assert_string_equal(kind_name[events[2].kind], "antimark_leave");
	assert_string_equal(kind_name[events[3].kind], "mark_leave");
	assert_string_equal((const char *)(uintptr_t)events[3].a[1], "feature_with_callback");
	/* The scoped enter fired in feature_with_callback's frame, like the antimark. */
	assert_int_equal(events[0].sp, events[1].sp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_notes_abi, test_setup),
		cmocka_unit_test_setup(test_abi_version_and_here, test_setup),
		cmocka_unit_test_setup(test_detached_evaluates_nothing, test_setup),
		cmocka_unit_test_setup(test_attached_fires_once, test_setup),
		cmocka_unit_test_setup(test_attached_global_and_null_args, test_setup),
		cmocka_unit_test_setup(test_scoped_mark_every_exit, test_setup),
		cmocka_unit_test_setup(test_scoped_twice_in_block, test_setup),
		cmocka_unit_test_setup(test_scoped_attach_mid_scope, test_setup),
		cmocka_unit_test_setup(test_antimark_around_callback, test_setup),
	};

	return cmocka_run_group_tests_name("fsp_header", tests, group_setup, group_teardown);
}
