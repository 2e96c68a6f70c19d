/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * fsp.h - feature marks for the fsp-bpf feature-specific profiler (probe ABI v2)
 *
 * A feature library includes this header and brackets the dynamic extent of each
 * use of its feature with a mark, and each callback into user code with an
 * antimark. fsp-bpf attaches to a running process and samples every thread's
 * mark stack. usdt/README.md is the feature author's guide; this comment is the
 * reference.
 *
 *   FSP_MARK_ENTER(feature, instance, payload)   push a mark
 *   FSP_MARK_LEAVE(feature, instance, payload)   pop it
 *   FSP_ANTIMARK_ENTER(feature)                  push an antimark
 *   FSP_ANTIMARK_LEAVE(feature)                  pop it
 *   FSP_SCOPED_MARK(feature, instance, payload)  enter now, leave on every exit of the block
 *   FSP_SCOPED_ANTIMARK(feature)                 likewise for an antimark
 *   FSP_ENABLED()                                non-zero while a profiler is attached
 *   FSP_HERE                                     "file.c:42", a source-location instance label
 *   FSP_ABI_VERSION                              2 (1 with FSP_ABI_V1)
 *   C++: fsp::scoped_mark, fsp::scoped_antimark  RAII guards behind the scoped macros
 *
 * Probe ABI v2 (the default on x86-64). While a profiler is attached, a mark's
 * enter and leave are plain memory operations on the calling thread's mark
 * stack, in the process's own memory: no trap, no system call, no lock, no
 * allocation (a thread's stack is allocated at its first mark in each
 * executable or library, once per profiling session). The profiler's sampler
 * reads the stack of the thread it interrupts. Each executable or shared
 * library that includes this header (its "DSO") has:
 *   - fsp__v2_rec: a 64-byte record in section .probes (struct fsp_v2_record).
 *     Its first 16 bits are the semaphore of the fsp:v2 USDT probe, raised by
 *     the kernel while fsp-bpf is attached (it attaches a uprobe to that probe,
 *     whose site only runs at start-up); the next 16 bits are the one semaphore
 *     all four ABI v1 probes of the DSO share, raised only when the profiler
 *     wants exact counts (fsp-bpf --events). A mark tests both with one 32-bit
 *     load: nobody attached costs that load and a not-taken branch.
 *   - fsp__v2_self: a thread-local pointer (initial-exec TLS, static even in a
 *     library loaded with dlopen) to the thread's struct fsp_v2_stack.
 *   - a constructor that stores the pointer's offset from the thread pointer
 *     in the record and announces the record through the fsp:v2 probe
 *     (arguments: the record's address, that offset) if a profiler is already
 *     attached; fsp-bpf reads the record from /proc/PID/mem otherwise.
 * The sampler finds each DSO's stack at fsbase + tp_offset, ignores frames
 * whose stack pointer is below the thread's (frame-bound marks), and merges the
 * stacks of all DSOs (and the ABI v1 marks of the process) by stack pointer.
 *
 * Probe ABI v1 (-DFSP_ABI_V1, and on other architectures): every mark is a
 * USDT probe (provider "fsp": mark_enter, mark_leave, antimark_enter,
 * antimark_leave) that traps into the kernel while a profiler is attached. An
 * ABI v2 build still carries these probes behind its shared semaphore, so a
 * profiler can count every enter and leave exactly when asked to. All
 * translation units of one DSO must use the same ABI.
 *
 * Rules (both ABIs, see DESIGN.md section 3):
 *   - feature and instance are NUL-terminated strings with static storage
 *     duration: string literals, or interned strings that live as long as the
 *     process. The profiler reads each distinct address once and caches it, so
 *     a stack buffer or a string that is freed or rewritten gives wrong labels.
 *     instance may be NULL.
 *   - payload is opaque data for analysis plug-ins (an offset, an id); 0 when unused.
 *     It is converted with (uint64_t); convert pointers through (uintptr_t).
 *   - A leave should pass the same feature as its enter. The profiler matches a
 *     leave to the top-most live enter of the same feature name on the thread's
 *     mark stack; the instance and payload of a leave are informational.
 *   - Marks belong to the stack frame that entered them: the profiler drops a
 *     mark once the thread's stack pointer is above the one at its enter, so a
 *     longjmp or an exception that skips a leave does not leave it charging.
 *     Hence: enter and leave in the same function. Do not hide FSP_MARK_ENTER in
 *     a helper function that returns before the feature's work is done (unless
 *     it is always inlined, as the scoped macros' helpers are).
 *
 * Cost: with nobody attached a mark is one load and a not-taken branch; its
 * arguments, payload included, are not evaluated. Attached, an ABI v2 mark is a
 * few nanoseconds; an ABI v1 mark (or a v2 one under fsp-bpf --events) is a
 * uprobe trap, about a microsecond.
 *
 * Define FSP_DISABLE before including this header to compile every mark out: no
 * probes, no notes, no records, FSP_ENABLED() is 0 and no argument is
 * evaluated (arguments still type-check, so variables used only as payloads do
 * not become "unused"). Without FSP_DISABLE the header needs <sys/sdt.h>
 * (Debian: systemtap-sdt-dev).
 *
 * Works in C99 and later (GNU C or ISO C with GNU attributes, as GCC and Clang
 * accept them) and C++11 and later.
 */
#ifndef FSP_H
#define FSP_H

#include <stdint.h>

/* ABI v2 needs x86-64 (its TLS and stack-pointer code); elsewhere, ABI v1. */
#if !defined(FSP_ABI_V1) && !defined(__x86_64__)
#define FSP_ABI_V1 1
#endif

#ifdef FSP_ABI_V1
#define FSP_ABI_VERSION 1
#else
#define FSP_ABI_VERSION 2
#endif

/*
 * FSP_HERE: "file.c:42" for the line it appears on. The file part is FSP_FILE,
 * by default the base name (__FILE_NAME__) where the compiler has it, else
 * __FILE__; define FSP_FILE before including to choose (e.g. __FILE__).
 */
#ifndef FSP_FILE
#ifdef __FILE_NAME__
#define FSP_FILE __FILE_NAME__
#else
#define FSP_FILE __FILE__
#endif
#endif
#define FSP__STR2(x) #x
#define FSP__STR(x) FSP__STR2(x)
#define FSP_HERE FSP_FILE ":" FSP__STR(__LINE__)

/* A fresh identifier per expansion, so scoped macros can appear twice in a block. */
#define FSP__CAT2(a, b) a##b
#define FSP__CAT(a, b) FSP__CAT2(a, b)
#ifdef __COUNTER__
#define FSP__UNIQ(prefix) FSP__CAT(prefix, __COUNTER__)
#else
#define FSP__UNIQ(prefix) FSP__CAT(prefix, __LINE__)
#endif

#ifdef FSP_DISABLE
/* ---- compiled out ------------------------------------------------------------ */

/*
 * The arguments sit in dead code: they type-check as in the enabled macros and
 * count as used (a variable or static function used only as a payload draws no
 * "unused" warning), but they are never evaluated and no code is emitted.
 */
static inline const char *fsp__str(const char *s)
{
	return s;
}

#define FSP__TYPECHECK_STR(s) ((void)fsp__str(s))
#define FSP__TYPECHECK_U64(p) ((void)(uint64_t)(p))

#define FSP_ENABLED() 0
#define FSP_MARK_ENTER(feature, instance, payload)                                                 \
	do {                                                                                       \
		if (0) {                                                                           \
			FSP__TYPECHECK_STR(feature);                                               \
			FSP__TYPECHECK_STR(instance);                                              \
			FSP__TYPECHECK_U64(payload);                                               \
		}                                                                                  \
	} while (0)
#define FSP_MARK_LEAVE(feature, instance, payload) FSP_MARK_ENTER(feature, instance, payload)
#define FSP_ANTIMARK_ENTER(feature)                                                                \
	do {                                                                                       \
		if (0)                                                                             \
			FSP__TYPECHECK_STR(feature);                                               \
	} while (0)
#define FSP_ANTIMARK_LEAVE(feature) FSP_ANTIMARK_ENTER(feature)
#define FSP_SCOPED_MARK(feature, instance, payload) FSP_MARK_ENTER(feature, instance, payload)
#define FSP_SCOPED_ANTIMARK(feature) FSP_ANTIMARK_ENTER(feature)

#ifdef __cplusplus
/* clang-format off */
namespace fsp
{
/* Same interface as the enabled guards, doing nothing. */
class scoped_mark {
public:
	scoped_mark() noexcept
	{
	}
	scoped_mark(const char *, const char *, uint64_t = 0) noexcept
	{
	}
	scoped_mark(scoped_mark &&) noexcept
	{
	}
	scoped_mark(const scoped_mark &) = delete;
	scoped_mark &operator=(const scoped_mark &) = delete;
};

class scoped_antimark {
public:
	scoped_antimark() noexcept
	{
	}
	explicit scoped_antimark(const char *) noexcept
	{
	}
	scoped_antimark(scoped_antimark &&) noexcept
	{
	}
	scoped_antimark(const scoped_antimark &) = delete;
	scoped_antimark &operator=(const scoped_antimark &) = delete;
};
} /* namespace fsp */
/* clang-format on */
#endif /* __cplusplus */

#else /* !FSP_DISABLE */
/* ---- USDT probes (both ABIs) ---------------------------------------------------- */

/*
 * Semaphores. <sys/sdt.h> decides at include time whether its notes carry a
 * semaphore address, so it must see _SDT_HAS_SEMAPHORES first. This also gives
 * semaphores to any other STAP_PROBE in the same translation unit (define
 * <provider>_<name>_semaphore for those, or put them in another file).
 */
#if defined(_SYS_SDT_H) && !defined(_SDT_HAS_SEMAPHORES)
#error "fsp.h: <sys/sdt.h> was included first without _SDT_HAS_SEMAPHORES; include fsp.h first"
#endif
#ifndef _SDT_HAS_SEMAPHORES
#define _SDT_HAS_SEMAPHORES 1
#endif
#include <sys/sdt.h>

/*
 * Probe sites must be a 1-byte nop (0x90) on x86. A uprobe on a 1-byte nop is
 * an int3 that traps into the kernel without touching the user stack. Recent
 * kernels "optimize" uprobes on 5-byte nops into a call to a trampoline, whose
 * return address is pushed below the stack pointer, into the x86-64 red zone
 * where the traced function (and, with Clang, our own probe arguments) may live:
 * the traced program is silently corrupted. Debian's <sys/sdt.h> emits "nop";
 * pin it here in case a later one switches to a 5-byte nop, and fail loudly if
 * the hook we pin disappears. tests/unit/test_fsp_header.c checks the bytes.
 */
#if defined(__x86_64__) || defined(__i386__)
#ifndef _SDT_NOP
#error "fsp.h: <sys/sdt.h> no longer defines _SDT_NOP; make sure probe sites are still 1-byte nops"
#endif
#undef _SDT_NOP
#define _SDT_NOP nop
#endif

/*
 * Argument operands. fsp-bpf reads arguments with libbpf's USDT support, which
 * understands registers (8@%rax), memory at a register plus offset (8@-24(%rbp))
 * and constants (8@$0), but not symbolic operands (8@counter(%rip)); one such
 * operand makes attaching fail for the whole probe. GCC turns an argument that
 * is (or was copied from) a global variable into exactly that, even through a
 * local temporary, so each argument is copied into a local and passed through
 * an empty asm that forces it into a register: the compiler no longer knows the
 * value's origin and can only name a register or a stack slot. This runs only
 * when the probe is attached.
 */
#define FSP__LAUNDER(x) __asm__ __volatile__("" : "+r"(x))

/*
 * <sys/sdt.h> passes an empty variadic argument internally, which clang
 * -pedantic reports at every probe; silence that one warning around the probe.
 */
#if defined(__clang__)
#define FSP__SDT_BEGIN                                                                             \
	_Pragma("clang diagnostic push")                                                           \
		_Pragma("clang diagnostic ignored \"-Wgnu-zero-variadic-macro-arguments\"")
#define FSP__SDT_END _Pragma("clang diagnostic pop")
#else
#define FSP__SDT_BEGIN
#define FSP__SDT_END
#endif

/* Fire probe NAME unconditionally: the caller has checked its semaphore. */
#define FSP__FIRE3(name, feature, instance, payload)                                               \
	do {                                                                                       \
		const char *__fsp_f = (feature);                                                   \
		const char *__fsp_i = (instance);                                                  \
		uint64_t __fsp_p = (uint64_t)(payload);                                            \
		FSP__LAUNDER(__fsp_f);                                                             \
		FSP__LAUNDER(__fsp_i);                                                             \
		FSP__LAUNDER(__fsp_p);                                                             \
		FSP__SDT_BEGIN                                                                     \
		STAP_PROBE3(fsp, name, __fsp_f, __fsp_i, __fsp_p);                                 \
		FSP__SDT_END                                                                       \
	} while (0)

#define FSP__FIRE1(name, feature)                                                                  \
	do {                                                                                       \
		const char *__fsp_f = (feature);                                                   \
		FSP__LAUNDER(__fsp_f);                                                             \
		FSP__SDT_BEGIN                                                                     \
		STAP_PROBE1(fsp, name, __fsp_f);                                                   \
		FSP__SDT_END                                                                       \
	} while (0)

/*
 * The scoped marks' helpers (and ABI v2's stack operations) are always
 * inlined, even at -O0: the profiler binds a mark to the stack pointer at its
 * enter and drops it once the thread's stack pointer is above that, so an
 * enter made inside a helper that then returns would be dropped at once. The
 * marks must be made in the frame that owns them.
 */
#define FSP__INLINE inline __attribute__((always_inline))

#ifdef FSP_ABI_V1
/* ---- ABI v1: a USDT probe per mark ------------------------------------------------ */

/*
 * One semaphore per probe and per executable or shared object: weak so every
 * translation unit may define it, hidden so each DSO keeps its own (the kernel
 * raises the copy in the file the probe was found in), in ".probes" where USDT
 * tools expect semaphores, and used so LTO keeps it (the notes refer to it from
 * assembly only).
 */
#ifdef __cplusplus
extern "C" {
#endif
#define FSP__SEMAPHORE(name)                                                                       \
	__extension__ unsigned short fsp_##name##_semaphore                                        \
		__attribute__((weak, visibility("hidden"), section(".probes"), used))
FSP__SEMAPHORE(mark_enter);
FSP__SEMAPHORE(mark_leave);
FSP__SEMAPHORE(antimark_enter);
FSP__SEMAPHORE(antimark_leave);
#undef FSP__SEMAPHORE
#ifdef __cplusplus
}
#endif

/*
 * Is probe NAME attached? A volatile load, so that a loop that never calls out
 * still notices a profiler attaching to the running process.
 */
#define FSP__ON(name) __builtin_expect(*(volatile unsigned short *)&fsp_##name##_semaphore != 0, 0)

#define FSP_ENABLED() FSP__ON(mark_enter)

/* Fire probe NAME if attached; the arguments are evaluated only then. */
#define FSP__PROBE3(name, feature, instance, payload)                                              \
	do {                                                                                       \
		if (FSP__ON(name))                                                                 \
			FSP__FIRE3(name, feature, instance, payload);                              \
	} while (0)

#define FSP__PROBE1(name, feature)                                                                 \
	do {                                                                                       \
		if (FSP__ON(name))                                                                 \
			FSP__FIRE1(name, feature);                                                 \
	} while (0)

#define FSP_MARK_ENTER(feature, instance, payload)                                                 \
	FSP__PROBE3(mark_enter, feature, instance, payload)
#define FSP_MARK_LEAVE(feature, instance, payload)                                                 \
	FSP__PROBE3(mark_leave, feature, instance, payload)
#define FSP_ANTIMARK_ENTER(feature) FSP__PROBE1(antimark_enter, feature)
#define FSP_ANTIMARK_LEAVE(feature) FSP__PROBE1(antimark_leave, feature)

/* What the scoped marks build on: is an enter attached, and the enter itself. */
#define FSP__ON_MARK() FSP__ON(mark_enter)
#define FSP__ON_ANTIMARK() FSP__ON(antimark_enter)
#define FSP__DO_MARK_ENTER(feature, instance, payload)                                             \
	FSP__FIRE3(mark_enter, feature, instance, payload)
#define FSP__DO_ANTIMARK_ENTER(feature) FSP__FIRE1(antimark_enter, feature)

#else /* !FSP_ABI_V1 */
/* ---- ABI v2: a mark stack per thread in the process's memory ------------------------ */

#include <pthread.h>

#define FSP_V2_DEPTH 64 /* frames of a thread's stack in one DSO */
#define FSP_V2_RECORD_MAGIC 0x32505346u /* "FSP2" */
#define FSP_V2_STACK_MAGIC 0x53505346u /* "FSPS" */
/*
 * A frame whose stack pointer is below the thread's by less than this was
 * unwound; farther apart, the thread is on another stack (a signal stack, a
 * coroutine). fsp-bpf's sampler applies the same rule (bpf/markstack.bpf.h).
 */
#define FSP_V2_WINDOW (8ULL << 20)

#ifdef __cplusplus
extern "C" {
#endif

/* One mark or antimark. 32 bytes; the sampler reads frames [0, depth). */
struct fsp_v2_frame {
	uint64_t feature; /* const char *, static storage */
	uint64_t instance; /* const char *, or 0 */
	uint64_t payload;
	uint64_t sp_kind; /* the stack pointer at the enter (8-aligned) | 1 for an antimark */
};

/*
 * A thread's mark stack in one DSO: 64 bytes of header, then the frames. Its
 * own page (mmap), allocated at the thread's first mark in the DSO while a
 * profiler is attached, unmapped at the thread's exit. A push writes the frame
 * and then publishes it by storing depth + 1: a sampler interrupting the thread
 * anywhere sees complete frames only.
 */
struct fsp_v2_stack {
	uint32_t magic; /* FSP_V2_STACK_MAGIC */
	uint32_t gen; /* the record's gen when this stack was last reset */
	uint32_t depth; /* published frames */
	uint32_t overflow; /* enters beyond FSP_V2_DEPTH not yet left */
	uint64_t busy_sp; /* != 0: an operation is in progress, entered at this sp */
	uint64_t overflow_sp; /* sp of the shallowest overflowed enter */
	/* Since the last reset (the start of a profiling session): */
	uint64_t stale; /* frames dropped because their stack frame was unwound */
	uint64_t unmatched; /* leaves that matched no frame */
	uint32_t overflows; /* enters beyond FSP_V2_DEPTH */
	uint32_t skipped; /* marks made while an interrupted operation was in progress */
	uint32_t tid; /* the thread's id: a reader may tell its stack from a reused page */
	uint32_t reserved;
	struct fsp_v2_frame f[FSP_V2_DEPTH];
};

/* The DSO's record (fsp__v2_rec), 64 bytes in .probes, defined below in asm. */
struct fsp_v2_record {
	uint16_t sema_v2; /* semaphore of fsp:v2: a profiler reads the stacks */
	uint16_t sema_v1; /* semaphore of the four ABI v1 probes: exact counts */
	uint32_t magic; /* FSP_V2_RECORD_MAGIC */
	uint32_t version; /* 2 */
	uint32_t gen; /* set by a profiler attaching to a running process */
	int64_t tp_offset; /* &fsp__v2_self - the thread pointer, once ready */
	uint32_t ready; /* tp_offset is valid */
	uint32_t key_state; /* 0 none, 1 created, 2 deleted, 3 failed */
	uint32_t key; /* pthread key that unmaps a thread's stack at its exit */
	uint16_t depth; /* FSP_V2_DEPTH */
	uint16_t frame_size; /* sizeof(struct fsp_v2_frame) */
	uint16_t header_size; /* offsetof(struct fsp_v2_stack, f) */
	uint16_t reserved16;
	uint32_t reserved32;
	uint64_t reserved[2];
};

/*
 * One record and one TLS pointer per DSO, however many of its translation units
 * include this header: each is a hidden symbol in a COMDAT group, so the linker
 * keeps one copy (as <sys/sdt.h> does for .stapsdt.base; with LTO, .ifndef
 * keeps one per assembly file). The semaphores the
 * USDT notes name are labels inside the record. Hidden: every DSO has its own,
 * reached without the GOT (the record) or by the initial-exec model (the TLS
 * pointer), and never interposed by another DSO's.
 */
__asm__(".ifndef fsp__v2_rec\n" /* LTO may put several units in one assembly file */
	".pushsection .probes,\"awG\",@progbits,fsp__v2_rec,comdat\n"
	".balign 64\n"
	".weak fsp__v2_rec\n.hidden fsp__v2_rec\n"
	".type fsp__v2_rec,@object\n.size fsp__v2_rec,64\n"
	".weak fsp_v2_semaphore\n.hidden fsp_v2_semaphore\n"
	".weak fsp_mark_enter_semaphore\n.hidden fsp_mark_enter_semaphore\n"
	".weak fsp_mark_leave_semaphore\n.hidden fsp_mark_leave_semaphore\n"
	".weak fsp_antimark_enter_semaphore\n.hidden fsp_antimark_enter_semaphore\n"
	".weak fsp_antimark_leave_semaphore\n.hidden fsp_antimark_leave_semaphore\n"
	"fsp__v2_rec:\n"
	"fsp_v2_semaphore: .2byte 0\n"
	"fsp_mark_enter_semaphore:\n"
	"fsp_mark_leave_semaphore:\n"
	"fsp_antimark_enter_semaphore:\n"
	"fsp_antimark_leave_semaphore: .2byte 0\n"
	".4byte 0x32505346\n" /* magic */
	".4byte 2\n" /* version */
	".4byte 0\n" /* gen */
	".8byte 0\n" /* tp_offset */
	".4byte 0, 0, 0\n" /* ready, key_state, key */
	".2byte 64, 32, 64, 0\n" /* depth, frame_size, header_size */
	".4byte 0\n.8byte 0, 0\n"
	".popsection\n"
	".pushsection .tbss.fsp__v2_self,\"awTG\",@nobits,fsp__v2_self,comdat\n"
	".balign 8\n"
	".weak fsp__v2_self\n.hidden fsp__v2_self\n"
	".type fsp__v2_self,@tls_object\n.size fsp__v2_self,8\n"
	"fsp__v2_self: .zero 8\n"
	".popsection\n"
	".endif\n");

extern struct fsp_v2_record fsp__v2_rec __attribute__((visibility("hidden")));
extern __thread struct fsp_v2_stack *fsp__v2_self
	__attribute__((visibility("hidden"), tls_model("initial-exec")));
/* The semaphores under the names <sys/sdt.h> refers to: fsp:v2's, and the v1
 * probes' one under its four names. */
extern unsigned short fsp_v2_semaphore __attribute__((visibility("hidden")));
extern unsigned short fsp_mark_enter_semaphore __attribute__((visibility("hidden")));
extern unsigned short fsp_mark_leave_semaphore __attribute__((visibility("hidden")));
extern unsigned short fsp_antimark_enter_semaphore __attribute__((visibility("hidden")));
extern unsigned short fsp_antimark_leave_semaphore __attribute__((visibility("hidden")));

#ifdef __cplusplus
}
#endif

/* Both semaphores in one load: the low half is fsp:v2's, the high half v1's. */
#define FSP__V2_WORD() (*(volatile uint32_t *)&fsp__v2_rec)
#define FSP__V2_STACKS 0xffffu
#define FSP_ENABLED() __builtin_expect(FSP__V2_WORD() != 0, 0)

#define FSP__BARRIER() __asm__ __volatile__("" ::: "memory")
#define FSP__COLD __attribute__((noinline, cold, unused))

static FSP__INLINE uint64_t fsp__v2_sp(void)
{
	uint64_t sp;

	__asm__ __volatile__("mov %%rsp, %0" : "=r"(sp));
	return sp;
}

/* Was a frame entered at sp_kind's stack pointer unwound, now that the thread's
 * is sp? (The same rule as the sampler's.) */
static FSP__INLINE int fsp__v2_dead(uint64_t sp_kind, uint64_t sp)
{
	uint64_t fsp = sp_kind & ~(uint64_t)7;

	return fsp < sp && sp - fsp < FSP_V2_WINDOW;
}

/* mmap/munmap as raw system calls: async-signal-safe, no libc declarations. */
static inline void *fsp__v2_map(uint64_t len)
{
	long ret;

	__asm__ __volatile__("mov %[flags], %%r10\n\t"
			     "mov $-1, %%r8\n\t"
			     "xor %%r9d, %%r9d\n\t"
			     "syscall"
			     : "=a"(ret)
			     : "0"(9L), "D"(0L), "S"(len), "d"(3L), [flags] "r"(0x22L)
			     : "rcx", "r8", "r9", "r10", "r11", "memory");
	return ret < 0 && ret > -4096 ? (void *)0 : (void *)ret;
}

static inline void fsp__v2_unmap(void *p, uint64_t len)
{
	long ret;

	__asm__ __volatile__("syscall"
			     : "=a"(ret)
			     : "0"(11L), "D"(p), "S"(len)
			     : "rcx", "r11", "memory");
	(void)ret;
}

static inline uint32_t fsp__v2_gettid(void)
{
	long ret;

	__asm__ __volatile__("syscall" : "=a"(ret) : "0"(186L) : "rcx", "r11", "memory");
	return (uint32_t)ret;
}

/*
 * Is the thread running on its alternate signal stack (sigaltstack), and
 * where is that? Asked only on the cold paths, when a frame looks dead: a
 * handler on an alternate stack mapped just above the thread's stack sees the
 * interrupted code's frames below its stack pointer, yet they are live.
 */
static inline int fsp__v2_on_altstack(uint64_t *lo, uint64_t *hi)
{
	struct {
		void *sp;
		int flags;
		uint64_t size;
	} ss; /* stack_t */
	long ret;

	__asm__ __volatile__("syscall"
			     : "=a"(ret)
			     : "0"(131L), "D"(0L), "S"(&ss)
			     : "rcx", "r11", "memory");
	if (ret || !(ss.flags & 1)) /* SS_ONSTACK */
		return 0;
	*lo = (uint64_t)(uintptr_t)ss.sp;
	*hi = *lo + ss.size;
	return 1;
}

/* Could a frame entered at sp_kind's stack pointer be unwound by now? Not if
 * the thread runs on its alternate signal stack and the frame is elsewhere. */
static inline int fsp__v2_same_stack(uint64_t sp_kind, int *alt, uint64_t *lo, uint64_t *hi)
{
	uint64_t fsp = sp_kind & ~(uint64_t)7;

	if (*alt < 0)
		*alt = fsp__v2_on_altstack(lo, hi);
	return !*alt || (fsp >= *lo && fsp < *hi);
}

/* In a forked child: the forking thread's stack is this thread's now. */
static inline void fsp__v2_atfork_child(void)
{
	if (fsp__v2_self)
		fsp__v2_self->tid = fsp__v2_gettid();
}

/* pthread key destructor: the thread exits, its stack goes. */
static inline void fsp__v2_release(void *p)
{
	fsp__v2_self = (struct fsp_v2_stack *)0;
	FSP__BARRIER();
	fsp__v2_unmap(p, sizeof(struct fsp_v2_stack));
}

/*
 * The thread's stack, allocated at its first mark in this DSO while a profiler
 * is attached, or reset at its first mark in a new session (the record's gen
 * changed: frames and counters of an earlier session mean nothing now). NULL
 * when memory is short: the marks are then skipped.
 */
static FSP__COLD struct fsp_v2_stack *fsp__v2_acquire(void)
{
	struct fsp_v2_stack *s = fsp__v2_self;
	uint32_t gen = *(volatile uint32_t *)&fsp__v2_rec.gen;

	if (!s) {
		s = (struct fsp_v2_stack *)fsp__v2_map(sizeof(*s));
		if (!s)
			return s;
		s->magic = FSP_V2_STACK_MAGIC;
		s->gen = gen;
		s->tid = fsp__v2_gettid();
		if (fsp__v2_rec.key_state == 1)
			pthread_setspecific((pthread_key_t)fsp__v2_rec.key, s);
		/* The header is whole before a sampler can find the stack. */
		FSP__BARRIER();
		fsp__v2_self = s;
		return s;
	}
	s->depth = 0;
	s->overflow = 0;
	s->busy_sp = 0;
	s->stale = s->overflows = s->unmatched = s->skipped = 0;
	FSP__BARRIER();
	s->gen = gen;
	return s;
}

/*
 * Another operation on this stack is in progress (busy_sp): either this mark
 * runs in a signal handler that interrupted it (below it on the same stack, or
 * on another stack), and is skipped so as not to overwrite the frame being
 * written, or the operation was abandoned (a signal handler longjmp'ed out of
 * it, to a frame at or above it), and is forgotten.
 */
static FSP__COLD int fsp__v2_interrupted(struct fsp_v2_stack *s, uint64_t sp)
{
	uint64_t busy = s->busy_sp, lo = 0, hi = 0;
	int alt = -1;

	if (sp >= busy && sp - busy < FSP_V2_WINDOW && fsp__v2_same_stack(busy, &alt, &lo, &hi)) {
		s->busy_sp = 0;
		return 0;
	}
	s->skipped++;
	return 1;
}

/* Drops the frames on top whose stack frame is gone; returns the new depth. */
static FSP__COLD uint32_t fsp__v2_prune(struct fsp_v2_stack *s, uint64_t sp)
{
	uint32_t d = s->depth;
	uint64_t lo = 0, hi = 0;
	int alt = -1;

	while (d && fsp__v2_dead(s->f[d - 1].sp_kind, sp) &&
	       fsp__v2_same_stack(s->f[d - 1].sp_kind, &alt, &lo, &hi))
		d--;
	s->stale += s->depth - d;
	s->depth = d;
	return d;
}

/* Writes frame d, then publishes it. */
static FSP__INLINE void fsp__v2_put(struct fsp_v2_stack *s, uint32_t d, const char *feature,
				    const char *instance, uint64_t payload, uint64_t sp_kind)
{
	struct fsp_v2_frame *f = &s->f[d];

	f->feature = (uintptr_t)feature;
	f->instance = (uintptr_t)instance;
	f->payload = payload;
	f->sp_kind = sp_kind;
	FSP__BARRIER();
	s->depth = d + 1;
}

/* A push that finds the stack full or overflowed. */
static FSP__COLD void fsp__v2_push_full(struct fsp_v2_stack *s, uint32_t d, const char *feature,
					const char *instance, uint64_t payload, uint64_t sp_kind)
{
	if (s->overflow && fsp__v2_dead(s->overflow_sp, sp_kind)) {
		s->stale++;
		s->overflow = 0;
	}
	if (!s->overflow && d < FSP_V2_DEPTH) {
		fsp__v2_put(s, d, feature, instance, payload, sp_kind);
		return;
	}
	if (!s->overflow)
		s->overflow_sp = sp_kind & ~(uint64_t)7;
	s->overflow++;
	s->overflows++;
}

static FSP__INLINE int fsp__v2_same_name(const char *a, const char *b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	return *a == *b;
}

/*
 * A leave that is not the top frame's: matches the top-most frame of the same
 * kind whose feature is the same pointer or the same string, and removes it,
 * keeping the frames above (independent features may leave out of order). They
 * are unpublished while they move down, so a sampler never sees a frame twice
 * or half-moved. A leave while overflowed is absorbed instead.
 */
static FSP__COLD void fsp__v2_pop_slow(struct fsp_v2_stack *s, uint32_t d, const char *feature,
				       uint64_t kind, uint64_t sp)
{
	uint32_t k;

	if (s->overflow) {
		if (!fsp__v2_dead(s->overflow_sp, sp)) {
			s->overflow--;
			return;
		}
		s->stale++;
		s->overflow = 0;
	}
	for (k = d; k-- > 0;) {
		const struct fsp_v2_frame *f = &s->f[k];

		if ((f->sp_kind & 1) == kind &&
		    (f->feature == (uintptr_t)feature ||
		     fsp__v2_same_name((const char *)(uintptr_t)f->feature, feature)))
			break;
	}
	if (k >= d) {
		s->unmatched++;
		return;
	}
	s->depth = k;
	FSP__BARRIER();
	for (; k + 1 < d; k++)
		s->f[k] = s->f[k + 1];
	FSP__BARRIER();
	s->depth = d - 1;
}

/*
 * Starts an operation on the stack: marks it busy (see fsp__v2_interrupted)
 * and drops the dead frames on top. Returns the live depth, or -1 when the mark
 * must be skipped. The caller ends the operation by clearing busy_sp.
 */
static FSP__INLINE int fsp__v2_begin(struct fsp_v2_stack *s, uint64_t sp)
{
	uint32_t d;

	if (__builtin_expect(s->busy_sp != 0, 0) && fsp__v2_interrupted(s, sp))
		return -1;
	s->busy_sp = sp;
	FSP__BARRIER();
	d = s->depth;
	if (__builtin_expect(d != 0 && fsp__v2_dead(s->f[d - 1].sp_kind, sp), 0))
		d = fsp__v2_prune(s, sp);
	return (int)d;
}

/* Pushes a mark (kind 0) or an antimark (kind 1) on the thread's stack. */
static FSP__INLINE void fsp__v2_push(const char *feature, const char *instance, uint64_t payload,
				     uint64_t kind)
{
	struct fsp_v2_stack *s = fsp__v2_self;
	uint64_t sp = fsp__v2_sp();
	int d;

	if (__builtin_expect(!s || s->gen != *(volatile uint32_t *)&fsp__v2_rec.gen, 0)) {
		s = fsp__v2_acquire();
		if (!s)
			return;
	}
	d = fsp__v2_begin(s, sp);
	if (__builtin_expect(d < 0, 0))
		return;
	if (__builtin_expect(d < FSP_V2_DEPTH && !s->overflow, 1))
		fsp__v2_put(s, (uint32_t)d, feature, instance, payload, sp | kind);
	else
		fsp__v2_push_full(s, (uint32_t)d, feature, instance, payload, sp | kind);
	FSP__BARRIER();
	s->busy_sp = 0;
}

/* Pops the top-most live frame of kind and feature (usually the top one). */
static FSP__INLINE void fsp__v2_pop(const char *feature, uint64_t kind)
{
	struct fsp_v2_stack *s = fsp__v2_self;
	uint64_t sp = fsp__v2_sp();
	const struct fsp_v2_frame *top;
	int d;

	/* No stack: nothing was entered in this thread while attached. */
	if (__builtin_expect(!s, 0))
		return;
	d = fsp__v2_begin(s, sp);
	if (__builtin_expect(d < 0, 0))
		return;
	top = &s->f[d ? d - 1 : 0];
	if (__builtin_expect(d != 0 && !s->overflow && top->feature == (uintptr_t)feature &&
				     (top->sp_kind & 1) == kind,
			     1))
		s->depth = (uint32_t)d - 1;
	else
		fsp__v2_pop_slow(s, (uint32_t)d, feature, kind, sp);
	FSP__BARRIER();
	s->busy_sp = 0;
}

/* A mark's or antimark's enter and leave once the word w is known to be non-zero:
 * the stack if a profiler reads it, the v1 probe if one counts events. */
static FSP__INLINE void fsp__v2_enter3(uint32_t w, const char *feature, const char *instance,
				       uint64_t payload)
{
	if (w & FSP__V2_STACKS)
		fsp__v2_push(feature, instance, payload, 0);
	if (w >> 16)
		FSP__FIRE3(mark_enter, feature, instance, payload);
}

static FSP__INLINE void fsp__v2_leave3(uint32_t w, const char *feature, const char *instance,
				       uint64_t payload)
{
	if (w & FSP__V2_STACKS)
		fsp__v2_pop(feature, 0);
	if (w >> 16)
		FSP__FIRE3(mark_leave, feature, instance, payload);
}

static FSP__INLINE void fsp__v2_enter1(uint32_t w, const char *feature)
{
	if (w & FSP__V2_STACKS)
		fsp__v2_push(feature, (const char *)0, 0, 1);
	if (w >> 16)
		FSP__FIRE1(antimark_enter, feature);
}

static FSP__INLINE void fsp__v2_leave1(uint32_t w, const char *feature)
{
	if (w & FSP__V2_STACKS)
		fsp__v2_pop(feature, 1);
	if (w >> 16)
		FSP__FIRE1(antimark_leave, feature);
}

/*
 * Per DSO, at load: the TLS pointer's offset from the thread pointer (%fs:0
 * holds the thread pointer itself on x86-64), the pthread key that releases
 * stacks, a fork handler (the child's stack gets its thread's id), and the
 * fsp:v2 probe announcing the record to a profiler already
 * attached. Every translation unit has this constructor; the first to run
 * does the work. The store of ready is a full barrier: a profiler that raises
 * the semaphore and then reads the record either sees it ready or is
 * announced to.
 */
static __attribute__((constructor, unused)) void fsp__v2_init(void)
{
	struct fsp_v2_record *r = &fsp__v2_rec;
	pthread_key_t key;
	char *tp;
	int64_t off;

	if (r->ready)
		return;
	if (!r->key_state) {
		r->key_state = pthread_key_create(&key, fsp__v2_release) ? 3 : 1;
		r->key = (uint32_t)key;
		pthread_atfork(0, 0, fsp__v2_atfork_child);
	}
	__asm__("mov %%fs:0, %0" : "=r"(tp));
	off = (int64_t)((char *)&fsp__v2_self - tp);
	r->tp_offset = off;
	__atomic_store_n(&r->ready, 1, __ATOMIC_SEQ_CST);
	if (FSP__V2_WORD() & FSP__V2_STACKS) {
		struct fsp_v2_record *rec = r;

		FSP__LAUNDER(rec);
		FSP__LAUNDER(off);
		FSP__SDT_BEGIN
		STAP_PROBE2(fsp, v2, rec, off);
		FSP__SDT_END
	}
}

/* Per DSO, at unload (dlclose) or exit: the key's destructor is about to go. */
static __attribute__((destructor, unused)) void fsp__v2_fini(void)
{
	if (fsp__v2_rec.key_state == 1) {
		fsp__v2_rec.key_state = 2;
		pthread_key_delete((pthread_key_t)fsp__v2_rec.key);
	}
}

/* Is a mark attached (checked again by the operation itself), and do it. */
#define FSP__V2_OP(op)                                                                             \
	do {                                                                                       \
		uint32_t __fsp_w = FSP__V2_WORD();                                                 \
		if (__builtin_expect(__fsp_w != 0, 0))                                             \
			op;                                                                        \
	} while (0)

#define FSP_MARK_ENTER(feature, instance, payload)                                                 \
	FSP__V2_OP(fsp__v2_enter3(__fsp_w, (feature), (instance), (uint64_t)(payload)))
#define FSP_MARK_LEAVE(feature, instance, payload)                                                 \
	FSP__V2_OP(fsp__v2_leave3(__fsp_w, (feature), (instance), (uint64_t)(payload)))
#define FSP_ANTIMARK_ENTER(feature) FSP__V2_OP(fsp__v2_enter1(__fsp_w, (feature)))
#define FSP_ANTIMARK_LEAVE(feature) FSP__V2_OP(fsp__v2_leave1(__fsp_w, (feature)))

#define FSP__ON_MARK() FSP_ENABLED()
#define FSP__ON_ANTIMARK() FSP_ENABLED()
#define FSP__DO_MARK_ENTER(feature, instance, payload)                                             \
	fsp__v2_enter3(FSP__V2_WORD(), feature, instance, payload)
#define FSP__DO_ANTIMARK_ENTER(feature) fsp__v2_enter1(FSP__V2_WORD(), feature)

#endif /* FSP_ABI_V1 */

/* ---- scoped marks (both ABIs) -------------------------------------------------------- */

/*
 * The guard remembers what the enter passed (feature NULL: the enter did not
 * happen because nobody was attached, so neither does the leave) and leaves
 * when its variable goes out of scope: return, break, continue, goto out of
 * the block, or falling off its end. The payload is evaluated only if the
 * enter happens.
 */
#ifndef __cplusplus

struct fsp_scope {
	const char *feature; /* NULL: not entered */
	const char *instance;
	uint64_t payload;
};

static FSP__INLINE struct fsp_scope fsp__scope_enter(const char *feature, const char *instance,
						     uint64_t payload)
{
	struct fsp_scope s = {feature, instance, payload};

	FSP__DO_MARK_ENTER(feature, instance, payload);
	return s;
}

static FSP__INLINE struct fsp_scope fsp__scope_off(void)
{
	struct fsp_scope s = {0, 0, 0};

	return s;
}

static FSP__INLINE void fsp__scope_leave(struct fsp_scope *s)
{
	if (s->feature)
		FSP_MARK_LEAVE(s->feature, s->instance, s->payload);
}

static FSP__INLINE const char *fsp__antiscope_enter(const char *feature)
{
	FSP__DO_ANTIMARK_ENTER(feature);
	return feature;
}

static FSP__INLINE void fsp__antiscope_leave(const char *const *feature)
{
	if (*feature)
		FSP_ANTIMARK_LEAVE(*feature);
}

/* GNU C cleanup attribute: runs the leave on every exit of the enclosing block
 * (and during exception unwinding if the file is compiled with -fexceptions). */
#define FSP__SCOPED_MARK(var, feature, instance, payload)                                          \
	struct fsp_scope var __attribute__((cleanup(fsp__scope_leave), unused)) =                  \
		FSP__ON_MARK() ? fsp__scope_enter((feature), (instance), (uint64_t)(payload))      \
			       : fsp__scope_off()
#define FSP__SCOPED_ANTIMARK(var, feature)                                                         \
	const char *var __attribute__((cleanup(fsp__antiscope_leave), unused)) =                   \
		FSP__ON_ANTIMARK() ? fsp__antiscope_enter(feature) : (const char *)0

#else /* __cplusplus */

/* clang-format off */
namespace fsp
{
namespace detail
{
/* Constructor tag: the caller has checked that a profiler is attached. */
struct attached {
};
} /* namespace detail */

/*
 * RAII mark: enters in the constructor (if a profiler is attached), leaves in
 * the destructor, including when an exception unwinds through the scope.
 * Constructing one directly evaluates its arguments always; FSP_SCOPED_MARK
 * evaluates them only while a profiler is attached.
 */
class scoped_mark {
public:
	/* Not entered; leaves nothing. */
	scoped_mark() noexcept : feature_(nullptr), instance_(nullptr), payload_(0)
	{
	}
	FSP__INLINE scoped_mark(const char *feature, const char *instance, uint64_t payload = 0) noexcept
		: feature_(nullptr), instance_(instance), payload_(payload)
	{
		if (FSP__ON_MARK()) {
			feature_ = feature;
			FSP__DO_MARK_ENTER(feature, instance, payload);
		}
	}
	FSP__INLINE scoped_mark(detail::attached, const char *feature, const char *instance,
				uint64_t payload) noexcept
		: feature_(feature), instance_(instance), payload_(payload)
	{
		FSP__DO_MARK_ENTER(feature, instance, payload);
	}
	/* Moving hands the pending leave over (C++11/14 copy-initialization). */
	scoped_mark(scoped_mark &&o) noexcept
		: feature_(o.feature_), instance_(o.instance_), payload_(o.payload_)
	{
		o.feature_ = nullptr;
	}
	scoped_mark(const scoped_mark &) = delete;
	scoped_mark &operator=(const scoped_mark &) = delete;
	FSP__INLINE ~scoped_mark()
	{
		if (feature_)
			FSP_MARK_LEAVE(feature_, instance_, payload_);
	}

private:
	const char *feature_; /* nullptr: not entered */
	const char *instance_;
	uint64_t payload_;
};

/* RAII antimark around a callback into user code. */
class scoped_antimark {
public:
	scoped_antimark() noexcept : feature_(nullptr)
	{
	}
	FSP__INLINE explicit scoped_antimark(const char *feature) noexcept : feature_(nullptr)
	{
		if (FSP__ON_ANTIMARK()) {
			feature_ = feature;
			FSP__DO_ANTIMARK_ENTER(feature);
		}
	}
	FSP__INLINE scoped_antimark(detail::attached, const char *feature) noexcept
		: feature_(feature)
	{
		FSP__DO_ANTIMARK_ENTER(feature);
	}
	scoped_antimark(scoped_antimark &&o) noexcept : feature_(o.feature_)
	{
		o.feature_ = nullptr;
	}
	scoped_antimark(const scoped_antimark &) = delete;
	scoped_antimark &operator=(const scoped_antimark &) = delete;
	FSP__INLINE ~scoped_antimark()
	{
		if (feature_)
			FSP_ANTIMARK_LEAVE(feature_);
	}

private:
	const char *feature_; /* nullptr: not entered */
};
} /* namespace fsp */

#define FSP__SCOPED_MARK(var, feature, instance, payload)                                  \
	::fsp::scoped_mark var = FSP__ON_MARK()                                              \
		? ::fsp::scoped_mark(::fsp::detail::attached(), (feature), (instance),       \
				     (uint64_t)(payload))                                    \
		: ::fsp::scoped_mark()
#define FSP__SCOPED_ANTIMARK(var, feature)                                                 \
	::fsp::scoped_antimark var = FSP__ON_ANTIMARK()                                      \
		? ::fsp::scoped_antimark(::fsp::detail::attached(), (feature))               \
		: ::fsp::scoped_antimark()
/* clang-format on */

#endif /* __cplusplus */

#define FSP_SCOPED_MARK(feature, instance, payload)                                                \
	FSP__SCOPED_MARK(FSP__UNIQ(__fsp_scope_), feature, instance, payload)
#define FSP_SCOPED_ANTIMARK(feature) FSP__SCOPED_ANTIMARK(FSP__UNIQ(__fsp_antiscope_), feature)

#endif /* FSP_DISABLE */

#endif /* FSP_H */
