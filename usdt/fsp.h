/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * fsp.h - feature marks for the fsp-bpf feature-specific profiler (probe ABI v1)
 *
 * A feature library includes this header and brackets the dynamic extent of each
 * use of its feature with a mark, and each callback into user code with an
 * antimark. The marks are USDT probes (provider "fsp"); fsp-bpf attaches to them
 * in a running process and samples every thread's mark stack. usdt/README.md is
 * the feature author's guide; this comment is the reference.
 *
 *   FSP_MARK_ENTER(feature, instance, payload)   fsp:mark_enter
 *   FSP_MARK_LEAVE(feature, instance, payload)   fsp:mark_leave
 *   FSP_ANTIMARK_ENTER(feature)                  fsp:antimark_enter
 *   FSP_ANTIMARK_LEAVE(feature)                  fsp:antimark_leave
 *   FSP_SCOPED_MARK(feature, instance, payload)  enter now, leave on every exit of the block
 *   FSP_SCOPED_ANTIMARK(feature)                 likewise for an antimark
 *   FSP_ENABLED()                                non-zero while a profiler is attached
 *   FSP_HERE                                     "file.c:42", a source-location instance label
 *   FSP_ABI_VERSION                              1
 *   C++: fsp::scoped_mark, fsp::scoped_antimark  RAII guards behind the scoped macros
 *
 * Rules (probe ABI v1, see DESIGN.md section 3):
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
 * Cost: every probe is guarded by its USDT semaphore, which the kernel raises
 * while a profiler is attached. With nobody attached a probe is one load and a
 * not-taken branch; its arguments, payload included, are not evaluated.
 *
 * Define FSP_DISABLE before including this header to compile every mark out: no
 * probes, no notes, no semaphores, FSP_ENABLED() is 0 and no argument is
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

#define FSP_ABI_VERSION 1

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
/* ---- probes ------------------------------------------------------------------- */

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

/* Fire probe NAME unconditionally: the caller has checked FSP__ON(NAME). */
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

/*
 * Scoped marks. The guard remembers what the enter passed (feature NULL: the
 * enter did not fire because nobody was attached, so neither does the leave)
 * and fires the leave when its variable goes out of scope: return, break,
 * continue, goto out of the block, or falling off its end. The payload is
 * evaluated only if the enter fires.
 *
 * The helpers are always inlined, even at -O0: the profiler binds a mark to
 * the stack pointer at its enter and drops it once the thread's stack pointer
 * is above that, so an enter fired inside a helper that then returns would be
 * dropped at once. The probes must fire in the frame that owns the guard.
 */
#define FSP__INLINE inline __attribute__((always_inline))
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

	FSP__FIRE3(mark_enter, feature, instance, payload);
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
	FSP__FIRE1(antimark_enter, feature);
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
		FSP__ON(mark_enter) ? fsp__scope_enter((feature), (instance), (uint64_t)(payload)) \
				    : fsp__scope_off()
#define FSP__SCOPED_ANTIMARK(var, feature)                                                         \
	const char *var __attribute__((cleanup(fsp__antiscope_leave), unused)) =                   \
		FSP__ON(antimark_enter) ? fsp__antiscope_enter(feature) : (const char *)0

#else /* __cplusplus */

/* clang-format off */
namespace fsp
{
namespace detail
{
/* Constructor tag: the caller has checked that the probe is attached. */
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
		if (FSP__ON(mark_enter)) {
			feature_ = feature;
			FSP__FIRE3(mark_enter, feature, instance, payload);
		}
	}
	FSP__INLINE scoped_mark(detail::attached, const char *feature, const char *instance,
				uint64_t payload) noexcept
		: feature_(feature), instance_(instance), payload_(payload)
	{
		FSP__FIRE3(mark_enter, feature, instance, payload);
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
		if (FSP__ON(antimark_enter)) {
			feature_ = feature;
			FSP__FIRE1(antimark_enter, feature);
		}
	}
	FSP__INLINE scoped_antimark(detail::attached, const char *feature) noexcept
		: feature_(feature)
	{
		FSP__FIRE1(antimark_enter, feature);
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
	::fsp::scoped_mark var = FSP__ON(mark_enter)                                         \
		? ::fsp::scoped_mark(::fsp::detail::attached(), (feature), (instance),       \
				     (uint64_t)(payload))                                    \
		: ::fsp::scoped_mark()
#define FSP__SCOPED_ANTIMARK(var, feature)                                                 \
	::fsp::scoped_antimark var = FSP__ON(antimark_enter)                                 \
		? ::fsp::scoped_antimark(::fsp::detail::attached(), (feature))               \
		: ::fsp::scoped_antimark()
/* clang-format on */

#endif /* __cplusplus */

#define FSP_SCOPED_MARK(feature, instance, payload)                                                \
	FSP__SCOPED_MARK(FSP__UNIQ(__fsp_scope_), feature, instance, payload)
#define FSP_SCOPED_ANTIMARK(feature) FSP__SCOPED_ANTIMARK(FSP__UNIQ(__fsp_antiscope_), feature)

#endif /* FSP_DISABLE */

#endif /* FSP_H */
