/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A profiling session: loads the BPF programs, starts the sampler on every CPU,
 * attaches the fsp probes of each target (and of what it dlopens, forks and
 * execs), runs until the targets exit, the duration ends or a signal arrives,
 * then drains the maps into an analysis profile.
 */
#ifndef FSP_SESSION_H
#define FSP_SESSION_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "probemap.h"
#include "profile.h"

struct funcfeat;
struct session;
struct funcfeat;

enum session_stacks {
	SESSION_STACKS_USER = 1,
	SESSION_STACKS_KERNEL = 2,
};

struct funcfeat;

/* A probe map (--map) and which of its features are attached. */
struct session_probemap {
	const struct probemap *probemap;
	bool enabled[PROBEMAP_MAX_FEATURES];
};

/*
 * The first part is what record's command line sets (cmd/options.c fills it
 * in struct fsp_options, defaults included); the second, what the caller
 * sets up around it.
 */
struct session_opts {
	uint64_t frequency_hz;
	double duration_s; /* 0: until the targets exit or a signal */
	uint32_t max_depth;
	uint32_t max_stacks;
	bool follow_forks;
	bool inherit_marks; /* a forked child runs inside its parent's open marks */
	/* The event view: exact enter/leave counts and durations per (process,
	 * feature, instance), counted by the probes themselves. */
	bool events;
	/* Exact counts for ABI v2 marks too (--events): their v1 probes are
	 * attached, so every v2 mark traps as a v1 mark does. */
	bool v2_events;
	/* --events=FEATURE,...: comma-separated, the features whose ABI v2
	 * marks trap and are counted (NULL: all). */
	const char *event_features;
	/* Off-CPU time: a sched_switch hook charges the time a target thread is
	 * switched out (blocked, sleeping, waiting for a CPU) to its mark stack. */
	bool offcpu;
	/* record --calls: each sample's call numbers, joined to the calls of
	 * the features it charges (profile__calls of the collected profile). */
	bool calls;
	/* With calls: per feature instance, the calls_keep slowest ended calls
	 * and a uniform sample of calls_keep of the others are kept (0: the
	 * default, CALLS_KEEP_DEFAULT; docs/calls.md, "Bounds"). */
	uint32_t calls_keep;
	/* Native stacks with each on-CPU sample (--stacks): SESSION_STACKS_*
	 * bits, 0: none; stack_size bytes of user stack copied per sample (the
	 * command line's default: FSP_NATIVE_DEFAULT_STACK). */
	unsigned int stacks;
	uint32_t stack_size;
	/* Distinct (process, feature, instance) the event view can count; 0:
	 * FSP_DEFAULT_MAX_EVENTS. Kernel memory: about 360 bytes per key and
	 * possible CPU. */
	uint32_t max_events;
	/* The live view: on_interval(s, interval_ctx) is called every interval_s
	 * seconds from session__run (not at all when on_interval is NULL). */
	double interval_s;
	/* -a: every process whose files carry fsp probes or a probe map's provider,
	 * found in /proc at the start and every second, and by its first probe
	 * (probes are attached per file, for every process mapping it). */
	bool system_wide;

	pid_t sync_pid; /* launched command: held at link-map changes while attaching */
	/* A target's program has ABI v1 marks (fsp_v2__file_v1): their
	 * programs load with the others instead of when they are found. */
	bool v1_marks;
	void (*on_interval)(struct session *s, void *ctx);
	void *interval_ctx;
	/* Another file descriptor in the event loop (the agent, record
	 * --listen): on_wake(s, wake_ctx) is called from session__run whenever
	 * wake_fd is readable (not at all when on_wake is NULL). */
	int wake_fd;
	void (*on_wake)(struct session *s, void *ctx);
	void *wake_ctx;
	/* Probe maps: the enabled features' probes are attached in every file
	 * of a target that carries the probe map's provider. */
	const struct session_probemap *probemaps;
	size_t nr_probemaps;
	/* -a: only processes whose comm is in this comma-separated list. */
	const char *comm_filter;
	/* -p --wait-probes=S: session__run ends with -ETIMEDOUT when no probe
	 * site has been attached after S seconds (0: no limit). */
	double probe_timeout_s;
	/* Function features (funcfeat.h). With -a, a process that maps a file
	 * of theirs is profiled too (at most SESSION_SW_MAX_FUNCTION_PROCESSES
	 * that have no probes at once); those whose instance is a variable read
	 * at sample time ("{global:S}") have it read by the sampler in every
	 * target that defines it (samplevars.c); with events, their functions'
	 * calls are counted (a uprobe at each one's entry and return,
	 * bpf/funcev.bpf.h). NULL: none. */
	const struct funcfeat *funcfeat;
};

/* -a: processes profiled at once for function features alone (no probes):
 * the first found; the others are left out, said once. */
#define SESSION_SW_MAX_FUNCTION_PROCESSES 256

/* Needs root. On failure NULL and *err (-EPERM, -ENOSYS: BPF unsupported, ...),
 * with the reason already printed. */
struct session *session__new(const struct session_opts *opts, int *err);
void session__free(struct session *s); /* NULL-safe */

/*
 * Starts profiling pid: samples it and attaches the probes of the files it
 * has mapped. exe, when not NULL, is the program a launched (not yet exec'd)
 * child will run. Returns the number of probe sites attached (>= 0) or -errno
 * (-ESRCH: the process is gone).
 */
int session__add_target(struct session *s, pid_t pid, const char *exe);

/*
 * System-wide mode: scans /proc, attaches the probes of every file that
 * carries fsp probes or a probe map's provider (for all processes) and profiles the
 * processes mapping them. Returns the number of processes profiled (>= 0) or
 * -errno. New processes are picked up while the session runs.
 */
int session__add_system_wide(struct session *s);

/* The probe maps of the session's options (*nr of them). */
const struct session_probemap *session__probemaps(const struct session *s, size_t *nr);
/* Did any attached file carry the provider of probe map i (opts.probemaps[i])? */
bool session__probemap_found(const struct session *s, size_t i);
/* The USDT providers seen in the targets' files, comma-separated ("" if none). */
const char *session__providers(const struct session *s);

/* Runs the event loop; returns 0 or -errno. Ends on SIGINT/SIGTERM (also
 * one that came before it started), the duration, or when every target has
 * exited (a launched command and the processes it started, still running
 * at a signal or the duration's end, are then sent SIGTERM and waited for;
 * a further signal sends SIGKILL); or early: -ETIMEDOUT (probe_timeout_s), -ENOMSG (a probe map does
 * not fit a file a target loaded, reported; a launched command and the
 * processes it started are killed, held before that file's code ran). */
int session__run(struct session *s);

/* Exit status of the launched command (as from waitpid), -1 if unknown. */
int session__child_status(const struct session *s);
/* Which marks the session read, comma-separated: "v2" (ABI v2 stacks, no
 * traps), "v1" (ABI v1 probes), "v2-events" (ABI v2 marks also trapped for
 * exact counts), "mapped" (probe maps); "" if none yet. Returns buf. */
const char *session__marks(const struct session *s, char *buf, size_t size);
/* Probe sites attached over the whole session. */
unsigned int session__nr_sites(const struct session *s);
/* The sampling period, 1e9 / frequency_hz rounded (ns, fsp_period_ns). */
uint64_t session__period_ns(const struct session *s);
/* With --events, what a probe hit (a trap) costs here, measured at the start
 * in ns; 0 when not measured. */
uint64_t session__trap_ns(const struct session *s);
double session__duration(const struct session *s);
double session__start_time(const struct session *s);
double session__end_time(const struct session *s);

/* Stops sampling and adds everything collected to p. */
int session__collect(struct session *s, struct profile *p);
/* Adds what was collected so far to p, sampling goes on (the live view).
 * Off-CPU time of threads switched out right now is not in it yet. */
int session__snapshot(struct session *s, struct profile *p);
/* The same with the native stacks so far (--stacks; else as
 * session__snapshot), symbolized when symbolize is true. */
int session__snapshot_stacks(struct session *s, struct profile *p, bool symbolize);
/* The PIDs of the processes profiled now, alive, into out[0..max) in no
 * particular order. Returns how many there are (possibly more than max). */
size_t session__alive(const struct session *s, uint32_t *out, size_t max);

#endif /* FSP_SESSION_H */
