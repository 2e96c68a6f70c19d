/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * fsp_abi_v2.h: probe ABI v2, a mark stack per thread in the process's
 * memory (the default on x86-64).
 * Part of fsp.h, which includes it: include fsp.h, never this file.
 */
#ifndef FSP_ABI_V2_H
#define FSP_ABI_V2_H

#ifndef FSP_H
#error "include fsp.h, not fsp_abi_v2.h"
#endif

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

/*
 * One mark or antimark. 40 bytes (the record's frame_size); the sampler reads
 * frames [0, depth). Headers before the slow-call view had 32-byte frames,
 * without `call`: fsp-bpf reads both, and knows no calls for the older.
 */
struct fsp_v2_frame {
	uint64_t feature; /* const char *, static storage */
	uint64_t instance; /* const char *, or 0 */
	uint64_t payload;
	uint64_t sp_kind; /* the stack pointer at the enter (8-aligned) | 1 for an antimark */
	uint64_t call; /* the thread's call number of this enter in this DSO (1, 2, ...) */
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
	/* Leaves that matched no frame, made at or above the stack's top_sp (or
	 * on another stack): of marks the thread may have entered before the
	 * reset, unseen (a profiler attached in mid-feature). Since the reset;
	 * the profiler counts them as unmatched only in a thread it saw start. */
	uint32_t early;
	struct fsp_v2_frame f[FSP_V2_DEPTH];
	/* Enters pushed on this stack since its allocation: the next frame's
	 * call number is one more. After the frames, so that the header keeps
	 * its size and layout (header_size); the sampler never reads it. */
	uint64_t calls;
	/* The highest stack pointer of the stack's first push since the reset
	 * and of its early leaves: a mark open before the reset was entered at
	 * or above it. The sampler never reads it. */
	uint64_t top_sp;
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
	/* Written by profilers only (the marks never read them): the ids of the
	 * profiling sessions attached, so that one does not start the stacks
	 * afresh under another (fsp-bpf's userspace/session/v2.c). */
	uint64_t profilers[2];
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
	".2byte 64, 40, 64, 0\n" /* depth, frame_size, header_size */
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
#define FSP__V2_WORD() (*FSP__PTR_CAST(volatile uint32_t *, &fsp__v2_rec))
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
	uint64_t fsp = sp_kind & ~UINT64_C(7);

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
	return ret < 0 && ret > -4096 ? FSP__CAST(void *, 0) : FSP__PTR_CAST(void *, ret);
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
	return FSP__CAST(uint32_t, ret);
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
	*lo = FSP__PTR_CAST(uint64_t, ss.sp);
	*hi = *lo + ss.size;
	return 1;
}

/* Could a frame entered at sp_kind's stack pointer be unwound by now? Not if
 * the thread runs on its alternate signal stack and the frame is elsewhere. */
static inline int fsp__v2_same_stack(uint64_t sp_kind, int *alt, uint64_t *lo, uint64_t *hi)
{
	uint64_t fsp = sp_kind & ~UINT64_C(7);

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
	fsp__v2_self = FSP__CAST(struct fsp_v2_stack *, 0);
	FSP__BARRIER();
	fsp__v2_unmap(p, sizeof(struct fsp_v2_stack));
}

/*
 * The thread's stack, allocated at its first mark in this DSO while a profiler
 * is attached, or reset at its first mark in a new session (the record's gen
 * changed: frames and counters of an earlier session mean nothing now). NULL
 * when memory is short: the marks are then skipped.
 */
static FSP__COLD struct fsp_v2_stack *fsp__v2_acquire(uint64_t sp)
{
	struct fsp_v2_stack *s = fsp__v2_self;
	uint32_t gen = *FSP__CAST(volatile uint32_t *, &fsp__v2_rec.gen);

	if (!s) {
		s = FSP__CAST(struct fsp_v2_stack *, fsp__v2_map(sizeof(*s)));
		if (!s)
			return s;
		s->magic = FSP_V2_STACK_MAGIC;
		s->gen = gen;
		s->tid = fsp__v2_gettid();
		s->top_sp = sp;
		if (fsp__v2_rec.key_state == 1)
			pthread_setspecific(fsp__v2_rec.key, s);
		/* The header is whole before a sampler can find the stack. */
		FSP__BARRIER();
		fsp__v2_self = s;
		return s;
	}
	s->depth = 0;
	s->overflow = 0;
	s->busy_sp = 0;
	s->stale = 0;
	s->unmatched = 0;
	s->early = 0;
	s->top_sp = sp;
	s->overflows = 0;
	s->skipped = 0;
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

	f->feature = FSP__PTR_CAST(uintptr_t, feature);
	f->instance = FSP__PTR_CAST(uintptr_t, instance);
	f->payload = payload;
	f->sp_kind = sp_kind;
	f->call = ++s->calls;
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
		s->overflow_sp = sp_kind & ~UINT64_C(7);
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
 * A leave that matched no frame: of a mark entered before the stack's reset
 * (early) if made at or above every mark operation that could show it was
 * not (top_sp), or on another stack; else unmatched.
 */
static FSP__COLD void fsp__v2_no_match(struct fsp_v2_stack *s, uint64_t sp)
{
	if (sp >= s->top_sp || s->top_sp - sp >= FSP_V2_WINDOW) {
		s->early++;
		s->top_sp = sp;
		return;
	}
	s->unmatched++;
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
		    (f->feature == FSP__PTR_CAST(uintptr_t, feature) ||
		     fsp__v2_same_name(FSP__PTR_CAST(const char *, f->feature), feature)))
			break;
	}
	if (k >= d) {
		fsp__v2_no_match(s, sp);
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
	return FSP__CAST(int, d);
}

/* Pushes a mark (kind 0) or an antimark (kind 1) on the thread's stack. */
static FSP__INLINE void fsp__v2_push(const char *feature, const char *instance, uint64_t payload,
				     uint64_t kind)
{
	struct fsp_v2_stack *s = fsp__v2_self;
	uint64_t sp = fsp__v2_sp();
	int d;

	if (__builtin_expect(!s || s->gen != *FSP__CAST(volatile uint32_t *, &fsp__v2_rec.gen),
			     0)) {
		s = fsp__v2_acquire(sp);
		if (!s)
			return;
	}
	d = fsp__v2_begin(s, sp);
	if (__builtin_expect(d < 0, 0))
		return;
	if (__builtin_expect(d < FSP_V2_DEPTH && !s->overflow, 1))
		fsp__v2_put(s, FSP__CAST(uint32_t, d), feature, instance, payload, sp | kind);
	else
		fsp__v2_push_full(s, FSP__CAST(uint32_t, d), feature, instance, payload, sp | kind);
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
	if (__builtin_expect(d != 0 && !s->overflow &&
				     top->feature == FSP__PTR_CAST(uintptr_t, feature) &&
				     (top->sp_kind & 1) == kind,
			     1))
		s->depth = FSP__CAST(uint32_t, d) - 1;
	else
		fsp__v2_pop_slow(s, FSP__CAST(uint32_t, d), feature, kind, sp);
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
		fsp__v2_push(feature, FSP__CAST(const char *, 0), 0, 1);
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
		r->key = key; /* pthread_key_t is unsigned int */
		pthread_atfork(0, 0, fsp__v2_atfork_child);
	}
	__asm__("mov %%fs:0, %0" : "=r"(tp));
	off = FSP__PTR_CAST(char *, &fsp__v2_self) - tp;
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
		pthread_key_delete(fsp__v2_rec.key);
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
	FSP__V2_OP(fsp__v2_enter3(__fsp_w, (feature), (instance), FSP__PAYLOAD(payload)))
#define FSP_MARK_LEAVE(feature, instance, payload)                                                 \
	FSP__V2_OP(fsp__v2_leave3(__fsp_w, (feature), (instance), FSP__PAYLOAD(payload)))
#define FSP_ANTIMARK_ENTER(feature) FSP__V2_OP(fsp__v2_enter1(__fsp_w, (feature)))
#define FSP_ANTIMARK_LEAVE(feature) FSP__V2_OP(fsp__v2_leave1(__fsp_w, (feature)))

#define FSP__ON_MARK() FSP_ENABLED()
#define FSP__ON_ANTIMARK() FSP_ENABLED()
#define FSP__DO_MARK_ENTER(feature, instance, payload)                                             \
	fsp__v2_enter3(FSP__V2_WORD(), feature, instance, payload)
#define FSP__DO_ANTIMARK_ENTER(feature) fsp__v2_enter1(FSP__V2_WORD(), feature)

#endif /* FSP_ABI_V2_H */
