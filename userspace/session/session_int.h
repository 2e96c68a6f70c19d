/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Inside a session (session.h): its state, shared by the files that make
 * it up, and their internal functions. Each file is one concern:
 *
 *	session.c	lifecycle and accessors
 *	loader.c	the skeleton, tracepoints and the sampler
 *	parts.c		the programs loaded in parts, side by side
 *	attach.c	the probes of one file; links and their teardown
 *	hooks.c		dlopen (ld.so) and unwinding (longjmp, catch) hooks
 *	targets.c	the processes profiled, their files, rescans
 *	syswide.c	system-wide mode (-a)
 *	retire.c	exited processes' records out of the maps (-a)
 *	loop.c		the event loop
 *	collect.c	draining the maps into a profile
 *	v2.c		probe ABI v2: records attached and registered
 *	payloads.c	the sampled stacks' payloads (kept within a bound)
 *	mapdump.c	reading a whole hash map in batches
 */
#ifndef FSP_SESSION_INT_H
#define FSP_SESSION_INT_H

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <sys/types.h>

#include "profiler.h"
#include "profiler.skel.h"
#include "payloads.h"
#include "calls.h"
#include "session.h"
#include "stacks.h"
#include "usdt.h"

#define RESCAN_INTERVAL_S 1.0
/* -a: an exited process's records leave the maps this long after its exit
 * (its last samples, taken on the way out, are in by then). */
#define RETIRE_DELAY_S 0.2
/* -a: at most one retirement pass this often; each walks the maps whole, so
 * that processes exiting 150 times a second are retired 30 at a time, not
 * one by one (which took more time than there was, and the maps filled). */
#define RETIRE_INTERVAL_S 0.2
/* -a: exited processes kept each with their own records; later ones are
 * folded into an earlier process of the same name (profile.c says 1000). */
#define RETIRED_KEEP 1000
#define MAX_SPECS 4096
/* Entries of the targets map: processes profiled at once. */
#define MAX_TARGETS 4096
#define MAX_TARGETS_SW 32768
/* --events=FEATURE,...: shadow sites the kernel side notes (skip_sites, keep_sites). */
#define MAX_EVENT_SITES 65536
/* Bytes of the events ring buffer (forks, execs, exits, new processes). */
#define EVENTS_RB (256 << 10)
#define EVENTS_RB_SW (2 << 20)
#define MAX_PROBEMAP_SITES 1024
/* Off-CPU records of threads whose array slot is taken (allocated on use). */
#define OFFCPU_SPILL 65536
#define PROVIDERS_LEN 1024
/* Distinct payload vectors of sampled stacks kept (thinned beyond: payloads.c). */
#define MAX_PAYLOADS 16384
/* What an epoll event is: the ring buffer, the signalfd, or a target's
 * pidfd (TAG_PIDFD | its index in targets). */
/* --stacks: the native stacks' ring is read at least this often, so that a
 * short-lived process's mappings are read before it exits. */
#define NATIVE_POLL_S 0.02
#define TAG_RINGBUF 1ULL
#define TAG_SIGNAL 2ULL
#define TAG_WAKE 3ULL
#define TAG_PIDFD (1ULL << 32)

/* The programs of the skeleton, and the fd of one of them loaded (-1: not
 * loaded): by its place among the skeleton's, name as in profiler.bpf.c. */
#define NR_PROGS (sizeof(((struct profiler_bpf *)0)->progs) / sizeof(struct bpf_program *))
#define PROG_INDEX(name)                                                                           \
	(offsetof(__typeof__(((struct profiler_bpf *)0)->progs), name) /                           \
	 sizeof(struct bpf_program *))
#define PROG_FD(s, name) ((s)->prog_fds[PROG_INDEX(name)])

struct file_id {
	dev_t dev;
	ino_t ino;
};

/* Files by identity, each once (few: searched in order). */
struct file_set {
	struct file_id *ids;
	size_t nr, cap;
};

/* A file with probes attached, kept open: the labels of a process gone
 * before they were read are read from it (FSP_LABEL_IN_FILE). */
struct label_file {
	dev_t dev;
	ino_t ino;
	int fd;
};

/* A link (uprobe_multi, tracepoint): what the teardown closes. */
struct attachment {
	int fd; /* a link's */
};

/* A process profiled. */
struct target {
	pid_t pid;
	pid_t nspid; /* its PID in its own PID namespace (== pid outside containers) */
	int pidfd; /* -1 system-wide: exits come as events */
	bool alive;
	double gone_mono; /* when it was seen gone (CLOCK_MONOTONIC) */
	bool dl_hooked;
	/* Has fsp probes (sites attached): only then are longjmp and catch
	 * hooked, each hook costs every call a uprobe hit. */
	bool probed;
	bool unwind_hooked; /* the runtime libraries it maps are hooked */
	bool functions_only; /* -a: profiled for function features alone */
	struct file_set files; /* files already scanned (with or without probes) */
	struct mapping *mappings; /* as of the last scan: labels of a gone process */
	size_t nr_mappings;
};

struct session {
	struct session_opts opts;
	struct profiler_bpf *skel; /* its maps; the programs are loaded in parts */
	struct parts *parts; /* the programs, loaded in parts (parts.c) */
	int prog_fds[NR_PROGS]; /* the programs loaded (-1: not): PROG_FD() */
	uint64_t period_ns;
	int nr_cpus;
	int *perf_fds;
	int *perf_links; /* the sampler's links, -1: none */
	struct attachment *links; /* probes, hooks, tracepoints */
	struct detach *detach; /* the links being detached (attach.c) */
	int switch_fd; /* on_switch's link (--off-cpu), detached at collect; -1: none */
	size_t nr_links;
	size_t cap_links;
	/* --events=FEATURE,...: each shadow site's link (its index in links),
	 * by the number in its cookie; SIZE_MAX once it was detached. */
	size_t *event_sites;
	size_t nr_event_sites, cap_event_sites;
	uint32_t next_event_site; /* the number the next such site gets */
	unsigned int dropped_sites;
	/* the threads that detach them (eventsel__drop), joined at the end */
	pthread_t *site_closers;
	size_t nr_site_closers, cap_site_closers;
	uint64_t trap_ns; /* --events: a probe hit's cost, measured (eventsel.c); 0: not */
	struct fsp_usdt_spec *specs; /* mirror of the usdt_specs map */
	size_t nr_specs;
	size_t max_specs;
	struct target *targets;
	size_t nr_targets;
	size_t cap_targets;
	/* Probe maps: feature numbers, names, and what the BPF side runs. */
	uint32_t *feature_base; /* first feature number of each probe map */
	/* "map:feature" per feature number; then the variables' "{global:S}" */
	char (*feature_names)[2 * PROBEMAP_NAME_LEN];
	size_t nr_feature_names;
	struct samplevars *samplevars; /* NULL: no function feature reads one */
	bool *probemap_found; /* a file carried the probe map's provider */
	bool *frames_warned; /* per mapped feature: its enter and leave functions differ, said */
	struct fsp_map_site *probemap_sites; /* mirror of the map_sites map */
	size_t nr_probemap_sites;
	char providers[PROVIDERS_LEN]; /* providers seen, comma-separated */
	struct syswide *sw; /* system-wide mode's state (syswide.c); NULL without -a */
	struct ring_buffer *rb; /* events, and payload_rb into payloads */
	/* --stacks: native_rb, a ring of its own so that it can be read while
	 * the loop is busy attaching (loop__drain_native) */
	struct ring_buffer *native_rb;
	struct payloads *payloads;
	struct callrecs *callrecs; /* record --calls: the samples' call numbers (callrecs.c) */
	struct stacks *stacks; /* --stacks: the native stacks unwound so far */
	int epfd;
	int sigfd;
	sigset_t old_mask;
	bool mask_set;
	unsigned int nr_sites;
	/* The process whose files targets__rescan attaches (0 outside it):
	 * v2__prepare starts its records' stacks afresh before they are armed. */
	pid_t scan_pid;
	/* What the marks are (session__marks): files with an ABI v2 record,
	 * ABI v1 sites, v1 sites of v2 files (--events). */
	unsigned int nr_v2_files, nr_v1_sites, nr_shadow_sites;
	struct v2_state *v2;
	struct label_file *label_files;
	size_t nr_label_files, cap_label_files;
	uint64_t attach_errors;
	bool denied_said; /* a file we may not read, said (attach__denied) */
	uint64_t untracked; /* processes userspace could not add to the targets map */
	/* System-wide: the records of exited processes, taken out of the maps
	 * (retire.c), and how they were folded. */
	struct profile *retired;
	struct retire_fold *fold;
	uint64_t retired_label_errors;
	struct fsp_v2_counters retired_v2; /* the retired processes' ABI v2 counters */
	double retired_mono; /* the last retirement pass */
	bool closing; /* session__free: events only let held children go */
	size_t fork_link; /* on_fork's link, in links (SIZE_MAX: none) */
	uint64_t events_lost_seen; /* FSP_STAT_EVENTS_LOST at the last orphan sweep */
	int child_status;
	bool stop;
	/* SIGINT and SIGTERM received; a launched command's end (loop.c): the
	 * signal sent to it (0: none yet), when, and at which of those. */
	unsigned int stop_signals;
	int ending;
	size_t ending_nr; /* targets signalled */
	double ending_mono;
	unsigned int ending_signals;
	bool ending_said;
	int fatal; /* -errno that ends the session (a probe map that does not fit) */
	double start_mono, end_mono;
	double start_wall, end_wall;
	bool collected;
	struct funcev *funcev; /* --events of function features (funcev.c); NULL: none */
};

static inline double now(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* funcev.c: --events of function features (bpf/funcev.bpf.h) */
struct funcev;
/* The state, when the session counts function features' calls: NULL + 0
 * without (no --events or no function feature), -ENOMEM. */
int funcev__new(struct session *s, struct funcev **out);
void funcev__free(struct funcev *fe); /* NULL-safe */
/* Probes the function features' functions in the file at path (as the
 * target names it; kpath opens it) for pid (0: every process). 0, or
 * -ENOMSG when a function named without a pattern is not there or cannot
 * be probed (said). */
int funcev__file(struct session *s, pid_t pid, const char *path, const char *kpath);
/* Does the session count function features' calls (--events and rules)? */
bool funcev__on(const struct session_opts *o);
/* Is feature id a function feature's (FSP_FUNC_ID)? */
bool funcev__is_feature(__u64 id);
/* collect.c: the statistics of one event view slot of a function feature,
 * kept (taken: for good, a retired process's) until funcev__fill names them. */
int funcev__keep(struct session *s, const struct fsp_mark_key *key,
		 const struct profile_event_stats *st, bool taken);
/* A collection starts: the untaken statistics kept by the last one go. */
void funcev__begin(struct session *s);
/* The kept statistics into p, named (after the native stacks are in p, the
 * call sites as their locations are named); the untaken ones are dropped. */
int funcev__fill(struct session *s, struct profile *p);

/* loader.c */
/* Opens, sizes, configures and loads the skeleton; attaches the tracepoints. */
int loader__load(struct session *s);
/* A cpu-clock perf event per CPU running the sample program. */
int loader__open_sampler(struct session *s);
void loader__stop_sampler(struct session *s); /* idempotent */

/* parts.c */
/* Loads the skeleton's maps, then the programs that autoload in it, in
 * parts side by side (s->prog_fds), but the ABI v1 probes' when the
 * session may not need them (parts.c). 0 or -errno. */
int parts__load(struct session *s);
/* Loads the ABI v1 probes' programs if they are not yet. 0 or -errno
 * (reported). */
int parts__load_marks(struct session *s);
void parts__free(struct session *s); /* the parts' programs */

/* samplevars.c: function features' variables read at sample time */
struct samplevars;
/* Does a function feature of o read its instance at sample time? */
bool samplevars__used(const struct session_opts *o);
/* Numbers and names the variables (after the probe maps' features). 0 or
 * -errno (reported). */
int samplevars__init(struct session *s);
void samplevars__free(struct session *s);
/* pid's variables found in its mappings m[0..n) (when they changed since its
 * last scan) into the sample_vars map. */
void samplevars__scan(struct session *s, pid_t pid, const struct mapping *m, size_t n);
/* pid is gone: its entry goes. */
void samplevars__forget(struct session *s, pid_t pid);

/* attach.c */
/* Attaches the fsp probes and the probe maps' probes of one file, for pid (0:
 * every process mapping it), all or none, leaves first. path names the file;
 * fd, if not -1, is the file open (else path is opened). Returns the sites
 * attached or -errno (-ENOENT, -ESRCH: not reached; -ENOMSG: a probe map
 * does not fit the file; other errors are reported and counted). */
int attach__file(struct session *s, pid_t pid, const char *path, int fd);
/* "/proc/self/fd/FD": a path the kernel and libbpf resolve to the open file. */
void attach__fd_path(int fd, char *buf, size_t size);
/* Keeps fd, a link's, for the teardown: 0, or -ENOMEM (fd closed), or fd
 * itself when it is an -errno (so that a link's creation passes through). */
int attach__link_fd(struct session *s, int fd);
/* path could not be opened (EACCES): says once what is missing. */
void attach__denied(struct session *s, const char *path);
/* Starts detaching every link kept, on threads (each waits for an RCU
 * grace period); links kept after it are destroyed by attach__destroy_all. */
void attach__detach_start(struct session *s);
/* Destroys every link kept, once the detaching started is done. */
void attach__destroy_all(struct session *s);

/* eventsel.c */
/* The FNV-1a hashes of the comma-separated names of list (at most
 * FSP_MAX_EVENT_FEATURES) into out. 0 or -EINVAL. */
int eventsel__hashes(const char *list, __u64 *out, unsigned int *nr);
/* Does the event view keep feature (--events=FEATURE,...)? */
bool eventsel__wanted(const struct session *s, const char *feature);
/* Detaches the shadow sites that fired for other features only (on a
 * thread: each detach waits for a grace period). */
void eventsel__drop(struct session *s);
/* Waits for the threads of eventsel__drop(). */
void eventsel__join(struct session *s);
/* --events: measures what a probe hit costs here (s->trap_ns). 0 or -errno. */
int eventsel__measure(struct session *s);

/* hooks.c */
int hooks__dl(struct session *s, struct target *t, const char *exe);
void hooks__unwind(struct session *s, pid_t pid, const char *path, const char *kpath);
/* Is path a dynamic loader (ld.so)? */
bool hooks__is_dl(const char *path);
/* Hooks the dynamic loader at path (kpath reaches it) for every process.
 * 0, or -errno (said). */
int hooks__dl_file(struct session *s, const char *path, const char *kpath);

/* targets.c */
bool file_set__has(const struct file_set *fs, dev_t dev, ino_t ino);
int file_set__add(struct file_set *fs, dev_t dev, ino_t ino); /* 0 or -ENOMEM */
void file_set__free(struct file_set *fs);
struct target *targets__find(struct session *s, pid_t pid);
/* Attaches the files the target maps that were not seen yet. Returns the
 * sites attached or -errno (-ESRCH: the process is gone). */
int targets__rescan(struct session *s, struct target *t);
/* The target exited: no longer waited for. */
void targets__gone(struct session *s, struct target *t);

/* syswide.c */
/* The state of system-wide mode, when the session is (s->sw). 0 or -ENOMEM. */
int syswide__init(struct session *s);
void syswide__free(struct session *s);
/* Have the file's probes been attached for every process (or failed)? */
bool syswide__file_known(const struct session *s, dev_t dev, ino_t ino);
/* Records that they have. 0 or -ENOMEM. */
int syswide__file_add(struct session *s, dev_t dev, ino_t ino);
/* A file a process maps: hooked (for every process) if it is a dynamic
 * loader not hooked yet, for the libraries it loads. */
void syswide__hook_dl(struct session *s, const char *path, const char *kpath, dev_t dev, ino_t ino);
/* Looks at every process in /proc not looked at yet. */
int syswide__rescan(struct session *s);
/* A process fired its first probe. */
void syswide__new_process(struct session *s, pid_t pid);
/* A process that is no target exec'd: look at it again. */
void syswide__exec(struct session *s, pid_t pid);
/* A process that was a target (or excluded) exited. */
void syswide__exit(struct session *s, pid_t pid);
/* A process that is no target changed its link map (dlopen): look at it now. */
void syswide__dlopen(struct session *s, pid_t pid);

/* collect.c */
/* Adds the records of processes pids to p and deletes them from the maps
 * (their mark_stats slots zeroed and freed). 0 or -errno. */
int collect__take(struct session *s, struct profile *p, const pid_t *pids, size_t nr);
/* A counter of the kernel side (FSP_STAT_*), summed over the CPUs. */
uint64_t collect__stat(struct session *s, __u32 stat);
/* The processes with records in the counts and stacks maps, sorted (*pids,
 * freed by the caller). 0 or -ENOMEM. */
int collect__pids(struct session *s, pid_t **pids, size_t *nr);

/* retire.c */
/* Retires the targets gone for RETIRE_DELAY_S: their records move from the
 * maps to s->retired, folded after the first RETIRED_KEEP (DIAG_FOLDED_PROCESSES). */
void retire__due(struct session *s);
/* Seconds until the next target is due (< 0: none gone). */
double retire__next(const struct session *s);
/* Adds the retired records to p. 0 or -errno. */
int retire__replay(struct session *s, struct profile *p);
uint64_t retire__folded(const struct session *s);
/* -a, after events were lost (the ring was full): the records of processes
 * userspace never heard of are retired if they have exited (their exit
 * went unheard too), their processes profiled if they run. */
void retire__orphans(struct session *s);
void retire__free(struct session *s);

/* label_resolve.c */
/* Reads the label at addr of tgid, which the BPF side could not, into the
 * labels map (FSP_EVENT_LABEL). Best effort. */
void label__read_now(struct session *s, __u32 tgid, __u64 addr);
/* Keeps a descriptor of the file fd (dev, ino), which has probes: labels in
 * it outlive the processes that mapped it (at most LABEL_FILES_MAX). */
void label__keep_file(struct session *s, int fd, dev_t dev, ino_t ino);
void label__files_free(struct session *s);

/* mapdump.c */
/* Called with each batch of n entries (keys and values back to back);
 * non-zero stops the reading and is returned. */
typedef int (*map_batch_fn)(void *ctx, const void *keys, const void *vals, size_t n);
/* Reads every entry of hash map fd, a batch at a time (entries added or
 * deleted meanwhile may be seen or not). 0 or -errno. */
int map_batch__each(int fd, size_t key_size, size_t val_size, map_batch_fn fn, void *ctx);

/* v2.c */
struct fsp_v2_file;
struct mapping;
/* Remembers the record of the file at path and attaches its fsp:v2 sites for
 * pid (0: every process). Returns the sites attached or -errno. */
/* Remembers a file (open as fd) whose ABI v2 record was attached, for the
 * rescans that find the record in each process mapping it. 0 or -errno. */
int v2__note_file(struct session *s, int fd, const struct fsp_v2_file *vf);
/* Before the sites of the file open as fd are linked (which arms its marks):
 * registers its record in process pid (0: none), with a new gen when the
 * session must start its stacks afresh. Done after the link, the new gen
 * would also drop the frames marked since the link, whose leaves then match
 * nothing. */
void v2__prepare(struct session *s, pid_t pid, int fd, const struct fsp_v2_file *vf);
/* Registers the records of pid's mapped files (m, n) for the sampler. */
void v2__scan(struct session *s, pid_t pid, const struct mapping *m, size_t n);
void v2__forget(struct session *s, pid_t pid); /* pid is gone */
/* The session leaves the records it registered (their profiler slots). */
void v2__release(struct session *s);
void v2__free(struct session *s);

/* loop.c */
/* The epoll set: the signals, the ring buffer (pidfds join as targets come). */
int loop__setup(struct session *s);
/* err of adding or rescanning a target: -ENOMSG (a probe map does not fit
 * a file, reported) ends the session. Returns err. */
int loop__check(struct session *s, int err);
/* Reads every ring's records (ring_buffer__consume), then closes the native
 * stacks' batch (stacks__batch_end). */
void loop__consume(struct session *s);
/* The native stacks' records only, unwound now: from the attaching code,
 * whose uprobe registrations and grace periods take up to seconds, during
 * which the ring would fill or its processes exit before their mappings are
 * read. Nothing else is run (no event, no new target). */
void loop__drain_native(struct session *s);
/* At the end: a launched command that an error path left running (or
 * stopped) gets SIGTERM and SIGCONT. */
void loop__release(struct session *s);

/* collect.c: the stacks map so far into p (its stacks only, labels
 * resolved; those p has are skipped). */
int collect__stacks(struct session *s, struct profile *p);

/* callrecs.c: record --calls, the samples' call records joined to their
 * calls as they come, bounded (calls__bound). */
struct callrecs;
struct callrecs *callrecs__new(const struct calls_bound *bound, bool natives);
void callrecs__free(struct callrecs *c); /* NULL-safe */
/* Keeps a record; 1 when enough have come to be joined (callrecs__flush). */
int callrecs__add(struct callrecs *c, const void *data, size_t size);
/* Records not kept (memory) or not joined (their stack not kept). */
uint64_t callrecs__dropped(const struct callrecs *c);
/* Joins the records kept to their calls (against the stacks map) and
 * bounds the calls. 0 or -ENOMEM. */
int callrecs__flush(struct session *s);
/* record --calls: the samples joined to their calls, given to p (whose
 * stacks are collected); records lost on the way counted as dropped. */
int callrecs__collect(struct session *s, struct profile *p);
/* record --calls --stacks: the native stacks of p's calls' samples. */
int callrecs__collect_native(struct session *s, struct profile *p);

#endif /* FSP_SESSION_INT_H */
