/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The profile model: session metadata, diagnostics and the core samples
 * (each distinct mark stack of a process, with its sample count per thread).
 * Pure C: no libbpf, no kernel. Everything a report shows is computed from this.
 */
#ifndef FSP_ANALYSIS_PROFILE_H
#define FSP_ANALYSIS_PROFILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum profile_frame_kind {
	PROFILE_MARK = 1,
	PROFILE_ANTIMARK = 2,
	/* A mark of another thread of the process that charges this thread's
	 * samples ("charge threads" in a probe map): charged like a mark, and
	 * reported as charged from another thread. Top of the stack. */
	PROFILE_CHARGED = 3,
};

/* One frame of a mark stack, bottom..top order in arrays. */
struct profile_frame {
	int kind; /* enum profile_frame_kind */
	const char *feature; /* never NULL */
	const char *instance; /* NULL when the probe passed NULL (antimarks always) */
	uint64_t payload;
};

/* Diagnostic counters a session reports in its footer. */
enum profile_diag {
	DIAG_LOST_SAMPLES, /* samples the kernel side could not record */
	DIAG_UNKNOWN_STACKS, /* samples whose mark stack could not be stored */
	DIAG_UNMATCHED_LEAVES, /* leaves that matched no enter (but marks entered before the attach) */
	DIAG_OVERFLOWS, /* enters beyond the maximum stack depth */
	DIAG_STALE_MARKS, /* marks dropped because their frame was unwound (longjmp, ...) */
	DIAG_TRUNCATED, /* samples taken while a mark stack had overflowed */
	DIAG_LABEL_ERRORS, /* labels that could not be read from the target */
	DIAG_ARG_ERRORS, /* probe arguments that could not be read */
	DIAG_EVENTS_LOST, /* fork/exec/dlopen notifications lost */
	DIAG_ATTACH_ERRORS, /* probe sites or processes fsp-bpf failed to attach to */
	DIAG_EVENT_DROPS, /* enters (and so their leaves) not counted: the event map was full */
	DIAG_OFFCPU_RECOVERED, /* off-CPU intervals sched_switch reported one end of */
	DIAG_OFFCPU_LOST, /* off-CPU intervals not recorded (--off-cpu) */
	DIAG_CHARGE_DROPS, /* "charge threads" marks that charged no other thread: no slot */
	DIAG_UNTRACKED, /* probe hits of processes not tracked: too many at once */
	DIAG_FOLDED_PROCESSES, /* exited processes folded into one of the same name (-a) */
	DIAG_NATIVE_LOST, /* --stacks: samples whose native stack record was lost (ring full) */
	DIAG_NATIVE_EXITED, /* --stacks: samples of processes gone before their stack was unwound */
	DIAG_NATIVE_FAILED, /* --stacks: samples of which no native frame could be found */
	DIAG_UNREADABLE_STACKS, /* samples with an ABI v2 mark stack that could not be read */
	DIAG_SKIPPED_MARKS, /* ABI v2 marks made while an interrupted mark was in progress */
	DIAG_NATIVE_REPLACED, /* --stacks: samples of programs an exec replaced before unwinding */
	DIAG_SAMPLE_LABEL_ERRORS, /* samples whose sample-time label could not be read */
	DIAG__COUNT,
};

/* Name used in JSON ("lost_samples", ...) and a one-line human description. */
const char *profile_diag__name(enum profile_diag d);
const char *profile_diag__describe(enum profile_diag d);

struct profile_meta {
	const char *target; /* e.g. "pid 1234 (demo)" or "./demo 10" */
	const char *command_line; /* fsp-bpf's own argv, joined by spaces */
	const char *host;
	const char *kernel;
	const char *tool_version;
	/* The marks the session read, comma-separated: "v2" (probe ABI v2
	 * stacks, no traps), "v1" (ABI v1 probes, a trap per mark), "v2-events"
	 * (ABI v2 marks also trapped for exact counts), "mapped" (probe maps).
	 * NULL: not recorded (older files, merges of different sessions). */
	const char *marks;
	/* The function features (funcfeat.h) the profile's native samples were
	 * charged by, as funcfeat__to_text writes them; NULL: none. */
	const char *function_features;
	uint64_t frequency_hz;
	uint64_t period_ns; /* time one sample stands for */
	/* record --events: what one probe hit (a trap into the kernel) cost on
	 * the recording host, measured at the start; 0: not measured. */
	uint64_t event_trap_ns;
	double start_time; /* unix seconds */
	double end_time;
	double duration_s;
};

/* Nanoseconds one sample stands for: period_ns, else the period of
 * frequency_hz (fsp_period_ns), else 0 (unknown). m may be NULL. */
uint64_t profile_meta__period_ns(const struct profile_meta *m);

struct profile;

struct profile *profile__new(void);
void profile__free(struct profile *p); /* NULL-safe */

/* Copies every string of meta (NULL fields stay NULL). The profile's own
 * metadata: for a recording its session, for a merge the merge itself. */
int profile__set_meta(struct profile *p, const struct profile_meta *meta);
const struct profile_meta *profile__meta(const struct profile *p);

/*
 * Sources: the recording sessions a merged profile was made of, each with its
 * own metadata and diagnostics. A single recording has no source records: all
 * its records belong to source 0 and profile__meta describes it. Processes,
 * threads and stacks are identified by (source, pid), so equal PIDs from two
 * hosts or runs stay apart.
 */
struct profile_source {
	const struct profile_meta *meta;
	const uint64_t *diag; /* DIAG__COUNT counters */
};

/* Copies meta (and diag, DIAG__COUNT values, when not NULL). Returns the new
 * source's index (>= 0) or -errno. */
int profile__add_source(struct profile *p, const struct profile_meta *meta, const uint64_t *diag);
size_t profile__nr_sources(const struct profile *p);
int profile__source(const struct profile *p, size_t i, struct profile_source *out);
/* Later add_pid/add_thread/rename_thread/add_stack/add_samples calls record
 * for source i (0 is always accepted; others must exist). */
int profile__use_source(struct profile *p, uint32_t i);

/* Records a profiled process; idempotent. Processes keep the order of their
 * first registration (also by profile__add_thread and profile__add_samples). */
int profile__add_pid(struct profile *p, uint32_t pid);
size_t profile__nr_pids(const struct profile *p);
uint32_t profile__pid(const struct profile *p, size_t i);

struct profile_process {
	uint32_t source;
	uint32_t pid; /* in the profiler's (the host's) PID namespace */
	uint32_t nspid; /* in the process's own PID namespace (a container); 0: unknown or same */
};

int profile__process(const struct profile *p, size_t i, struct profile_process *out);

/*
 * Records the PID process `pid` (of the current source) has in its own PID
 * namespace, when that is not the profiler's (a container): nspid 0 means
 * unknown or the same namespace, and clears an earlier value. Records the
 * process when new, as profile__add_pid. 0 or -errno.
 */
int profile__set_process_nspid(struct profile *p, uint32_t pid, uint32_t nspid);

/* Records a thread and its name (comm may be NULL or ""); idempotent, a later
 * non-empty comm replaces an empty one. Also records the process. */
int profile__add_thread(struct profile *p, uint32_t pid, uint32_t tid, const char *comm);
/* As profile__add_thread, but a non-empty comm replaces any earlier name:
 * for callers that apply a thread's names in the order they were seen. */
int profile__rename_thread(struct profile *p, uint32_t pid, uint32_t tid, const char *comm);

/*
 * Registers the distinct mark stack `key` (non-zero) of process `pid`:
 * frames[0] is the bottom. Strings are interned (copied once). Returns 0,
 * -EEXIST if (pid, key) is already known, -EINVAL (key 0, a frame of unknown
 * kind or with a NULL feature, frames NULL with depth > 0) or -ENOMEM.
 * depth 0 is accepted and behaves as the empty stack.
 */
int profile__add_stack(struct profile *p, uint32_t pid, uint64_t key,
		       const struct profile_frame *frames, size_t depth);

/*
 * Adds `count` samples of thread (pid, tid) taken with mark stack `key`.
 * key 0 is the empty stack. Returns -ENOENT for a key not registered with
 * profile__add_stack for that pid; the samples are then still counted in
 * the total but charged to nothing (unless the stack is registered later:
 * samples are matched to stacks when read). Repeated calls accumulate.
 * Records the thread (without comm) and the process when new.
 */
int profile__add_samples(struct profile *p, uint32_t pid, uint32_t tid, uint64_t key,
			 uint64_t count);

void profile__set_diag(struct profile *p, enum profile_diag d, uint64_t value);
uint64_t profile__diag(const struct profile *p, enum profile_diag d);

/* All samples taken of the profiled processes: the denominator. */
uint64_t profile__total_samples(const struct profile *p);

/* The distinct mark stacks, in registration order: i is the stack's id. */
struct profile_stack {
	uint32_t source;
	uint32_t pid;
	uint64_t key;
	const struct profile_frame *frames; /* NULL when depth is 0 */
	size_t depth;
	unsigned int flags; /* enum profile_stack_flags */
};

enum profile_stack_flags {
	/* The samples of this stack had payloads that the recorder did not
	 * keep (it keeps a bounded sample of the distinct payload vectors):
	 * its frames' payloads are 0 here, not as sampled. Attribution does
	 * not look at payloads; a plug-in that does scales by the stack's
	 * samples kept with payloads (the other stacks of the same frames). */
	PROFILE_STACK_PAYLOADS_LOST = 1,
};

/* The id of stack key of process pid (of the current source, see
 * profile__use_source) in *i (may be NULL). 0 or -ENOENT. */
int profile__find_stack(const struct profile *p, uint32_t pid, uint64_t key, size_t *i);
/* Sets the flags of stack i. 0 or -EINVAL (no such stack, unknown flags). */
int profile__set_stack_flags(struct profile *p, size_t i, unsigned int flags);

size_t profile__nr_stacks(const struct profile *p);
int profile__stack(const struct profile *p, size_t i, struct profile_stack *out);

/* profile_sample.stack of the empty stack and of unknown stacks. */
#define PROFILE_NO_STACK SIZE_MAX

/* Iteration over core samples (in order of first addition), for attribution
 * and writers. Pointers stay valid until the profile is next modified. */
struct profile_sample {
	uint32_t source;
	uint32_t pid;
	uint32_t tid;
	uint64_t key;
	uint64_t count;
	const struct profile_frame *frames; /* NULL when depth is 0 */
	size_t depth;
	int known; /* 0 when key was never registered */
	size_t stack; /* id for profile__stack, PROFILE_NO_STACK if none */
	uint64_t offcpu_ns; /* off-CPU time with this stack (profile__add_offcpu) */
};

size_t profile__nr_samples(const struct profile *p);
int profile__sample(const struct profile *p, size_t i, struct profile_sample *out);

struct profile_thread {
	uint32_t source;
	uint32_t pid;
	uint32_t tid;
	const char *comm; /* "" when unknown, never NULL */
	uint64_t samples;
};

/* Threads in order of first registration. */
size_t profile__nr_threads(const struct profile *p);
int profile__thread(const struct profile *p, size_t i, struct profile_thread *out);

/* ---- off-CPU time (fsp-bpf --off-cpu) ---------------------------------------- */

/*
 * Adds ns of off-CPU time (blocked, sleeping, waiting for a CPU) that thread
 * (pid, tid) spent with mark stack `key` (0: the empty stack), to the same
 * record profile__add_samples counts into: the attribution rule charges it as
 * it charges samples. Same return values as profile__add_samples.
 */
int profile__add_offcpu(struct profile *p, uint32_t pid, uint32_t tid, uint64_t key, uint64_t ns);
/* All off-CPU time recorded, ns (0 when the session did not measure it). */
uint64_t profile__total_offcpu_ns(const struct profile *p);

/* ---- the event view: exact counts and durations from the probes ----------------- */

/* Log2 latency histogram: bucket 0 holds durations < 2 ns, bucket i >= 1
 * those in [2^i, 2^(i+1)) ns, the last also everything longer. */
#define PROFILE_HIST_BUCKETS 40

static inline unsigned int profile_hist_bucket(uint64_t ns)
{
	unsigned int b = ns < 2 ? 0 : 63 - (unsigned int)__builtin_clzll(ns);

	return b < PROFILE_HIST_BUCKETS ? b : PROFILE_HIST_BUCKETS - 1;
}

struct profile_event_stats {
	uint64_t enters; /* marks of the instance entered */
	uint64_t leaves; /* of which left normally: the durations below are theirs */
	uint64_t total_ns; /* sum of (leave - enter - time under the feature's antimarks) */
	uint64_t max_ns;
	uint64_t hist[PROFILE_HIST_BUCKETS]; /* the leaves' durations */
	/* 1: a point event ("event" in a probe map): enters counts the hits of
	 * its probe, which has no extent (no leaves, no durations). */
	int point;
};

/* Adds src to dst: counts and times add (saturating), max_ns is the max,
 * point is kept when either is one. */
void profile_event_stats__add(struct profile_event_stats *dst,
			      const struct profile_event_stats *src);

/*
 * Accumulates st into the statistics of (pid, feature, instance) of the
 * current source (instance NULL: a mark entered without one). Counts add
 * (saturating), max_ns is the max. Strings are interned. 0 or -errno.
 */
int profile__add_events(struct profile *p, uint32_t pid, const char *feature, const char *instance,
			const struct profile_event_stats *st);

struct profile_event {
	uint32_t source;
	uint32_t pid;
	const char *feature;
	const char *instance; /* NULL: no instance */
	const struct profile_event_stats *stats;
};

/* In order of first addition. */
size_t profile__nr_events(const struct profile *p);
int profile__event(const struct profile *p, size_t i, struct profile_event *out);

#endif /* FSP_ANALYSIS_PROFILE_H */
