/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The kernel side's state: the internal structs (a thread's mark stack and
 * its caches, the off-CPU record, the scratch buffers) and every map, shared
 * by all the programs.
 */
#ifndef FSP_MAPS_BPF_H
#define FSP_MAPS_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "profiler.h"

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
	__u32 flags; /* TF_* */
	__u64 call; /* the thread's call number of this enter (tstack.calls) */
};

/* tframe.flags */
#define TF_MUTED 1 /* an enter a "when" muted: kind ANTIMARK, closed by the feature's leave */
#define TF_HAS_PAYLOAD 2 /* a frame of [0..this] has a non-zero payload */
/* An ABI v1 site of an ABI v2 file (--events): the frame serves the event view
 * only; never sampled, and its hash is that of the frame below. */
#define TF_SHADOW 4
/* A frame a forked child has of its parent's, which the child does not run
 * (--inherit-marks not given): never sampled, its hash that of the frame
 * below, left by the child's leave without a word. */
#define TF_INHERITED 16
/* A frame of [0..this] has an instance read at sample time (FSP_ID_SAMPLED,
 * "label sample"): the sampler resolves it (samplelabel.bpf.h). */
#define TF_HAS_SAMPLED 32
/* Frames the sampler leaves out. */
#define TF_UNSAMPLED (TF_SHADOW | TF_INHERITED)
#define TF_CHARGE_SHIFT 8 /* bits 8..11: the charges slots this frame holds (charge.bpf.h) */

/* do_enter()'s kind for a muted enter (stored as an antimark with TF_MUTED). */
#define KIND_MUTED 4
/* do_enter()'s sp_off for a mark bound to no stack frame ("frame none"): its
 * sp is the highest address, never below a thread's stack pointer. */
#define SP_UNFRAMED (~0ULL)

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
	__u64 at_ts; /* when its latest switch-out or switch-in was seen */
	__u64 at_cpu; /* its CPU time then (se.sum_exec_runtime, ns) */
	__u64 off_stored; /* latest hash known to be in the stacks map */
	__u32 spill; /* array slots: a thread with this index is in offcpu_spill */
	__u32 acc_next; /* acc_entry()'s next victim */
	struct acc_entry acc[OFFCPU_ACC]; /* off-CPU time not yet in counts */
};

/*
 * What the sampler knows of a thread's ABI v2 stacks, kept in its task storage
 * beside the ABI v1 stack (one lookup gives both): a copy of its process's
 * records (v2_procs), valid while the global v2_epoch has not moved (every
 * registration moves it), and where each record's stack of this thread is
 * (0: not known yet; checked against the stack's tid at each read).
 */
struct v2_cache {
	__u64 epoch;
	__u32 nr;
	__u32 unwinds; /* v2_unwinds holds records of this thread */
	__u32 forked; /* v2_forks holds its parent's frames (a forked child) */
	__u32 pad;
	struct fsp_v2_dso dso[FSP_V2_MAX_DSOS];
	__u64 stack[FSP_V2_MAX_DSOS];
};

struct tstack {
	struct lcache_entry lcache[LCACHE_SIZE];
	struct ecache_entry ecache[ECACHE_SIZE];
	__u32 depth;
	__u32 overflow; /* enters beyond max_depth not yet left */
	__u64 overflow_sp; /* sp of the shallowest overflowed enter */
	/* The alternate signal stack a probe of the thread last saw (size 0:
	 * none), for handlers that run with the task's cleared (SS_AUTODISARM). */
	__u64 alt_sp;
	__u64 alt_size;
	__u32 charging; /* the charges slots this thread holds (a bit each) */
	__u32 pad;
	__u64 stored[2]; /* hashes of stacks of the thread already in the stacks map */
	__u64 calls; /* enters pushed so far: the next frame's call number is one more */
	__u64 top_sp; /* the highest stack pointer of the thread's probes (above_seen) */
	struct v2_cache v2;
	struct tframe f[FSP_MAX_DEPTH];
};

/* A suspended coroutine's frames (the parked map). */
struct park_key {
	__u64 tgid;
	__u64 ctx; /* address of the ucontext_t the frames were saved with */
};

struct parked {
	__u32 depth;
	__u32 overflow;
	__u64 overflow_sp;
	struct tframe f[FSP_MAX_DEPTH];
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct tstack);
} tstacks SEC(".maps");

/* A thread's ABI v2 stack in one DSO, as usdt/fsp_abi_v2.h lays it out in the
 * process's memory (struct fsp_v2_stack, struct fsp_v2_frame there). */
struct v2_frame {
	__u64 feature;
	__u64 instance;
	__u64 payload;
	__u64 sp_kind; /* stack pointer at the enter | 1 for an antimark */
	__u64 call; /* the thread's call number (0: a 32-byte frame, no calls) */
};

struct v2_stack {
	__u32 magic;
	__u32 gen;
	__u32 depth;
	__u32 overflow;
	__u64 busy_sp;
	__u64 overflow_sp;
	__u64 stale;
	__u64 unmatched;
	__u32 overflows;
	__u32 skipped;
	__u32 tid;
	__u32 early; /* leaves of marks maybe entered before the reset (fsp.h) */
	struct v2_frame f[FSP_V2_DEPTH];
};
_Static_assert(sizeof(struct v2_stack) == FSP_V2_HEADER + FSP_V2_DEPTH * FSP_V2_FRAME,
	       "fsp.h layout");

/* The stacks one sample merges: the thread's stack of each registered DSO,
 * and (last) the live frames of its ABI v1 stack in the same layout. */
#define MERGE_SOURCES (FSP_V2_MAX_DSOS + 1)

struct merge_buf {
	__u32 depth[MERGE_SOURCES]; /* live frames of each source */
	__u32 head[MERGE_SOURCES]; /* the merge's position in each */
	__u32 best; /* merge_cb's pick so far: kept in memory, see there */
	__u64 payload[FSP_MAX_DEPTH]; /* the merged frames' payloads */
	__u64 sp[FSP_MAX_DEPTH]; /* and their stack pointers (native stacks) */
	__u64 call[FSP_MAX_DEPTH]; /* the merged frames' call numbers */
	struct v2_stack src[MERGE_SOURCES];
};

/* --events=FEATURE,...: shadow sites (by the number in their cookie) that
 * fired for a feature not asked for (userspace detaches them: each hit is a
 * trap), and those that fired for one asked for (they stay). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u8);
} skip_sites SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u8);
} keep_sites SEC(".maps");

/* Sizes below are defaults; userspace resizes every map before load. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, __u64); /* profiler.h: FSP_TARGET_IN, start time */
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

/* The payloads of sampled stacks (struct fsp_payload_rec, depth payloads),
 * aggregated by userspace: stacks are identified without them. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, FSP_PAYLOAD_RB_SIZE);
} payload_rb SEC(".maps");

/* record --calls: the call numbers of each sample (struct fsp_call_rec);
 * userspace shrinks it to a page without --calls. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, FSP_CALLS_RB_SIZE);
} calls_rb SEC(".maps");

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

/* CLOCK_MONOTONIC ns at which userspace last armed a file's marks in running
 * processes (-p, -a; all ones while it arms one); 0: never (a launched
 * command is seen from its first instruction). A thread started before it
 * may have had marks open then, entered unseen. */
__u64 attached_ns;

/* Set by userspace when the session ends, before the probes' links are
 * destroyed (in any order, on threads): from then on no probe counts. A mark
 * entered while its leave's link was already gone would be a stale mark; a
 * leave whose enter's link was, an unmatched one: the detach's own doing,
 * not the target's. */
bool probes_ended;

/* Moves at every change of v2_procs (BPF or userspace, which adds to it
 * through the skeleton's .bss): the threads' v2_cache copies are then stale. */
__u64 v2_epoch;

/* Slots of mark_stats given back: those of exited processes, zeroed by
 * userspace when it retires them (-a), taken once none is left unused. */
struct {
	__uint(type, BPF_MAP_TYPE_QUEUE);
	__uint(max_entries, FSP_DEFAULT_MAX_EVENTS);
	__type(value, __u32);
} free_slots SEC(".maps");

/* A mapped probe's label being assembled: parts are written at offsets up
 * to FSP_LABEL_LEN - 1 and may run FSP_LABEL_LEN bytes past it (cut after). */
struct label_buf {
	struct fsp_label l;
	char spill[FSP_LABEL_LEN + 8];
};

union scratch {
	struct parked parked;
	struct fsp_payload_rec payload;
	struct fsp_call_rec call;
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
	SCRATCH_PAYLOAD, /* the sampler's payload record (send_payloads) */
	SCRATCH_LABEL_SAMPLE, /* labels of ABI v2 frames (v2_copy_labels), per context */
	SCRATCH_LABEL_SWITCH,
	SCRATCH_CALLS, /* the sampler's call record (live_stack_note_calls) */
	SCRATCH_CALLS_SWITCH, /* the scheduler hook's (--calls --off-cpu) */
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

/* ABI v2: the records of each process (tgid -> struct fsp_v2_proc). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct fsp_v2_proc);
} v2_procs SEC(".maps");

/* ABI v2: non-zero counters of each stack seen by the sampler. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, struct fsp_v2_key);
	__type(value, struct fsp_v2_counters);
} v2_counts SEC(".maps");

/*
 * Frames of a thread's ABI v2 stack that an unwinding (longjmp, C++ catch)
 * left dead, recorded by the unwinding hook: the header drops them only at
 * the thread's next mark made above them, and the thread may first call
 * deeper again, where they would look live. Valid while the stack's stale
 * counter has not moved (the header has not pruned since).
 */
#define UNWIND_FRAMES 8

struct v2_unwind {
	__u64 stack; /* the stack's address in the process; 0: none */
	__u64 stale; /* its stale counter at the unwinding */
	__u32 gen;
	__u32 from; /* index of the first dead frame */
	__u32 n; /* dead frames recorded */
	__u32 pad;
	struct v2_frame f[UNWIND_FRAMES];
};

struct v2_unwinds {
	struct v2_unwind u[FSP_V2_MAX_DSOS]; /* by the DSO's index in v2_procs */
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct v2_unwinds);
} v2_unwinds SEC(".maps");

/*
 * A forked child's main thread: the frames its ABI v2 stacks held at the
 * fork, its parent's (from index 0; the child's memory is a copy). Unless
 * --inherit-marks, the sampler leaves out those of them still at their
 * place, frame for frame: the child's own marks start above them (or
 * where it left them).
 */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct v2_unwinds);
} v2_forks SEC(".maps");

/*
 * A target thread's live mark stack as it exited (taken at sched_process_exit,
 * while its memory is still there): what its samples and off-CPU time after
 * exit_mm are charged to, when its ABI v2 stacks can no longer be read
 * (livestack.bpf.h). Only for threads of processes with ABI v2 records (an ABI
 * v1 stack stays readable in tstacks); freed with the thread.
 */
struct exit_stack {
	__u64 hash; /* 0: no live frame */
	__u32 truncated;
	__u32 payload; /* a live frame has a payload: rec holds them */
	__u32 dropped; /* the stack could not be stored (stacks map full) */
	__u32 pad;
	struct fsp_payload_rec rec;
	struct fsp_call_rec calls; /* record --calls: its frames' call numbers */
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct exit_stack);
} exit_stacks SEC(".maps");

/* Read and merge buffers, per CPU and context (sampler, scheduler hook). */
enum merge_user {
	MERGE_SAMPLE,
	MERGE_SWITCH,
	MERGE_PROBE, /* the unwinding hooks */
	MERGE__COUNT,
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, MERGE__COUNT);
	__type(key, __u32);
	__type(value, struct merge_buf);
} merge_bufs SEC(".maps");

/*
 * The marks of suspended coroutines: when a thread switches stacks with
 * swapcontext(oucp, ucp), the frames it had are parked under (process, oucp)
 * and those parked under (process, ucp) become its own (coro.bpf.h). Only
 * contexts suspended inside a mark take an entry; userspace sizes the map.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, FSP_DEFAULT_MAX_PARKED);
	__type(key, struct park_key);
	__type(value, struct parked);
} parked SEC(".maps");

/* The r_state of each process's link map at its last _dl_debug_state. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, __u32);
} dl_state SEC(".maps");
/* "charge threads": the marks of each process that charge other threads'
 * samples (charge.bpf.h), by tgid. Userspace sizes it (1 without charges). */
#define CHARGE_SLOTS 4

struct charge_slot {
	__u64 tid; /* the thread whose mark it is; 0: free (64 bits: clang's BPF atomics) */
	__u64 seq; /* odd while its owner writes it */
	__u64 feature;
	__u64 instance;
	__u64 len; /* bytes of pat a thread's name must start with */
	__u64 prefix; /* 0: and nothing more */
	char pat[FSP_CHARGE_PAT_LEN];
};

struct charge_proc {
	struct charge_slot s[CHARGE_SLOTS];
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct charge_proc);
} charges SEC(".maps");

/* Function features' variables read at sample time, per process (tgid);
 * FSP_SAMPLE_VAR_PROCS entries when used (loader.c). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fsp_sample_vars);
} sample_vars SEC(".maps");

/* Sites of mapped probes; a site's cookie indexes it. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, struct fsp_map_site);
} map_sites SEC(".maps");

#endif /* FSP_MAPS_BPF_H */
