// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * fsp-bpf kernel side.
 *
 * Four USDT programs keep a mark stack per thread (task-local storage, freed
 * with the thread). A perf-event program on every CPU samples the targeted
 * processes: it takes the live part of the current thread's mark stack and
 * counts (tgid, tid, stack hash), storing each new stack's frames once. All
 * attribution happens in userspace (analysis/).
 *
 * Marks are frame-bound: each frame remembers the user stack pointer at its
 * enter. Once the thread's stack pointer is above it (the entering function
 * returned or was unwound by longjmp/an exception without its leave), the
 * frame is dead: the sampler ignores it and the next probe drops it.
 *
 * The event view (rodata events_enabled) counts every mark's enter and leave
 * and the duration between them, per (process, feature, instance), in a
 * per-CPU array: exact figures for features too short to sample. Nothing is
 * sent per event; userspace reads the sums at the end.
 *
 * Off-CPU time (program on_switch, loaded with --off-cpu only) charges the
 * time a target thread spends switched out to the mark stack it had when it
 * left the CPU, next to the samples in the counts map.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "profiler.h"

#define DEPTH_MASK (FSP_MAX_DEPTH - 1)
_Static_assert((FSP_MAX_DEPTH & DEPTH_MASK) == 0, "FSP_MAX_DEPTH must be a power of two");

#define SIGSTOP 19
#define WRITE_ONCE(x, v) (*(volatile typeof(x) *)&(x) = (v))

/* Index into a stack array in a way the verifier sees bounded: the compiler
 * would drop a plain "& DEPTH_MASK" after its own range checks. */
static __always_inline __u64 slot(__u64 i)
{
	asm volatile("%0 &= 63" : "+r"(i));
	return i;
}
_Static_assert(DEPTH_MASK == 63, "slot() masks with 63");

static __always_inline __u64 slot_label(__u64 i)
{
	asm volatile("%0 &= 255" : "+r"(i));
	return i;
}
_Static_assert(FSP_LABEL_LEN == 256, "slot_label() masks with 255");

/* Configured by userspace before load. */
const volatile __u32 max_depth = FSP_MAX_DEPTH;
/* Frames whose enter sp is below the current sp by less than this are dead;
 * farther apart means another stack (sigaltstack, coroutine): leave alone. */
const volatile __u64 stack_window = 8ULL << 20;
/* -- CMD mode: stop this process at link-map changes so that userspace can
 * attach a new library's probes before any of its code runs. */
const volatile __u32 sync_tgid = 0;
const volatile bool follow_forks = true;
/* The event view: count enters/leaves and durations per mark instance. */
const volatile bool events_enabled = true;
/* Slots of mark_stats (= its max_entries). */
const volatile __u32 max_events = FSP_DEFAULT_MAX_EVENTS;

/* Off-CPU accounting is loaded (on_switch, on_exit, flush_offcpu). */
const volatile bool offcpu_enabled = false;
/* offcpu_recs has offcpu_mask + 1 slots; a thread's is tid & offcpu_mask. */
const volatile __u32 offcpu_mask = 0;
/* -a: probes are attached per file for every process; the first probe a
 * process fires makes it a target (userspace may exclude it: value 0). */
const volatile bool system_wide = false;
/* -a --comm: the names of the processes to profile (none: all). */
const volatile __u32 nr_comms = 0;
const volatile char comms[FSP_MAX_COMMS][FSP_COMM_LEN];

/* mark_stats slot of a frame not counted in the event view. */
#define SLOT_NONE 0xffffffffU

/* A live frame: what is stored plus what the live stack needs. */
struct tframe {
	__u64 feature;
	__u64 instance;
	__u64 payload;
	__u64 kind;
	__u64 fhash; /* hash of the feature name, to match leaves by name */
	__u64 sp; /* user stack pointer at enter */
	__u64 hash; /* hash of frames [0..this] */
	/* Event view (events_enabled): */
	__u64 t_enter; /* bpf_ktime_get_ns() at the enter */
	__u64 anti_ns; /* marks: time under antimarks of the same feature above */
	__u32 slot; /* marks: index in mark_stats, SLOT_NONE if not counted */
	__u32 pad;
};

/* Labels this thread already saw stored in the labels map, direct-mapped by
 * address: saves the map lookups on most enters. */
#define LCACHE_SIZE 8

struct lcache_entry {
	__u64 addr;
	__u64 hash;
};

/* mark_stats slots of the (feature, instance) pairs this thread entered,
 * direct-mapped: saves the mark_ids lookup on most enters. A slot never
 * changes during the session, so entries never go stale. */
#define ECACHE_SIZE 8

struct ecache_entry {
	__u64 feature;
	__u64 instance;
	__u64 slot;
};

/* Off-CPU time accumulated per stack in the thread's off-CPU record (4
 * entries, associative): a thread that blocks with a few different stacks in
 * turn (e.g. preempted inside a mark, then blocked outside it) updates the
 * counts map only when an entry is evicted, exits or the session ends. */
#define OFFCPU_ACC 4

struct acc_entry {
	__u64 hash;
	__u64 ns; /* 0: free */
};

/*
 * A thread's off-CPU state (--off-cpu), apart from its mark stack: an array
 * indexed by thread id (offcpu_mask), and for a thread whose slot another
 * thread holds, the offcpu_spill hash. The scheduler hook finds it with an
 * inlined array read where a task-storage lookup is a helper call: a switch
 * costs one task-storage lookup (the stack of a target thread switched out)
 * instead of two, and a switch of other threads none (they were two).
 */
struct offcpu_rec {
	__u64 owner; /* the thread holding it: tgid << 32 | tid; 0: free */
	__u64 off_ts; /* when the thread was switched out; 0 while it runs */
	__u64 off_hash; /* hash of its live mark stack then (0: empty) */
	__u64 off_stored; /* latest hash known to be in the stacks map */
	__u32 spill; /* array slots: a thread with this index is in offcpu_spill */
	__u32 acc_next; /* acc_entry()'s next victim */
	struct acc_entry acc[OFFCPU_ACC]; /* off-CPU time not yet in counts */
};

struct tstack {
	struct lcache_entry lcache[LCACHE_SIZE];
	struct ecache_entry ecache[ECACHE_SIZE];
	__u32 depth;
	__u32 overflow; /* enters beyond max_depth not yet left */
	__u64 overflow_sp; /* sp of the shallowest overflowed enter */
	struct tframe f[FSP_MAX_DEPTH];
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct tstack);
} tstacks SEC(".maps");

/* Sizes below are defaults; userspace resizes every map before load. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, __u32);
} targets SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, FSP_DEFAULT_MAX_STACKS);
	__type(key, struct fsp_stack_key);
	__type(value, struct fsp_stack);
} stacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, struct fsp_count_key);
	__type(value, struct fsp_count);
} counts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, struct fsp_label_key);
	__type(value, struct fsp_label);
} labels SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, FSP_STAT__COUNT);
	__type(key, __u32);
	__type(value, __u64);
} stats SEC(".maps");

/* Argument layouts of the attached probe sites; a site's cookie indexes it. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, struct fsp_usdt_spec);
} usdt_specs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);
} events SEC(".maps");

/* The event view: (tgid, feature, instance) -> slot of mark_stats. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, FSP_DEFAULT_MAX_EVENTS);
	__type(key, struct fsp_mark_key);
	__type(value, __u32);
} mark_ids SEC(".maps");

/* Per-CPU, so that the hot path updates them without atomics or shared
 * cache lines; userspace sums the CPUs. Sized max_events. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, FSP_DEFAULT_MAX_EVENTS);
	__type(key, __u32);
	__type(value, struct fsp_mark_stats);
} mark_stats SEC(".maps");

/* Slots of mark_stats handed out so far (may exceed max_events: failed
 * attempts count too). */
__u64 nr_mark_slots;

/* A mapped probe's label being assembled: parts are written at offsets up
 * to FSP_LABEL_LEN - 1 and may run FSP_LABEL_LEN bytes past it (cut after). */
struct label_buf {
	struct fsp_label l;
	char spill[FSP_LABEL_LEN + 8];
};

union scratch {
	struct fsp_stack stack;
	struct fsp_label label;
	struct label_buf lb;
};

/*
 * One scratch buffer per CPU and context, because contexts nest on a CPU:
 * the perf-event sampler interrupts probe programs, and the scheduler hook
 * runs while a preempted probe program's buffer is in use.
 */
enum scratch_user {
	SCRATCH_PROBE,
	SCRATCH_SAMPLE,
	SCRATCH_SWITCH,
	SCRATCH__COUNT,
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, SCRATCH__COUNT);
	__type(key, __u32);
	__type(value, union scratch);
} scratch SEC(".maps");

/* --off-cpu: the threads' off-CPU records (struct offcpu_rec). Userspace sizes
 * the array (a power of two, offcpu_mask + 1) before load. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct offcpu_rec);
} offcpu_recs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct offcpu_rec);
} offcpu_spill SEC(".maps");

static __always_inline void stat_inc(__u32 stat)
{
	__u64 *v = bpf_map_lookup_elem(&stats, &stat);

	if (v)
		(*v)++;
}

static __always_inline void stat_add(__u32 stat, __u64 n)
{
	__u64 *v = bpf_map_lookup_elem(&stats, &stat);

	if (v)
		*v += n;
}

static __always_inline void emit(__u32 type, __u32 pid, __u32 ppid)
{
	struct fsp_event *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);

	if (!e) {
		stat_inc(FSP_STAT_EVENTS_LOST);
		return;
	}
	e->type = type;
	e->pid = pid;
	e->ppid = ppid;
	e->pad = 0;
	bpf_ringbuf_submit(e, 0);
}

/* Is tgid profiled? In the targets map with a non-zero value (0: a process
 * system-wide mode saw and userspace excluded, e.g. by --comm). */
static __always_inline bool is_target(__u32 tgid)
{
	__u32 *v = bpf_map_lookup_elem(&targets, &tgid);

	return v && *v;
}

/* Is the current process's name (its main thread's comm) one of --comm's? */
static __always_inline bool comm_admitted(void)
{
	struct task_struct *task = bpf_get_current_task_btf();
	char comm[FSP_COMM_LEN] = {};
	__u32 i, j;

	if (!nr_comms)
		return true;
	bpf_probe_read_kernel_str(comm, sizeof(comm), task->group_leader->comm);
	for (i = 0; i < FSP_MAX_COMMS; i++) {
		bool same = true;

		if (i >= nr_comms)
			break;
		for (j = 0; j < FSP_COMM_LEN; j++) {
			if (comms[i][j] != comm[j]) {
				same = false;
				break;
			}
			if (!comm[j])
				break;
		}
		if (same)
			return true;
	}
	return false;
}

/*
 * Does a probe of the current process count? Always with -p (links are per
 * process). System-wide, the links are per file: a process becomes a target
 * at its first enter, and userspace hears of it to name it and apply the
 * filters.
 */
static __always_inline bool admit(bool enter)
{
	__u32 tgid, one = 1, zero = 0, *v;

	if (!system_wide)
		return true;
	tgid = bpf_get_current_pid_tgid() >> 32;
	v = bpf_map_lookup_elem(&targets, &tgid);
	if (v)
		return *v;
	if (!enter)
		return false;
	if (!comm_admitted()) {
		bpf_map_update_elem(&targets, &tgid, &zero, BPF_NOEXIST);
		return false;
	}
	if (!bpf_map_update_elem(&targets, &tgid, &one, BPF_NOEXIST))
		emit(FSP_EVENT_NEW_PROC, tgid, 0);
	return true;
}

static __always_inline __u64 mix64(__u64 x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

static __always_inline void *scratch_get(__u32 user)
{
	return bpf_map_lookup_elem(&scratch, &user);
}

struct fnv_ctx {
	const char *str;
	__u64 hash;
};

static long fnv_cb(__u64 i, void *data)
{
	struct fnv_ctx *c = data;
	char ch;

	if (i >= FSP_LABEL_LEN)
		return 1;
	ch = c->str[slot_label(i)];
	if (!ch)
		return 1;
	c->hash = (c->hash ^ (__u8)ch) * 0x100000001b3ULL;
	return 0;
}

/*
 * The label at addr in the current process: copied once on first sight (the
 * ABI promises static storage), so that userspace can name it even after the
 * target exited. Returns the hash of the string, used to match features by
 * name when two call sites pass different pointers to equal strings.
 */
static __u64 label_hash(__u32 tgid, __u64 addr)
{
	struct fsp_label_key key = {.tgid = tgid, .addr = addr};
	struct fnv_ctx fc = {.hash = 0xcbf29ce484222325ULL};
	struct fsp_label *l;
	long len;

	if (addr & FSP_ID_SYNTH)
		return mix64(addr); /* a mapped probe's: no string in the target */
	l = bpf_map_lookup_elem(&labels, &key);
	if (l)
		return l->hash;
	l = scratch_get(SCRATCH_PROBE);
	if (!l)
		return mix64(addr);
	len = bpf_probe_read_user_str(l->str, sizeof(l->str), (const void *)addr);
	if (len <= 0) {
		/* Not paged in: userspace reads it later from /proc/PID/mem. */
		stat_inc(FSP_STAT_LABEL_ERRORS);
		l->len = 0;
		l->str[0] = 0;
		l->hash = mix64(addr);
	} else {
		fc.str = l->str;
		bpf_loop(len, fnv_cb, &fc, 0);
		l->len = len - 1;
		l->hash = fc.hash;
	}
	if (bpf_map_update_elem(&labels, &key, l, BPF_NOEXIST) &&
	    !bpf_map_lookup_elem(&labels, &key))
		stat_inc(FSP_STAT_LABEL_ERRORS);
	return l->hash;
}

/* label_hash() through the thread's cache (the process id is needed, and
 * fetched, on a miss only). */
static __always_inline __u64 label_hash_cached(struct tstack *st, __u64 addr)
{
	struct lcache_entry *e = &st->lcache[(addr >> 3) & (LCACHE_SIZE - 1)];

	if (e->addr == addr && addr)
		return e->hash;
	e->hash = label_hash(bpf_get_current_pid_tgid() >> 32, addr);
	e->addr = addr;
	return e->hash;
}

static __always_inline bool is_stale(__u64 frame_sp, __u64 sp)
{
	return frame_sp < sp && sp - frame_sp < stack_window;
}

struct live_ctx {
	const struct tstack *st;
	__u64 sp;
	__u32 depth;
};

static long live_cb(__u64 n, void *data)
{
	struct live_ctx *c = data;
	__u32 d = c->depth;

	if (d == 0 || d > FSP_MAX_DEPTH || !is_stale(c->st->f[slot(d - 1)].sp, c->sp))
		return 1;
	c->depth = d - 1;
	return 0;
}

/* Number of frames still live when the thread's stack pointer is sp. Dead
 * frames are always on top: a frame is pushed only after pruning. */
static __always_inline __u32 live_depth(const struct tstack *st, __u64 sp)
{
	struct live_ctx c = {.st = st, .sp = sp, .depth = st->depth};

	if (c.depth && c.depth <= FSP_MAX_DEPTH && is_stale(st->f[slot(c.depth - 1)].sp, sp))
		bpf_loop(c.depth, live_cb, &c, 0);
	return c.depth;
}

/* Drops the frames whose stack frame is gone; called on every probe. */
static __always_inline void prune(struct tstack *st, __u64 sp)
{
	__u32 d = live_depth(st, sp);

	if (d != st->depth) {
		stat_add(FSP_STAT_STALE_MARKS, st->depth - d);
		st->depth = d;
	}
	if (st->overflow && is_stale(st->overflow_sp, sp)) {
		stat_inc(FSP_STAT_STALE_MARKS);
		st->overflow = 0;
	}
}

static __always_inline __u64 frame_hash(__u64 prev, const struct tframe *f)
{
	__u64 h = mix64(prev + f->feature);

	h = mix64(h + f->instance);
	h = mix64(h + f->payload);
	h = mix64(h + f->kind);
	return h ? h : 1;
}

static __always_inline struct tstack *tstack_get(bool create)
{
	struct task_struct *task = bpf_get_current_task_btf();

	return bpf_task_storage_get(&tstacks, task, NULL,
				    create ? BPF_LOCAL_STORAGE_GET_F_CREATE : 0);
}

/* ---- the event view ---------------------------------------------------- */

/* The mark_stats slot of (tgid, feature, instance), allocated on first sight;
 * SLOT_NONE when the map is full. A subprogram: the cached path avoids it. */
static __noinline __u32 mark_slot_lookup(__u64 feature, __u64 instance)
{
	struct fsp_mark_key key = {
		.tgid = bpf_get_current_pid_tgid() >> 32,
		.feature = feature,
		.instance = instance,
	};
	__u32 *v = bpf_map_lookup_elem(&mark_ids, &key), id;

	if (v)
		return *v;
	if (nr_mark_slots >= max_events)
		return SLOT_NONE;
	id = __sync_fetch_and_add(&nr_mark_slots, 1);
	if (id >= max_events)
		return SLOT_NONE;
	if (bpf_map_update_elem(&mark_ids, &key, &id, BPF_NOEXIST)) {
		/* Another thread of the process inserted it first: its slot wins
		 * (ours is never read). Or mark_ids is full. */
		v = bpf_map_lookup_elem(&mark_ids, &key);
		return v ? *v : SLOT_NONE;
	}
	return id;
}

/* mark_slot_lookup() through the thread's cache. */
static __always_inline __u32 mark_slot(struct tstack *st, __u64 feature, __u64 instance)
{
	__u64 h = (feature * 0x9e3779b97f4a7c15ULL + instance) * 0x9e3779b97f4a7c15ULL;
	struct ecache_entry *e = &st->ecache[h >> 61];
	__u32 id;

	_Static_assert(ECACHE_SIZE == 8, "mark_slot() indexes with 3 bits");
	if (e->feature == feature && e->instance == instance && feature)
		return e->slot;
	id = mark_slot_lookup(feature, instance);
	if (id != SLOT_NONE) {
		e->feature = feature;
		e->instance = instance;
		e->slot = id;
	}
	return id;
}

/* Counts a mark's enter; returns its slot for the leave. */
static __always_inline __u32 count_enter(struct tstack *st, __u64 feature, __u64 instance)
{
	__u32 id = mark_slot(st, feature, instance);
	struct fsp_mark_stats *ms;

	ms = id != SLOT_NONE ? bpf_map_lookup_elem(&mark_stats, &id) : NULL;
	if (!ms) {
		stat_inc(FSP_STAT_EVENT_DROPS);
		return SLOT_NONE;
	}
	ms->enters++;
	return id;
}

/* floor(log2(ns)) clamped to the histogram, without a loop; 0 for ns < 2. */
static __always_inline __u32 hist_bucket(__u64 ns)
{
	__u32 b = 0;

	if (ns >> 32) {
		ns >>= 32;
		b += 32;
	}
	if (ns >> 16) {
		ns >>= 16;
		b += 16;
	}
	if (ns >> 8) {
		ns >>= 8;
		b += 8;
	}
	if (ns >> 4) {
		ns >>= 4;
		b += 4;
	}
	if (ns >> 2) {
		ns >>= 2;
		b += 2;
	}
	if (ns >> 1)
		b += 1;
	return b < FSP_HIST_BUCKETS ? b : FSP_HIST_BUCKETS - 1;
}

/* A mark's frame was left at `now`: its duration, minus the time spent under
 * its feature's antimarks, goes to its instance's statistics. A subprogram:
 * the histogram's branches stay out of the callers' verification. */
static __noinline void count_leave(__u32 id, __u64 t_enter, __u64 anti_ns, __u64 now)
{
	struct fsp_mark_stats *ms = bpf_map_lookup_elem(&mark_stats, &id);
	__u64 ns = now - t_enter;

	if (!ms)
		return;
	ns = ns > anti_ns ? ns - anti_ns : 0;
	ms->leaves++;
	ms->total_ns += ns;
	if (ns > ms->max_ns)
		ms->max_ns = ns;
	ms->hist[hist_bucket(ns)]++;
}

static __always_inline int do_enter(struct pt_regs *ctx, __u64 kind, __u64 feature, __u64 instance,
				    __u64 payload, __u64 sp_off)
{
	__u64 sp = PT_REGS_SP(ctx);
	struct tstack *st;
	struct tframe *f;
	__u32 d, id = SLOT_NONE;

	stat_inc(FSP_STAT_PROBE_HITS);
	st = tstack_get(true);
	if (!st) {
		stat_inc(FSP_STAT_NO_STORAGE);
		return 0;
	}
	prune(st, sp);
	if (events_enabled && kind == FSP_FRAME_MARK)
		id = count_enter(st, feature, instance);
	d = st->depth;
	if (d >= max_depth || d >= FSP_MAX_DEPTH || st->overflow) {
		if (!st->overflow)
			st->overflow_sp = sp + sp_off;
		st->overflow++;
		stat_inc(FSP_STAT_OVERFLOWS);
		return 0;
	}
	f = &st->f[slot(d)];
	f->feature = feature;
	f->instance = instance;
	f->payload = payload;
	f->kind = kind;
	f->sp = sp + sp_off;
	f->fhash = label_hash_cached(st, feature);
	if (instance)
		label_hash_cached(st, instance);
	f->hash = frame_hash(d ? st->f[slot(d - 1)].hash : 0, f);
	if (events_enabled) {
		f->slot = id;
		f->anti_ns = 0;
		/* Last: the enter's own bookkeeping is not part of the duration. */
		f->t_enter = bpf_ktime_get_ns();
	}
	st->depth = d + 1;
	return 0;
}

struct leave_ctx {
	struct tstack *st;
	__u64 kind;
	__u64 feature;
	__u64 fhash;
	__u64 instance; /* match: the instance the frame must have */
	__u32 depth;
	__u32 found; /* index of the matching frame, or depth when none */
	__u32 match; /* also match the instance (mapped "match instance") */
};

static __always_inline bool same_feature(const struct tframe *f, __u64 feature, __u64 fhash)
{
	return f->feature == feature || f->fhash == fhash;
}

/* bpf_loop callback: visits frames top-down, stops at the first frame of the
 * same kind whose feature is the same pointer or the same name (and, when
 * matching instances, whose instance is the leave's). */
static long find_cb(__u64 n, void *data)
{
	struct leave_ctx *c = data;
	__u32 i = c->depth - 1 - (__u32)n;
	struct tframe *f;

	if (i >= FSP_MAX_DEPTH)
		return 1;
	f = &c->st->f[slot(i)];
	if (f->kind == c->kind && same_feature(f, c->feature, c->fhash) &&
	    (!c->match || f->instance == c->instance)) {
		c->found = i;
		return 1;
	}
	return 0;
}

/* bpf_loop callback: moves frame found+1+n down by one and rehashes it. */
static long shift_cb(__u64 n, void *data)
{
	struct leave_ctx *c = data;
	__u32 j = c->found + (__u32)n;
	struct tframe *dst;

	if (j + 1 >= FSP_MAX_DEPTH)
		return 1;
	dst = &c->st->f[slot(j)];
	*dst = c->st->f[slot(j + 1)];
	dst->hash = frame_hash(j ? c->st->f[slot(j - 1)].hash : 0, dst);
	return 0;
}

struct below_ctx {
	struct tstack *st;
	__u64 feature;
	__u64 fhash;
	__u32 from;
	__u32 found; /* index of the frame found, or `from` when none */
};

/* bpf_loop callback: visits the frames below `from` top-down, stops at the
 * first one of the same feature (either kind). */
static long below_cb(__u64 n, void *data)
{
	struct below_ctx *c = data;
	__u32 j = c->from - 1 - (__u32)n;
	struct tframe *f;

	if (j >= FSP_MAX_DEPTH)
		return 1;
	f = &c->st->f[slot(j)];
	if (f->feature == c->feature || f->fhash == c->fhash) {
		c->found = j;
		return 1;
	}
	return 0;
}

/*
 * Antimark frame i was left after ns: that time is not the feature's, so it
 * is taken off the nearest mark of the same feature below it. When the nearest
 * frame of that feature is an outer antimark, the outer one covers the time.
 */
static __always_inline void antimark_left(struct tstack *st, __u32 i, __u64 ns)
{
	struct tframe *a = &st->f[slot(i)], *m;
	struct below_ctx c = {.st = st, .feature = a->feature, .fhash = a->fhash, .from = i};

	if (i == 0 || i >= FSP_MAX_DEPTH)
		return;
	/* Fast path: the frame right below, as in a loop body inside its loop. */
	m = &st->f[slot(i - 1)];
	if (m->feature == c.feature || m->fhash == c.fhash) {
		c.found = i - 1;
	} else {
		c.found = i;
		bpf_loop(i, below_cb, &c, 0);
		if (c.found >= i)
			return;
		m = &st->f[slot(c.found)];
	}
	if (m->kind == FSP_FRAME_MARK)
		m->anti_ns += ns;
}

/* Frame i is being popped by its leave at `now` (event view). */
static __always_inline void frame_left(struct tstack *st, __u32 i, __u64 now)
{
	struct tframe *f = &st->f[slot(i)];

	if (f->kind != FSP_FRAME_MARK)
		antimark_left(st, i, now - f->t_enter);
	else if (f->slot != SLOT_NONE)
		count_leave(f->slot, f->t_enter, f->anti_ns, now);
}

static __always_inline int do_leave(struct pt_regs *ctx, __u64 kind, __u64 feature, __u64 instance,
				    bool match)
{
	/* First: the leave's own bookkeeping is not part of the duration. */
	__u64 now = events_enabled ? bpf_ktime_get_ns() : 0;
	struct leave_ctx c = {
		.kind = kind, .feature = feature, .instance = instance, .match = match};
	struct tstack *st;
	__u32 d;

	stat_inc(FSP_STAT_PROBE_HITS);
	st = tstack_get(false);
	if (!st) {
		stat_inc(FSP_STAT_UNMATCHED_LEAVES);
		return 0;
	}
	prune(st, PT_REGS_SP(ctx));
	if (st->overflow) {
		st->overflow--;
		return 0;
	}
	d = st->depth;
	if (d > FSP_MAX_DEPTH)
		return 0;
	/* Fast path: the top frame, same pointer. */
	if (d && st->f[slot(d - 1)].feature == feature && st->f[slot(d - 1)].kind == kind &&
	    (!match || st->f[slot(d - 1)].instance == instance)) {
		if (events_enabled)
			frame_left(st, d - 1, now);
		st->depth = d - 1;
		return 0;
	}
	c.st = st;
	c.depth = d;
	c.found = d;
	c.fhash = label_hash_cached(st, feature);
	bpf_loop(d, find_cb, &c, 0);
	if (c.found >= d) {
		stat_inc(FSP_STAT_UNMATCHED_LEAVES);
		return 0;
	}
	if (events_enabled)
		frame_left(st, c.found, now);
	if (match) {
		/* A leave matched by instance closes what was entered after its
		 * frame too: a callee cannot outlive its caller, so frames above
		 * missed their leave (an error path, a generator's yield). */
		stat_add(FSP_STAT_STALE_MARKS, d - 1 - c.found);
		st->depth = c.found;
		return 0;
	}
	/* Keep the frames above it: independent features may leave out of order. */
	bpf_loop(d - 1 - c.found, shift_cb, &c, 0);
	st->depth = d - 1;
	return 0;
}

/* A register of the probed context by its pt_regs offset: direct context
 * loads at constant offsets, much cheaper than bpf_probe_read_kernel(). */
#define CTX_LOAD(off)                                                                              \
	case off:                                                                                  \
		asm volatile("%0 = *(u64 *)(%1 + " #off ")" : "=r"(*val) : "r"(ctx));              \
		return 0

static __always_inline int read_reg(struct pt_regs *ctx, __u64 off, __u64 *val)
{
	/* Inline asm: the compiler would fold the cases into ctx + off, and the
	 * verifier accepts context loads at constant offsets only. */
	switch (off) {
		CTX_LOAD(0);
		CTX_LOAD(8);
		CTX_LOAD(16);
		CTX_LOAD(24);
		CTX_LOAD(32);
		CTX_LOAD(40);
		CTX_LOAD(48);
		CTX_LOAD(56);
		CTX_LOAD(64);
		CTX_LOAD(72);
		CTX_LOAD(80);
		CTX_LOAD(88);
		CTX_LOAD(96);
		CTX_LOAD(104);
		CTX_LOAD(112);
		CTX_LOAD(152);
	}
	return -1;
}

/* Reads argument n of the probe that fired, wherever the compiler put it. */
static __always_inline int usdt_arg(struct pt_regs *ctx, const struct fsp_usdt_spec *spec, __u32 n,
				    __u64 *out)
{
	const struct fsp_usdt_arg *a;
	__u64 val = 0, size, shift;

	if (n >= spec->nr_args || n >= FSP_USDT_MAX_ARGS)
		return -1;
	a = &spec->args[n];
	switch (a->type) {
	case FSP_ARG_CONST:
		val = a->val_off;
		break;
	case FSP_ARG_REG:
		if (read_reg(ctx, a->reg_off, &val))
			return -1;
		break;
	case FSP_ARG_REG_DEREF:
		if (read_reg(ctx, a->reg_off, &val))
			return -1;
		size = a->size;
		if (size == 0 || size > 8)
			return -1;
		if (bpf_probe_read_user(&val, size, (void *)(val + a->val_off)))
			return -1;
		break;
	default:
		return -1;
	}
	/* Keep the low `size` bytes, sign-extended for signed arguments. */
	shift = 64 - 8 * (a->size & 0xf);
	if (shift && shift < 64) {
		if (a->is_signed)
			val = (__u64)((__s64)(val << shift) >> shift);
		else
			val = (val << shift) >> shift;
	}
	*out = val;
	return 0;
}

static __always_inline const struct fsp_usdt_spec *usdt_spec(struct pt_regs *ctx)
{
	__u32 id = bpf_get_attach_cookie(ctx);

	return bpf_map_lookup_elem(&usdt_specs, &id);
}

SEC("uprobe")
int mark_enter(struct pt_regs *ctx)
{
	const struct fsp_usdt_spec *spec = usdt_spec(ctx);
	__u64 feature, instance, payload;

	if (!admit(true))
		return 0;

	if (!spec || usdt_arg(ctx, spec, 0, &feature) || usdt_arg(ctx, spec, 1, &instance) ||
	    usdt_arg(ctx, spec, 2, &payload)) {
		stat_inc(FSP_STAT_ARG_ERRORS);
		return 0;
	}
	return do_enter(ctx, FSP_FRAME_MARK, feature, instance, payload, 0);
}

SEC("uprobe")
int mark_leave(struct pt_regs *ctx)
{
	const struct fsp_usdt_spec *spec = usdt_spec(ctx);
	__u64 feature;

	if (!admit(false))
		return 0;

	if (!spec || usdt_arg(ctx, spec, 0, &feature)) {
		stat_inc(FSP_STAT_ARG_ERRORS);
		return 0;
	}
	return do_leave(ctx, FSP_FRAME_MARK, feature, 0, false);
}

SEC("uprobe")
int antimark_enter(struct pt_regs *ctx)
{
	const struct fsp_usdt_spec *spec = usdt_spec(ctx);
	__u64 feature;

	if (!admit(true))
		return 0;

	if (!spec || usdt_arg(ctx, spec, 0, &feature)) {
		stat_inc(FSP_STAT_ARG_ERRORS);
		return 0;
	}
	return do_enter(ctx, FSP_FRAME_ANTIMARK, feature, 0, 0, 0);
}

SEC("uprobe")
int antimark_leave(struct pt_regs *ctx)
{
	const struct fsp_usdt_spec *spec = usdt_spec(ctx);
	__u64 feature;

	if (!admit(false))
		return 0;

	if (!spec || usdt_arg(ctx, spec, 0, &feature)) {
		stat_inc(FSP_STAT_ARG_ERRORS);
		return 0;
	}
	return do_leave(ctx, FSP_FRAME_ANTIMARK, feature, 0, false);
}

/* ---- mapped probes (--map) ------------------------------------------------ */

/* Sites of mapped probes; a site's cookie indexes it. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, struct fsp_map_site);
} map_sites SEC(".maps");

/* The mapped site that fired (its cookie), NULL if unknown. */
static __always_inline const struct fsp_map_site *map_site(struct pt_regs *ctx)
{
	__u32 id = bpf_get_attach_cookie(ctx);

	return bpf_map_lookup_elem(&map_sites, &id);
}

/* Appends a literal part at off; returns the bytes written. */
static __always_inline __u32 put_lit(char *dst, const struct fsp_map_part *p)
{
	__u64 n = p->len;

	/* The verifier wants the size's bounds in the register it gets. */
	asm volatile("%0 &= 31" : "+r"(n));
	_Static_assert(FSP_MAP_LIT_LEN == 32, "put_lit() masks with 31");
	if (p->len >= FSP_MAP_LIT_LEN)
		return 0;
	if (bpf_probe_read_kernel(dst, n, p->lit))
		return 0;
	return n;
}

/* Appends a string argument (at most FSP_LABEL_LEN - 1 bytes, the rest is
 * cut when the label is finished); returns the bytes written. */
static __always_inline __u32 put_str(struct pt_regs *ctx, const struct fsp_usdt_spec *spec,
				     __u32 arg, char *dst)
{
	__u64 ptr;
	long n;

	if (usdt_arg(ctx, spec, arg, &ptr)) {
		stat_inc(FSP_STAT_ARG_ERRORS);
		return 0;
	}
	n = ptr ? bpf_probe_read_user_str(dst, FSP_LABEL_LEN, (const void *)ptr) : 0;
	if (n <= 0) {
		/* NULL, or not readable now (a page the process never touched:
		 * a probe cannot fault it in): a visible placeholder, counted. */
		if (ptr)
			stat_inc(FSP_STAT_LABEL_DROPS);
		dst[0] = '?';
		return 1;
	}
	return n - 1;
}

/* Appends an integer argument in decimal; returns the bytes written. */
static __noinline __u32 put_int(struct pt_regs *ctx, const struct fsp_usdt_spec *spec, __u32 arg,
				char *dst)
{
	char digits[24];
	__u64 v, u;
	__u32 n = 0, i;
	bool neg;

	if (usdt_arg(ctx, spec, arg, &v) || arg >= FSP_USDT_MAX_ARGS) {
		stat_inc(FSP_STAT_ARG_ERRORS);
		return 0;
	}
	neg = spec->args[arg].is_signed && (__s64)v < 0;
	u = neg ? -v : v;
	for (i = 0; i < 20; i++) {
		digits[23 - i] = '0' + u % 10;
		u /= 10;
		n = i + 1;
		if (!u)
			break;
	}
	if (neg) {
		digits[23 - n] = '-';
		n++;
	}
	if (n > 21 || bpf_probe_read_kernel(dst, n, &digits[24 - n]))
		return 0;
	return n;
}

/* Appends the string a global `char *` of the probed file points to: its
 * address there plus the file's load bias (the site's address now minus its
 * link-time address). Returns the bytes written. */
static __always_inline __u32 put_global(struct pt_regs *ctx, const struct fsp_map_site *ms,
					const struct fsp_map_part *p, char *dst)
{
	__u64 bias = PT_REGS_IP(ctx) - ms->site_vaddr, ptr = 0;
	long n = 0;

	if (!bpf_probe_read_user(&ptr, sizeof(ptr), (const void *)(p->addr + bias)) && ptr)
		n = bpf_probe_read_user_str(dst, FSP_LABEL_LEN, (const void *)ptr);
	if (n <= 0) {
		if (ptr)
			stat_inc(FSP_STAT_LABEL_DROPS);
		dst[0] = '?';
		return 1;
	}
	return n - 1;
}

/* Appends one part of a template; returns the bytes written. A subprogram:
 * verified once per part, not once per combination of the parts' types. */
static __noinline __u32 put_part(struct pt_regs *ctx, const struct fsp_map_site *ms,
				 const struct fsp_map_part *p, char *dst)
{
	switch (p->type) {
	case FSP_PART_LIT:
		return put_lit(dst, p);
	case FSP_PART_STR:
		return put_str(ctx, &ms->spec, p->arg, dst);
	case FSP_PART_INT:
		return put_int(ctx, &ms->spec, p->arg, dst);
	case FSP_PART_GLOBAL:
		return put_global(ctx, ms, p, dst);
	}
	return 0;
}

/*
 * The instance of a mapped probe: its template's parts (literals, string and
 * integer arguments) joined into a label of at most FSP_LABEL_LEN - 1 bytes,
 * identified by a hash of its bytes so that equal labels are one instance,
 * whatever buffer the strings came from. With store, a new label is copied
 * to the labels map (under tgid 0: shared by all processes).
 */
static __noinline __u64 map_label(struct pt_regs *ctx, const struct fsp_map_site *ms, bool store)
{
	struct fsp_label_key key = {};
	struct label_buf *b = scratch_get(SCRATCH_PROBE);
	__u64 h = 0xcbf29ce484222325ULL, off = 0, nr;
	__u32 i;

	if (!b)
		return 0;
	nr = ms->nr_parts;
#pragma unroll
	for (i = 0; i < FSP_MAP_MAX_PARTS; i++) {
		if (i >= nr || off >= FSP_LABEL_LEN - 1)
			break;
		off += put_part(ctx, ms, &ms->parts[i], b->l.str + slot_label(off));
	}
	if (off > FSP_LABEL_LEN - 1)
		off = FSP_LABEL_LEN - 1;
	/* Zero the bytes after the label up to the next word: the hash reads words. */
	*(__u64 *)(b->l.str + slot_label(off)) = 0;
#pragma unroll
	for (i = 0; i < FSP_LABEL_LEN / 8; i++) {
		if (i * 8 >= off)
			break;
		h = mix64(h ^ *(__u64 *)(b->l.str + i * 8));
	}
	key.addr = FSP_ID_SYNTH | (mix64(h ^ off) & FSP_ID_HASH_MASK);
	if (!store || bpf_map_lookup_elem(&labels, &key))
		return key.addr;
	b->l.len = off;
	b->l.hash = key.addr;
	if (bpf_map_update_elem(&labels, &key, &b->l, BPF_NOEXIST) &&
	    !bpf_map_lookup_elem(&labels, &key))
		stat_inc(FSP_STAT_LABEL_DROPS);
	return key.addr;
}

struct outer_ctx {
	const struct tstack *st;
	__u64 feature;
	__u32 depth;
	__u64 instance;
};

static long outer_cb(__u64 n, void *data)
{
	struct outer_ctx *c = data;
	__u32 i = c->depth - 1 - (__u32)n;
	const struct tframe *f;

	if (i >= FSP_MAX_DEPTH)
		return 1;
	f = &c->st->f[slot(i)];
	if (f->feature == c->feature && f->kind == FSP_FRAME_MARK) {
		c->instance = f->instance;
		return 1;
	}
	return 0;
}

/* The instance of the innermost live mark of feature (0 when none): e.g.
 * PostgreSQL's planning takes the text of the query being planned. */
static __always_inline __u64 outer_instance(struct pt_regs *ctx, __u64 feature)
{
	struct outer_ctx c = {.feature = feature};
	struct tstack *st = tstack_get(false);

	if (!st)
		return 0;
	c.st = st;
	c.depth = live_depth(st, PT_REGS_SP(ctx));
	if (c.depth > FSP_MAX_DEPTH)
		return 0;
	bpf_loop(c.depth, outer_cb, &c, 0);
	return c.instance;
}

SEC("uprobe")
int map_enter(struct pt_regs *ctx)
{
	const struct fsp_map_site *ms = map_site(ctx);
	__u64 instance = 0, payload = 0;

	if (!admit(true))
		return 0;
	if (!ms) {
		stat_inc(FSP_STAT_ARG_ERRORS);
		return 0;
	}
	if (ms->flags & FSP_MAP_OUTER)
		instance = outer_instance(ctx, ms->outer);
	else if (ms->nr_parts)
		instance = map_label(ctx, ms, true);
	if ((ms->flags & FSP_MAP_PAYLOAD) && usdt_arg(ctx, &ms->spec, ms->payload_arg, &payload))
		stat_inc(FSP_STAT_ARG_ERRORS);
	return do_enter(ctx, ms->kind, ms->feature, instance, payload, ms->sp_off);
}

SEC("uprobe")
int map_leave(struct pt_regs *ctx)
{
	const struct fsp_map_site *ms = map_site(ctx);
	__u64 instance = 0;
	bool match;

	if (!admit(false))
		return 0;
	if (!ms) {
		stat_inc(FSP_STAT_ARG_ERRORS);
		return 0;
	}
	match = (ms->flags & FSP_MAP_MATCH_INSTANCE) && ms->nr_parts;
	if (match)
		instance = map_label(ctx, ms, false);
	return do_leave(ctx, ms->kind, ms->feature, instance, match);
}

/* Stores the frames of a live stack the first time it is sampled (or seen
 * switched out); user is the caller's scratch buffer. */
static __always_inline bool store_stack(const struct tstack *st, __u32 depth,
					const struct fsp_stack_key *key, __u32 user)
{
	struct fsp_stack *s;
	__u32 i;

	if (bpf_map_lookup_elem(&stacks, key))
		return true;
	s = scratch_get(user);
	if (!s)
		return false;
	s->depth = depth;
	for (i = 0; i < FSP_MAX_DEPTH; i++) {
		if (i >= depth)
			break;
		s->frames[i].feature = st->f[i].feature;
		s->frames[i].instance = st->f[i].instance;
		s->frames[i].payload = st->f[i].payload;
		s->frames[i].kind = st->f[i].kind;
	}
	if (bpf_map_update_elem(&stacks, key, s, BPF_NOEXIST))
		return bpf_map_lookup_elem(&stacks, key) != NULL;
	return true;
}

SEC("perf_event")
int sample(struct bpf_perf_event_data *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct fsp_count_key ckey = {.tgid = id >> 32, .tid = (__u32)id};
	struct fsp_count *c, fresh = {};
	struct task_struct *task;
	struct tstack *st;
	bool truncated = false;

	if (!ckey.tgid || !is_target(ckey.tgid))
		return 0;
	stat_inc(FSP_STAT_SAMPLES);

	task = bpf_get_current_task_btf();
	st = bpf_task_storage_get(&tstacks, task, NULL, 0);
	if (st) {
		struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(task);
		__u32 d = live_depth(st, BPF_CORE_READ(regs, sp));

		if (d && d <= FSP_MAX_DEPTH) {
			struct fsp_stack_key skey = {.tgid = ckey.tgid};

			ckey.hash = st->f[slot(d - 1)].hash;
			skey.hash = ckey.hash;
			if (!store_stack(st, d, &skey, SCRATCH_SAMPLE))
				stat_inc(FSP_STAT_STACK_DROPS);
		}
		truncated = st->overflow && d == st->depth;
	}
	if (truncated)
		stat_inc(FSP_STAT_TRUNCATED);

	c = bpf_map_lookup_elem(&counts, &ckey);
	if (c) {
		__sync_fetch_and_add(&c->samples, 1);
		if (truncated)
			__sync_fetch_and_add(&c->truncated, 1);
		/* A thread is renamed by exec and by prctl/pthread_setname_np:
		 * keep its latest name (only this thread writes this entry). */
		bpf_get_current_comm(c->comm, sizeof(c->comm));
		c->seen_ns = bpf_ktime_get_ns();
		return 0;
	}
	fresh.samples = 1;
	fresh.truncated = truncated;
	fresh.seen_ns = bpf_ktime_get_ns();
	bpf_get_current_comm(fresh.comm, sizeof(fresh.comm));
	if (bpf_map_update_elem(&counts, &ckey, &fresh, BPF_NOEXIST)) {
		c = bpf_map_lookup_elem(&counts, &ckey);
		if (c)
			__sync_fetch_and_add(&c->samples, 1);
		else
			stat_inc(FSP_STAT_LOST_SAMPLES);
	}
	return 0;
}

/* ---- off-CPU time (--off-cpu) ----------------------------------------------- */

#define TASK_DEAD 0x80 /* prev_state of a thread's final switch-out */
#define PF_KTHREAD 0x00200000 /* task_struct.flags: a kernel thread */

/*
 * The clock of off-CPU intervals: the run queue clock (rq->clock, sched_clock
 * based, ns) of the CPU that task t is on. In sched_switch, __schedule() has
 * just updated it, so it is "now" for the cost of three loads, where
 * bpf_ktime_get_ns() costs ~50 ns on a VM. Both ends of an interval read it in
 * sched_switch, possibly on two CPUs: their clocks agree (x86 with a stable
 * TSC: sched_clock() plus one offset; else within a tick). Reached through
 * the task's CFS run queue (the per-CPU `runqueues` is not a ksym without
 * CONFIG_KALLSYMS_ALL); without CONFIG_FAIR_GROUP_SCHED, ktime throughout.
 */
static __always_inline __u64 sched_now(struct task_struct *t)
{
	if (bpf_core_field_exists(t->se.cfs_rq))
		return t->se.cfs_rq->rq->clock;
	return bpf_ktime_get_ns();
}

/* The off-CPU record of thread tid of process tgid, if it has one. */
static __always_inline struct offcpu_rec *rec_find(__u32 tid, __u32 tgid)
{
	__u64 owner = (__u64)tgid << 32 | tid;
	__u32 i = tid & offcpu_mask;
	struct offcpu_rec *r = bpf_map_lookup_elem(&offcpu_recs, &i);

	if (!r)
		return NULL;
	if (r->owner == owner)
		return r;
	if (!r->spill)
		return NULL;
	r = bpf_map_lookup_elem(&offcpu_spill, &tid);
	return r && r->owner == owner ? r : NULL;
}

/* Adds ns of off-CPU time of thread `task` with stack `hash` to counts. */
static __noinline void charge_offcpu(struct task_struct *task, __u64 hash, __u64 ns)
{
	__u64 now = bpf_ktime_get_ns();
	struct fsp_count_key key = {.tgid = task->tgid, .tid = task->pid, .hash = hash};
	struct fsp_count *c = bpf_map_lookup_elem(&counts, &key), fresh = {};

	if (c) {
		__sync_fetch_and_add(&c->offcpu_ns, ns);
		/* The sampler keeps a running thread's latest name; this one may
		 * seldom run (comm is renamed by exec and prctl). */
		bpf_probe_read_kernel(c->comm, sizeof(c->comm), task->comm);
		c->seen_ns = now;
		return;
	}
	fresh.offcpu_ns = ns;
	fresh.seen_ns = now;
	bpf_probe_read_kernel(fresh.comm, sizeof(fresh.comm), task->comm);
	if (bpf_map_update_elem(&counts, &key, &fresh, BPF_NOEXIST)) {
		c = bpf_map_lookup_elem(&counts, &key);
		if (c)
			__sync_fetch_and_add(&c->offcpu_ns, ns);
		else
			stat_inc(FSP_STAT_OFFCPU_DROPS);
	}
}

/* Moves all of the thread's accumulated off-CPU time to the counts map. */
static __always_inline void flush_acc(struct task_struct *task, struct offcpu_rec *r)
{
	for (int i = 0; i < OFFCPU_ACC; i++) {
		if (!r->acc[i].ns)
			continue;
		charge_offcpu(task, r->acc[i].hash, r->acc[i].ns);
		r->acc[i].ns = 0;
	}
}

/* The record's accumulator entry for stack hash h: the one holding h, else a
 * free one, else (all four hold other stacks) the one after the last used,
 * emptied into the counts map first. Associative, not direct-mapped: a thread
 * that blocks in turn inside and outside a mark (hash 0) would otherwise
 * evict one with the other on every switch when their hashes share a slot. */
static __always_inline struct acc_entry *acc_entry(struct task_struct *task, struct offcpu_rec *r,
						   __u64 h)
{
	struct acc_entry *e = NULL;
	int i;

	for (i = 0; i < OFFCPU_ACC; i++) {
		if (r->acc[i].hash == h && r->acc[i].ns)
			return &r->acc[i];
		if (!e && !r->acc[i].ns)
			e = &r->acc[i];
	}
	if (e)
		return e;
	e = &r->acc[r->acc_next++ & (OFFCPU_ACC - 1)];
	charge_offcpu(task, e->hash, e->ns);
	e->ns = 0;
	return e;
}

/*
 * The thread runs again (or the session ends) at `now`: the time since its
 * switch-out is off-CPU time of the stack it had then. It accumulates in the
 * thread's record, saving a counts lookup on most switches.
 */
static __always_inline void offcpu_end(struct task_struct *task, struct offcpu_rec *r, __u64 now)
{
	__u64 ns = now > r->off_ts ? now - r->off_ts : 0;
	struct acc_entry *e = acc_entry(task, r, r->off_hash);

	r->off_ts = 0;
	e->hash = r->off_hash;
	e->ns += ns; /* an entry holding 0 ns is free */
}

/* A record for target thread t: its array slot if free, else an entry of
 * offcpu_spill (and the slot says so). NULL when both are full. */
static __noinline struct offcpu_rec *rec_claim(struct task_struct *t)
{
	__u32 tid = t->pid, i = tid & offcpu_mask;
	struct offcpu_rec fresh = {.owner = (__u64)t->tgid << 32 | tid}, *r;

	r = bpf_map_lookup_elem(&offcpu_recs, &i);
	if (!r)
		return NULL;
	if (__sync_val_compare_and_swap(&r->owner, 0, fresh.owner) == 0) {
		r->off_ts = 0;
		r->off_stored = 0;
		r->acc_next = 0;
		for (int k = 0; k < OFFCPU_ACC; k++)
			r->acc[k].ns = 0;
		return r;
	}
	r->spill = 1;
	bpf_map_update_elem(&offcpu_spill, &tid, &fresh, BPF_NOEXIST);
	r = bpf_map_lookup_elem(&offcpu_spill, &tid);
	if (!r || r->owner != fresh.owner)
		return NULL;
	return r;
}

/* The thread's record is no longer needed (it exits or execs). */
static __always_inline void rec_release(struct offcpu_rec *r, __u32 tid)
{
	__u32 i = tid & offcpu_mask;
	struct offcpu_rec *slot = bpf_map_lookup_elem(&offcpu_recs, &i);

	if (slot == r)
		WRITE_ONCE(r->owner, 0);
	else
		bpf_map_delete_elem(&offcpu_spill, &tid);
}

/* The record of prev if it is a target thread whose switch-out counts. */
static __always_inline struct offcpu_rec *offcpu_thread(struct task_struct *prev,
							unsigned int prev_state)
{
	__u32 tgid = prev->tgid;
	struct offcpu_rec *r;

	/* The idle task and kernel threads are no targets; a dying thread
	 * never comes back. */
	if (!tgid || (prev_state & TASK_DEAD) || (prev->flags & PF_KTHREAD))
		return NULL;
	r = rec_find(prev->pid, tgid);
	if (r || !is_target(tgid))
		return r;
	r = rec_claim(prev);
	if (!r)
		stat_inc(FSP_STAT_OFFCPU_DROPS);
	return r;
}

/*
 * A target thread leaves the CPU, for whatever reason: it blocks or sleeps
 * (prev_state != 0), or it is preempted while runnable. Until it runs again,
 * its time is off-CPU time of the live mark stack it has now (stored in the
 * stacks map the first time it is seen).
 */
static __always_inline void switch_out(struct task_struct *prev, struct offcpu_rec *r, __u64 now)
{
	struct tstack *st = bpf_task_storage_get(&tstacks, prev, NULL, 0);
	struct fsp_stack_key skey = {.tgid = prev->tgid};
	struct pt_regs *regs;
	__u32 d = 0;

	if (st && st->depth) {
		regs = (struct pt_regs *)bpf_task_pt_regs(prev);
		d = live_depth(st, regs->sp);
	}
	skey.hash = st && d && d <= FSP_MAX_DEPTH ? st->f[slot(d - 1)].hash : 0;
	if (st && skey.hash && skey.hash != r->off_stored) {
		if (store_stack(st, d, &skey, SCRATCH_SWITCH))
			r->off_stored = skey.hash;
		else
			stat_inc(FSP_STAT_STACK_DROPS);
	}
	r->off_hash = skey.hash;
	r->off_ts = now;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(on_switch, bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	struct offcpu_rec *out = offcpu_thread(prev, prev_state);
	struct offcpu_rec *in = next->tgid ? rec_find(next->pid, next->tgid) : NULL;
	__u64 now;

	/* Most switches of the machine concern no target. */
	if (!out && !(in && in->off_ts))
		return 0;
	/* This CPU's clock, read through a target task's run queue (prev and
	 * next are both on it): the idle task's se.cfs_rq need not be this
	 * CPU's, and another CPU's clock can be a whole idle period old. */
	now = sched_now(out ? prev : next);
	if (out)
		switch_out(prev, out, now);
	if (in && in->off_ts)
		offcpu_end(next, in, now);
	return 0;
}

/* A target thread exits: its record goes, its off-CPU time not. */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(on_exit, struct task_struct *p, bool group_dead)
{
	struct offcpu_rec *r = rec_find(p->pid, p->tgid);

	if (r) {
		flush_acc(p, r);
		rec_release(r, p->pid);
	}
	return 0;
}

/*
 * At the end of the session (after on_switch is detached): the threads still
 * switched out get their time so far, and every thread's accumulated time
 * goes to the counts map. Userspace runs this iterator once.
 */
SEC("iter/task")
int flush_offcpu(struct bpf_iter__task *ctx)
{
	struct task_struct *task = ctx->task;
	struct offcpu_rec *r;

	if (!task)
		return 0;
	r = rec_find(task->pid, task->tgid);
	if (!r)
		return 0;
	if (r->off_ts)
		/* This CPU's clock, current within a tick (userspace yields the
		 * CPU right before, which updates it). */
		offcpu_end(task, r, sched_now(bpf_get_current_task_btf()));
	flush_acc(task, r);
	return 0;
}

struct copy_ctx {
	struct tstack *dst;
	const struct tstack *src;
};

static long copy_cb(__u64 i, void *data)
{
	struct copy_ctx *c = data;

	if (i >= c->src->depth)
		return 1;
	c->dst->f[slot(i)] = c->src->f[slot(i)];
	/* Its enter was counted for the parent: the child's leave is not. */
	c->dst->f[slot(i)].slot = SLOT_NONE;
	return 0;
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(on_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = parent->tgid, ctgid = child->tgid, one = 1;

	struct tstack *pst, *cst;

	if (!follow_forks || ptgid == ctgid || !is_target(ptgid))
		return 0;
	bpf_map_update_elem(&targets, &ctgid, &one, BPF_ANY);
	/* The child's thread is a copy of the forking thread, stack included:
	 * the features live at the fork stay live in the child. */
	pst = bpf_task_storage_get(&tstacks, parent, NULL, 0);
	if (pst && pst->depth) {
		cst = bpf_task_storage_get(&tstacks, child, NULL, BPF_LOCAL_STORAGE_GET_F_CREATE);
		if (cst) {
			struct copy_ctx c = {.dst = cst, .src = pst};

			cst->overflow = pst->overflow;
			cst->overflow_sp = pst->overflow_sp;
			bpf_loop(FSP_MAX_DEPTH, copy_cb, &c, 0);
			cst->depth = pst->depth;
		}
	}
	emit(FSP_EVENT_FORK, ctgid, ptgid);
	return 0;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(on_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	__u32 tgid = p->tgid;

	if (!is_target(tgid)) {
		/* System-wide: the new program may carry probes; userspace looks. */
		if (system_wide)
			emit(FSP_EVENT_EXEC, tgid, 0);
		return 0;
	}
	/* The old image's marks mean nothing in the new one. */
	bpf_task_storage_delete(&tstacks, p);
	if (offcpu_enabled) {
		/* A thread other than the leader that execs takes the leader's
		 * id: its record under the old id goes (the leader's went with
		 * the leader's exit). */
		struct offcpu_rec *r = rec_find(old_pid, tgid);

		if (r && (__u32)old_pid != (__u32)p->pid) {
			flush_acc(p, r);
			rec_release(r, old_pid);
		}
	}
	emit(FSP_EVENT_EXEC, tgid, 0);
	return 0;
}

/*
 * Non-local exits. The sampler alone sees a dead frame as live again when the
 * thread later calls deeper than that frame, so the points where a thread
 * resumes higher up its stack prune right away.
 *
 * glibc's longjmp(env, val) (also _longjmp, siglongjmp, __longjmp_chk) resumes
 * at the stack pointer setjmp saved in env->__jmpbuf[6], mangled as
 * rol(sp ^ pointer_guard, 17) with the guard at %fs:0x30 (tcbhead_t).
 */
#define JB_RSP 6
#define TCB_POINTER_GUARD 0x30

SEC("uprobe")
int BPF_KPROBE(on_longjmp, void *env)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct tstack *st = bpf_task_storage_get(&tstacks, task, NULL, 0);
	__u64 mangled, guard, sp, fsbase;

	if (!st || (!st->depth && !st->overflow))
		return 0;
	fsbase = BPF_CORE_READ(task, thread.fsbase);
	if (bpf_probe_read_user(&mangled, sizeof(mangled), (__u64 *)env + JB_RSP) ||
	    bpf_probe_read_user(&guard, sizeof(guard), (void *)(fsbase + TCB_POINTER_GUARD)))
		return 0;
	sp = ((mangled >> 17) | (mangled << 47)) ^ guard;
	/* longjmp only goes up the stack; anything else is not a sane jmp_buf. */
	if (sp > PT_REGS_SP(ctx))
		prune(st, sp);
	return 0;
}

/* A C++ handler starts: the catching function called __cxa_begin_catch, so
 * every frame below the caller's stack pointer was unwound by the throw. */
SEC("uprobe")
int BPF_KPROBE(on_catch)
{
	struct tstack *st = tstack_get(false);

	if (st && (st->depth || st->overflow))
		prune(st, PT_REGS_SP(ctx) + 8);
	return 0;
}

/* ld.so calls _dl_debug_state() (the debugger's hook) around every change of
 * the link map: dlopen, dlclose, and once after the startup libraries. */
SEC("uprobe")
int BPF_KPROBE(on_dl_debug_state)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;

	if (!is_target(tgid))
		return 0;
	emit(FSP_EVENT_DLOPEN, tgid, 0);
	if (sync_tgid && tgid == sync_tgid)
		bpf_send_signal_thread(SIGSTOP);
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
