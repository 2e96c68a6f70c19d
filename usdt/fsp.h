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
 * profiler can count every enter and leave exactly when asked to. The
 * translation units of one DSO may use different ABIs: ABI v1's semaphores
 * have names of their own (fsp_abi_v1.h), so each unit's probes name its
 * ABI's semaphore, which is how the profiler tells them apart.
 *
 * Rules (both ABIs; docs/attribution.md in fsp-bpf's source states the terms and
 * the attribution rule):
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
 *
 * Files: this one (the macros, the USDT sites both ABIs share, the scoped
 * marks) includes fsp_abi_v1.h or fsp_abi_v2.h, the ABI's implementation, from its own
 * directory; the three are installed together. Include only fsp.h.
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
 * Casts that stay quiet in the user's build: plain casts in C, static_cast and
 * reinterpret_cast in C++ (-Wold-style-cast). FSP__PAYLOAD converts a payload
 * to uint64_t as (uint64_t) does, pointers included, without the cast that
 * -Wuseless-cast reports when it already is one.
 */
#ifdef __cplusplus
#define FSP__CAST(type, x) (static_cast<type>(x))
#define FSP__PTR_CAST(type, x) (reinterpret_cast<type>(x))
template <typename T> inline __attribute__((always_inline)) uint64_t fsp__payload(T v) noexcept
{
	return static_cast<uint64_t>(v);
}
template <typename T> inline __attribute__((always_inline)) uint64_t fsp__payload(T *v) noexcept
{
	return reinterpret_cast<uintptr_t>(v);
}
#define FSP__PAYLOAD(p) (::fsp__payload(p))
#else
#define FSP__CAST(type, x) ((type)(x))
#define FSP__PTR_CAST(type, x) ((type)(x))
#define FSP__PAYLOAD(p) ((uint64_t)(p))
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
#define FSP__TYPECHECK_U64(p) ((void)FSP__PAYLOAD(p))

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
		uint64_t __fsp_p = FSP__PAYLOAD(payload);                                          \
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
#include "fsp_abi_v1.h" /* a USDT probe per mark */
#else
#include "fsp_abi_v2.h" /* a mark stack per thread in the process's memory */
#endif

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
		FSP__ON_MARK() ? fsp__scope_enter((feature), (instance), FSP__PAYLOAD(payload))    \
			       : fsp__scope_off()
#define FSP__SCOPED_ANTIMARK(var, feature)                                                         \
	const char *var __attribute__((cleanup(fsp__antiscope_leave), unused)) =                   \
		FSP__ON_ANTIMARK() ? fsp__antiscope_enter(feature) : FSP__CAST(const char *, 0)

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
				     FSP__PAYLOAD(payload))                                    \
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
