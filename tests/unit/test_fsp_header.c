// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Tests for usdt/fsp.h, the probe header feature libraries include. This file
 * is compiled twice: as is (probe ABI v2, the default) and with FSP_ABI_V1
 * (test_fsp_header_v1.c), and every test below runs against both; the tests of
 * ABI v2's mark stacks are at the end.
 *
 * The header's promises are checked two ways:
 *   - statically, on this program's own ELF file: the .note.stapsdt notes carry
 *     exactly the four ABI v1 probes (and, with ABI v2, the fsp:v2 probe of
 *     its record), with semaphores, 1-byte nops at the probe sites and argument
 *     specs libbpf can read;
 *   - dynamically, by playing the profiler in-process: "attaching" raises the
 *     semaphores (as the kernel does) and replaces each probe's nop with int3;
 *     a SIGTRAP handler decodes the arguments from the note's specs, as
 *     libbpf's USDT support does from BPF, and logs the event. Execution then
 *     simply continues after the int3, which is what the nop would have done.
 *     So the tests see exactly which probes fire, in which order and with
 *     which feature, instance and payload. With ABI v2 these are the v1 probes
 *     its marks still fire for exact counts (their shared semaphore raised).
 *   - with ABI v2, by raising the record's fsp:v2 semaphore, as the kernel
 *     does for fsp-bpf, and reading the thread's mark stack (fsp__v2_self)
 *     after each mark, as fsp-bpf's sampler does.
 */
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <cmocka.h>

#include "fsp.h"
#include "sdt_notes.h"

#ifndef FSP_TEST_GROUP
#define FSP_TEST_GROUP "fsp_header"
#endif

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

/* Volatile stores: the header reads the semaphores through other lvalues
 * (ABI v2: one 32-bit load of the record's first word). */
#define SET_SEMAPHORE(var, v) (*(volatile unsigned short *)&(var) = (v))

static void set_semaphores(unsigned short v)
{
	SET_SEMAPHORE(fsp_mark_enter_semaphore, v);
	SET_SEMAPHORE(fsp_mark_leave_semaphore, v);
	SET_SEMAPHORE(fsp_antimark_enter_semaphore, v);
	SET_SEMAPHORE(fsp_antimark_leave_semaphore, v);
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
#ifndef FSP_ABI_V1
	SET_SEMAPHORE(fsp_v2_semaphore, 0);
#endif
}

static int find_bias(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	*(uintptr_t *)data = info->dlpi_addr; /* the first object is the executable */
	return 1;
}

/*
 * Is a real profiler attached to this program (a system-wide fsp-bpf finds it
 * like any process with fsp probes)? Its uprobes own the probe sites (an int3
 * the kernel handles) and its semaphores are raised: the tests below would see
 * it instead of themselves.
 */
static bool foreign_profiler(void)
{
	for (size_t i = 0; i < elf.n; i++)
		if (*(const volatile uint8_t *)(uintptr_t)(elf.notes[i].pc + load_bias) == 0xcc)
			return true;
	return FSP_ENABLED() || *(volatile unsigned short *)&fsp_mark_leave_semaphore ||
	       *(volatile unsigned short *)&fsp_antimark_enter_semaphore ||
	       *(volatile unsigned short *)&fsp_antimark_leave_semaphore;
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
	for (i = 0; foreign_profiler(); i++) {
		if (i == 0)
			fprintf(stderr,
				"note: another profiler is attached to this program "
				"(a system-wide fsp-bpf?); waiting up to 120 s for it to go\n");
		if (i == 1200) {
			fprintf(stderr, "error: a profiler stayed attached to this program: its "
					"probes cannot be tested now\n");
			return -1;
		}
		usleep(100000);
	}
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

#ifdef FSP_ABI_V1
static bool check_v2_note(const struct sdt_note *n, size_t i)
{
	(void)i;
	if (!strcmp(n->name, "v2"))
		fail_msg("ABI v1 build with an fsp:v2 probe");
	return false;
}
#else
static size_t v2_notes;

/*
 * fsp:v2 (one per translation unit's constructor): its semaphore is the
 * record's first half-word, its arguments the record's address and the TLS
 * pointer's offset (signed), its site a 1-byte nop.
 */
static bool check_v2_note(const struct sdt_note *n, size_t i)
{
	struct sdt_arg args[SDT_MAX_ARGS];

	if (strcmp(n->name, "v2"))
		return false;
	v2_notes++;
	assert_ptr_equal((void *)(uintptr_t)(n->sema + load_bias), (void *)&fsp__v2_rec);
	assert_ptr_equal((void *)&fsp_v2_semaphore, (void *)&fsp__v2_rec);
	if (strstr(n->args, "(%rip)"))
		fail_msg("fsp:v2 has a %%rip-relative argument: %s", n->args);
	assert_int_equal(sdt_args_parse(n->args, args, SDT_MAX_ARGS), 2);
	assert_int_equal(args[0].size, 8);
	assert_int_equal(args[1].size, -8);
	if (note_byte[i] != 0x90)
		fail_msg("fsp:v2 at %#lx: byte %#x, not a 1-byte nop", (unsigned long)n->pc,
			 note_byte[i]);
	return true;
}
#endif

static void test_notes_abi(void **state)
{
	size_t i, seen[NKINDS] = {0};
	uintptr_t sema_addr[NKINDS] = {
		(uintptr_t)&fsp_mark_enter_semaphore,
		(uintptr_t)&fsp_mark_leave_semaphore,
		(uintptr_t)&fsp_antimark_enter_semaphore,
		(uintptr_t)&fsp_antimark_leave_semaphore,
	};
	size_t v1_notes = 0;
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

		/* Only fsp probes in this program, and only the four of ABI v1
		 * (with ABI v2, also its record's fsp:v2). */
		assert_string_equal(n->provider, "fsp");
		if (check_v2_note(n, i))
			continue;
		for (k = 0; k < NKINDS; k++)
			if (!strcmp(n->name, kind_name[k]))
				break;
		if (k == NKINDS)
			fail_msg("unexpected probe fsp:%s", n->name);
		seen[k]++;
		v1_notes++;

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
	assert_int_equal(nsites, v1_notes);
#ifndef FSP_ABI_V1
	/* The four v1 probes share one semaphore: the record's second half-word. */
	for (k = 0; k < NKINDS; k++)
		assert_ptr_equal((void *)sema_addr[k], (char *)&fsp__v2_rec + 2);
	assert_true(v2_notes > 0);
#endif
}

static void test_abi_version_and_here(void **state)
{
	char want[64];
	const char *here = FSP_HERE;
	int line = __LINE__ - 1;

	(void)state;
#ifdef FSP_ABI_V1
	assert_int_equal(FSP_ABI_VERSION, 1);
#else
	assert_int_equal(FSP_ABI_VERSION, 2);
#endif
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

#ifndef FSP_ABI_V1
/* ---- (d) ABI v2: the thread's mark stack --------------------------------------- */

/* "Attach" a stack reader: raise fsp:v2's semaphore, as the kernel does for fsp-bpf. */
static void attach_v2(unsigned short v)
{
	SET_SEMAPHORE(fsp_v2_semaphore, v);
}

/* A new session starts: the next push resets the thread's stack. */
static void new_session(void)
{
	(*(volatile uint32_t *)&fsp__v2_rec.gen)++;
}

static struct fsp_v2_stack *stack(void)
{
	return fsp__v2_self;
}

static uint64_t frame_sp(const struct fsp_v2_frame *f)
{
	return f->sp_kind & ~(uint64_t)7;
}

static void test_v2_record(void **state)
{
	char *tp;

	(void)state;
	assert_int_equal(sizeof(struct fsp_v2_record), 64);
	assert_int_equal(sizeof(struct fsp_v2_frame), 40); /* with its call number */
	assert_int_equal(offsetof(struct fsp_v2_stack, f), 64);
	assert_int_equal(offsetof(struct fsp_v2_record, tp_offset), 16);
	assert_int_equal(fsp__v2_rec.magic, FSP_V2_RECORD_MAGIC);
	assert_int_equal(fsp__v2_rec.version, 2);
	assert_int_equal(fsp__v2_rec.depth, FSP_V2_DEPTH);
	assert_int_equal(fsp__v2_rec.frame_size, sizeof(struct fsp_v2_frame));
	assert_int_equal(fsp__v2_rec.header_size, offsetof(struct fsp_v2_stack, f));
	assert_int_equal((uintptr_t)&fsp__v2_rec % 64, 0);
	/* The constructor ran: the TLS pointer's offset, as a reader computes it
	 * from the thread pointer (fsbase), and the key releasing stacks. */
	assert_int_equal(fsp__v2_rec.ready, 1);
	__asm__("mov %%fs:0, %0" : "=r"(tp));
	assert_int_equal(fsp__v2_rec.tp_offset, (char *)&fsp__v2_self - tp);
	assert_true(fsp__v2_rec.tp_offset < 0); /* static TLS lies below the TCB */
	assert_int_equal(fsp__v2_rec.key_state, 1);
	/* The semaphores' symbols are the record's two half-words. */
	assert_ptr_equal(&fsp_v2_semaphore, &fsp__v2_rec.sema_v2);
	assert_ptr_equal(&fsp_mark_enter_semaphore, &fsp__v2_rec.sema_v1);
}

static void *no_stack_thread(void *arg)
{
	(void)arg;
	FSP_MARK_ENTER("f", "i", 1);
	FSP_MARK_LEAVE("f", "i", 1);
	return stack();
}

/* Nobody attached: a thread's marks allocate nothing. */
static void test_v2_detached_no_stack(void **state)
{
	pthread_t th;
	void *st = (void *)1;

	(void)state;
	assert_int_equal(pthread_create(&th, NULL, no_stack_thread, NULL), 0);
	assert_int_equal(pthread_join(th, &st), 0);
	assert_null(st);
}

static const char v2_feat[] = "v2feat";
static const char v2_inst[] = "v2inst";

static __attribute__((noinline)) void push_pop_body(void)
{
	struct fsp_v2_stack *s;
	uint64_t sp;

	FSP_MARK_ENTER(v2_feat, v2_inst, payload_fn(77));
	sp = fsp__v2_sp();
	s = stack();
	assert_non_null(s);
	assert_int_equal(s->magic, FSP_V2_STACK_MAGIC);
	assert_int_equal(s->tid, (uint32_t)syscall(SYS_gettid));
	assert_int_equal(s->depth, 1);
	assert_ptr_equal((void *)(uintptr_t)s->f[0].feature, v2_feat);
	assert_ptr_equal((void *)(uintptr_t)s->f[0].instance, v2_inst);
	assert_int_equal(s->f[0].payload, 77);
	assert_int_equal(s->f[0].sp_kind & 1, 0);
	/* Bound to this function's frame: its stack pointer at the enter. */
	assert_int_equal(frame_sp(&s->f[0]), sp);
	FSP_ANTIMARK_ENTER(v2_feat);
	assert_int_equal(s->depth, 2);
	assert_ptr_equal((void *)(uintptr_t)s->f[1].feature, v2_feat);
	assert_int_equal(s->f[1].instance, 0);
	assert_int_equal(s->f[1].sp_kind & 1, 1);
	FSP_ANTIMARK_LEAVE(v2_feat);
	assert_int_equal(s->depth, 1);
	FSP_MARK_LEAVE(v2_feat, v2_inst, 0);
	assert_int_equal(s->depth, 0);
}

static void test_v2_push_pop(void **state)
{
	(void)state;
	payload_calls = 0;
	attach_v2(1);
	assert_true(FSP_ENABLED());
	push_pop_body();
	attach_v2(0);
	assert_false(FSP_ENABLED());
	assert_int_equal(payload_calls, 1);
	assert_int_equal(stack()->unmatched, 0);
	assert_int_equal(stack()->stale, 0);
	/* No trap fired: only the stack reader is attached. */
	assert_int_equal(nevents, 0);
	assert_int_equal(stray_traps, 0);
}

/* Independent features may leave out of order; a leave matches by name too. */
static __attribute__((noinline)) void out_of_order_body(void)
{
	struct fsp_v2_stack *s;
	char same_name[sizeof(v2_feat)];

	memcpy(same_name, v2_feat, sizeof(v2_feat));
	FSP_MARK_ENTER("alpha", "a", 1);
	FSP_MARK_ENTER(v2_feat, "b", 2);
	FSP_MARK_ENTER("gamma", "c", 3);
	s = stack();
	assert_int_equal(s->depth, 3);
	/* Call numbers: one more at each enter, kept by the frame. */
	assert_int_equal(s->f[1].call, s->f[0].call + 1);
	assert_int_equal(s->f[2].call, s->f[0].call + 2);
	assert_int_equal(s->calls, s->f[2].call);
	FSP_MARK_LEAVE("alpha", "a", 1); /* the bottom frame */
	assert_int_equal(s->depth, 2);
	assert_string_equal((const char *)(uintptr_t)s->f[0].feature, v2_feat);
	assert_string_equal((const char *)(uintptr_t)s->f[1].feature, "gamma");
	assert_int_equal(s->f[1].payload, 3);
	/* a frame moved down keeps its call number; the next enter takes a new one */
	assert_int_equal(s->f[1].call, s->calls);
	FSP_MARK_ENTER("delta", "d", 4);
	assert_int_equal(s->f[2].call, s->f[1].call + 1);
	FSP_MARK_LEAVE("delta", "d", 4);
	FSP_MARK_LEAVE(same_name, "b", 2); /* another pointer, the same name */
	assert_int_equal(s->depth, 1);
	assert_string_equal((const char *)(uintptr_t)s->f[0].feature, "gamma");
	FSP_ANTIMARK_LEAVE("gamma"); /* an antimark leave never matches a mark */
	assert_int_equal(s->depth, 1);
	/* Matched nothing: counted (as early, made where the stack was reset:
	 * test_v2_early_leaves has the difference). */
	assert_int_equal(s->unmatched + s->early, 1);
	FSP_MARK_LEAVE("gamma", "c", 3);
	assert_int_equal(s->depth, 0);
	FSP_MARK_LEAVE("nothing", NULL, 0);
	assert_int_equal(s->unmatched + s->early, 2);
}

static void test_v2_out_of_order(void **state)
{
	(void)state;
	attach_v2(1);
	new_session();
	out_of_order_body();
	attach_v2(0);
}

/* A leave of a mark never entered, in a function of its own. */
static __attribute__((noinline)) void leave_ghost(void)
{
	FSP_MARK_LEAVE("ghost", NULL, 0);
	__asm__ __volatile__("" ::: "memory"); /* not a tail call */
}

/* The stack is reset at this function's first push: a leave that matches
 * nothing here, at or above that push, may be of a mark entered before
 * (early); one below it, in a callee, matches nothing (unmatched). */
static __attribute__((noinline)) void early_body(void)
{
	struct fsp_v2_stack *s;

	FSP_MARK_ENTER("inner", NULL, 0);
	s = stack();
	assert_int_equal(s->early, 0);
	FSP_MARK_LEAVE("inner", NULL, 0);
	leave_ghost();
	assert_int_equal(s->unmatched, 1);
	assert_int_equal(s->early, 0);
	FSP_MARK_LEAVE("outer", NULL, 0);
	assert_int_equal(s->unmatched, 1);
	assert_int_equal(s->early, 1);
	FSP_MARK_LEAVE("outer", NULL, 0); /* another one entered before */
	assert_int_equal(s->early, 2);
	leave_ghost();
	assert_int_equal(s->unmatched, 2);
	assert_int_equal(s->early, 2);
}

/* Leaves of marks entered before the stack's reset (a profiler attached in
 * mid-feature) are told from leaves below every mark the stack has seen. */
static void test_v2_early_leaves(void **state)
{
	(void)state;
	attach_v2(1);
	new_session();
	early_body();
	/* A new session starts the count afresh. */
	new_session();
	FSP_MARK_ENTER("inner", NULL, 0);
	assert_int_equal(stack()->early, 0);
	assert_int_equal(stack()->unmatched, 0);
	FSP_MARK_LEAVE("inner", NULL, 0);
	attach_v2(0);
}

/* Enters a mark in this frame and returns without leaving it. */
static __attribute__((noinline)) uint64_t leaky_v2(void)
{
	FSP_MARK_ENTER("leaky", NULL, 0);
	__asm__ __volatile__("" ::: "memory");
	return frame_sp(&stack()->f[stack()->depth - 1]);
}

static jmp_buf v2_jb;

static __attribute__((noinline, noreturn)) void jumper_v2(void)
{
	volatile char pad[256];

	pad[0] = 1;
	FSP_MARK_ENTER("jumped", NULL, pad[0]);
	longjmp(v2_jb, 1);
}

/* Frame-bound: a frame whose function returned or was unwound is dead at once
 * for a reader (its sp is below the thread's), and the next push drops it. */
static __attribute__((noinline)) void frame_bound_body(void)
{
	struct fsp_v2_stack *s;
	uint64_t dead_sp, sp = fsp__v2_sp();

	dead_sp = leaky_v2();
	s = stack();
	assert_int_equal(s->depth, 1);
	assert_true(dead_sp < sp);
	assert_true(fsp__v2_dead(s->f[0].sp_kind, sp));
	FSP_MARK_ENTER("caller", NULL, 0);
	assert_int_equal(s->depth, 1);
	assert_string_equal((const char *)(uintptr_t)s->f[0].feature, "caller");
	assert_int_equal(s->stale, 1);
	if (!setjmp(v2_jb))
		jumper_v2();
	assert_int_equal(s->depth, 2);
	FSP_MARK_LEAVE("caller", NULL, 0); /* prunes "jumped", pops "caller" */
	assert_int_equal(s->depth, 0);
	assert_int_equal(s->stale, 2);
	assert_int_equal(s->unmatched, 0);
}

static void test_v2_frame_bound(void **state)
{
	(void)state;
	attach_v2(1);
	new_session();
	frame_bound_body();
	attach_v2(0);
}

/* Enters beyond FSP_V2_DEPTH are counted and absorbed by their leaves. */
static __attribute__((noinline)) void overflow_body(void)
{
	struct fsp_v2_stack *s;
	int i;

	for (i = 0; i < FSP_V2_DEPTH + 6; i++)
		FSP_MARK_ENTER("deep", NULL, (uint64_t)i);
	s = stack();
	assert_int_equal(s->depth, FSP_V2_DEPTH);
	assert_int_equal(s->overflow, 6);
	assert_int_equal(s->overflows, 6);
	assert_int_equal(s->f[FSP_V2_DEPTH - 1].payload, FSP_V2_DEPTH - 1);
	for (i = 0; i < FSP_V2_DEPTH + 6; i++)
		FSP_MARK_LEAVE("deep", NULL, 0);
	assert_int_equal(s->depth, 0);
	assert_int_equal(s->overflow, 0);
	assert_int_equal(s->unmatched, 0);
}

static void test_v2_overflow(void **state)
{
	(void)state;
	attach_v2(1);
	new_session();
	overflow_body();
	attach_v2(0);
}

/*
 * A mark left while nobody was attached leaves its frame behind; the next
 * session (a new gen in the record, written by the profiler that attaches)
 * starts from an empty stack and zero counters.
 */
static __attribute__((noinline)) void session_body(bool bump)
{
	FSP_MARK_ENTER("sess", NULL, 0);
	attach_v2(0);
	FSP_MARK_LEAVE("sess", NULL, 0); /* not seen */
	if (bump)
		new_session();
	attach_v2(1);
	FSP_MARK_ENTER("sess", NULL, 1);
	assert_int_equal(stack()->depth, bump ? 1 : 2);
	FSP_MARK_LEAVE("sess", NULL, 1);
}

static void test_v2_new_session(void **state)
{
	(void)state;
	attach_v2(1);
	new_session();
	session_body(false);
	assert_int_equal(stack()->depth, 1); /* the frame from before */
	stack()->unmatched = 5;
	session_body(true);
	assert_int_equal(stack()->depth, 0);
	assert_int_equal(stack()->unmatched, 0);
	assert_int_equal(stack()->gen, fsp__v2_rec.gen);
	attach_v2(0);
}

/* A thread's stack is its own, and is unmapped when the thread exits. */
static void *stack_thread(void *arg)
{
	(void)arg;
	FSP_MARK_ENTER("thread", NULL, 0);
	assert_int_equal(stack()->depth, 1);
	FSP_MARK_LEAVE("thread", NULL, 0);
	return stack();
}

static void test_v2_thread_stacks(void **state)
{
	long psz = sysconf(_SC_PAGESIZE);
	pthread_t th;
	void *st = NULL;

	(void)state;
	attach_v2(1);
	FSP_MARK_ENTER("main", NULL, 0);
	assert_int_equal(pthread_create(&th, NULL, stack_thread, NULL), 0);
	assert_int_equal(pthread_join(th, &st), 0);
	assert_non_null(st);
	assert_ptr_not_equal(st, stack());
	assert_int_equal(stack()->depth, 1);
	FSP_MARK_LEAVE("main", NULL, 0);
	attach_v2(0);
	/* msync fails with ENOMEM on memory that is not mapped. */
	assert_int_equal(msync((void *)((uintptr_t)st & ~(uintptr_t)(psz - 1)), 1, MS_ASYNC), -1);
	assert_int_equal(errno, ENOMEM);
}

/* fork: the child's thread has the forking thread's marks, its stack its id. */
static void test_v2_fork(void **state)
{
	int status = -1;
	pid_t pid;

	(void)state;
	attach_v2(1);
	new_session();
	FSP_MARK_ENTER("forked", NULL, 0);
	pid = fork();
	if (pid == 0) {
		struct fsp_v2_stack *s = stack();
		int ok = s && s->depth == 1 && s->tid == (uint32_t)getpid() &&
			 !strcmp((const char *)(uintptr_t)s->f[0].feature, "forked");

		FSP_MARK_LEAVE("forked", NULL, 0);
		_exit(ok && s->depth == 0 ? 0 : 1);
	}
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(stack()->tid, (uint32_t)syscall(SYS_gettid));
	FSP_MARK_LEAVE("forked", NULL, 0);
	assert_int_equal(stack()->depth, 0);
	attach_v2(0);
}

/* What a signal handler does while the code it interrupted is inside a mark. */
static volatile int handler_depth;

static void marking_handler(int sig)
{
	(void)sig;
	FSP_MARK_ENTER("handler", NULL, 0);
	handler_depth = (int)stack()->depth;
	FSP_MARK_LEAVE("handler", NULL, 0);
}

static __attribute__((noinline)) void handler_body(void)
{
	struct sigaction sa, old;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = marking_handler;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, &old);
	FSP_MARK_ENTER("interrupted", NULL, 0);
	raise(SIGUSR1);
	assert_int_equal(handler_depth, 2); /* nested on top of the interrupted mark */
	assert_int_equal(stack()->depth, 1);
	assert_string_equal((const char *)(uintptr_t)stack()->f[0].feature, "interrupted");
	FSP_MARK_LEAVE("interrupted", NULL, 0);
	sigaction(SIGUSR1, &old, NULL);
}

/* A mark made while an operation on the stack is in progress (busy_sp set:
 * a handler that interrupted a push) is skipped, enter and leave alike. */
static __attribute__((noinline)) void nested_marks(void)
{
	FSP_MARK_ENTER("nested", NULL, 0);
	FSP_MARK_LEAVE("nested", NULL, 0);
}

static void test_v2_signal_handlers(void **state)
{
	struct fsp_v2_stack *s;

	(void)state;
	attach_v2(1);
	new_session();
	handler_body();
	s = stack();
	assert_int_equal(s->depth, 0);
	assert_int_equal(s->unmatched, 0);
	/* An operation in progress in this frame; the "handler" runs below it. */
	s->busy_sp = fsp__v2_sp();
	nested_marks();
	assert_int_equal(s->depth, 0);
	assert_int_equal(s->skipped, 2);
	assert_int_equal(s->busy_sp, fsp__v2_sp());
	/* An operation abandoned deeper down (the handler longjmp'ed out of it):
	 * forgotten by the next mark at or above it. */
	s->busy_sp = fsp__v2_sp() - 4096;
	FSP_MARK_ENTER("after", NULL, 0);
	assert_int_equal(s->depth, 1);
	assert_int_equal(s->busy_sp, 0);
	FSP_MARK_LEAVE("after", NULL, 0);
	assert_int_equal(s->depth, 0);
	assert_int_equal(s->skipped, 2);
	attach_v2(0);
}

/*
 * A handler on an alternate signal stack mapped just above the thread's own
 * stack: the interrupted mark's stack pointer is below the handler's, within
 * the window, yet it is live. The handler's mark must not drop it.
 */
#define ALT_REGION (2UL << 20)

/* What the thread saw (cmocka asserts in the main thread only). */
struct alt_result {
	int altstack_err;
	int handler_depth; /* 2: nested on the interrupted mark */
	uint32_t depth_after; /* 1: the interrupted mark is still there */
	const char *top;
	uint64_t stale, unmatched; /* after its leave: 0, 0 */
};

static void *altstack_thread(void *arg)
{
	static struct alt_result r;
	char *region = arg;
	stack_t ss = {.ss_sp = region + ALT_REGION / 2, .ss_size = ALT_REGION / 2};
	struct fsp_v2_stack *s;

	r.altstack_err = sigaltstack(&ss, NULL);
	FSP_MARK_ENTER("interrupted", NULL, 0);
	s = stack();
	handler_depth = 0;
	raise(SIGUSR1);
	r.handler_depth = handler_depth;
	r.depth_after = s->depth;
	r.top = (const char *)(uintptr_t)s->f[0].feature;
	FSP_MARK_LEAVE("interrupted", NULL, 0);
	r.stale = s->stale;
	r.unmatched = s->unmatched;
	ss.ss_flags = SS_DISABLE;
	sigaltstack(&ss, NULL);
	return &r;
}

static void test_v2_altstack_above(void **state)
{
	struct sigaction sa, old;
	struct alt_result *r = NULL;
	pthread_attr_t attr;
	pthread_t th;
	char *region;

	(void)state;
	region = mmap(NULL, ALT_REGION, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(region != MAP_FAILED);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = marking_handler;
	sa.sa_flags = SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, &old);
	attach_v2(1);
	new_session();
	/* The thread's stack: the lower half; its alternate stack: the upper. */
	pthread_attr_init(&attr);
	assert_int_equal(pthread_attr_setstack(&attr, region, ALT_REGION / 2), 0);
	assert_int_equal(pthread_create(&th, &attr, altstack_thread, region), 0);
	assert_int_equal(pthread_join(th, (void **)&r), 0);
	attach_v2(0);
	sigaction(SIGUSR1, &old, NULL);
	pthread_attr_destroy(&attr);
	munmap(region, ALT_REGION);
	assert_int_equal(r->altstack_err, 0);
	assert_int_equal(r->handler_depth, 2);
	assert_int_equal(r->depth_after, 1);
	assert_string_equal(r->top, "interrupted");
	assert_int_equal(r->stale, 0);
	assert_int_equal(r->unmatched, 0);
}

/* Exact counts and the stack at once: both semaphores raised. */
static void test_v2_with_v1_probes(void **state)
{
	(void)state;
	REQUIRE_TRAPS();
	attach();
	attach_v2(1);
	new_session();
	FSP_MARK_ENTER(v2_feat, v2_inst, 5);
	assert_int_equal(stack()->depth, 1);
	FSP_ANTIMARK_ENTER(v2_feat);
	FSP_ANTIMARK_LEAVE(v2_feat);
	FSP_MARK_LEAVE(v2_feat, v2_inst, 5);
	assert_int_equal(stack()->depth, 0);
	detach();
	attach_v2(0);
	assert_int_equal(nevents, 4);
	expect_event(0, MARK_ENTER, v2_feat, v2_inst, 5);
	expect_event(1, ANTIMARK_ENTER, v2_feat, NULL, 0);
	expect_event(2, ANTIMARK_LEAVE, v2_feat, NULL, 0);
	expect_event(3, MARK_LEAVE, v2_feat, v2_inst, 5);
}

/* Scoped marks: every exit path pops what it pushed. */
static void test_v2_scoped(void **state)
{
	struct fsp_v2_stack *s;

	(void)state;
	attach_v2(1);
	new_session();
	payload_calls = 0;
	assert_int_equal(exit_by_return(1), 1);
	s = stack();
	assert_int_equal(exit_by_return(0), 2);
	assert_int_equal(exit_by_goto(1), 0);
	assert_int_equal(exit_by_goto(0), 1);
	assert_int_equal(exit_by_break_continue(), 2);
	two_in_one_block();
	assert_int_equal(feature_with_callback(user_callback, 20), 41);
	attach_v2(0);
	assert_int_equal(payload_calls, 8);
	assert_int_equal(s->depth, 0);
	assert_int_equal(s->unmatched, 0);
	assert_int_equal(s->stale, 0);
	assert_int_equal(s->overflows, 0);
	assert_int_equal(nevents, 0);
}
#endif /* !FSP_ABI_V1 */

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
#ifndef FSP_ABI_V1
		cmocka_unit_test_setup(test_v2_record, test_setup),
		cmocka_unit_test_setup(test_v2_detached_no_stack, test_setup),
		cmocka_unit_test_setup(test_v2_push_pop, test_setup),
		cmocka_unit_test_setup(test_v2_out_of_order, test_setup),
		cmocka_unit_test_setup(test_v2_early_leaves, test_setup),
		cmocka_unit_test_setup(test_v2_frame_bound, test_setup),
		cmocka_unit_test_setup(test_v2_overflow, test_setup),
		cmocka_unit_test_setup(test_v2_new_session, test_setup),
		cmocka_unit_test_setup(test_v2_thread_stacks, test_setup),
		cmocka_unit_test_setup(test_v2_fork, test_setup),
		cmocka_unit_test_setup(test_v2_signal_handlers, test_setup),
		cmocka_unit_test_setup(test_v2_altstack_above, test_setup),
		cmocka_unit_test_setup(test_v2_with_v1_probes, test_setup),
		cmocka_unit_test_setup(test_v2_scoped, test_setup),
#endif
	};

	return cmocka_run_group_tests_name(FSP_TEST_GROUP, tests, group_setup, group_teardown);
}
