// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Retiring exited processes (-a): a system-wide session runs for hours while
 * processes come and go, so nothing may grow with the processes that have
 * exited. RETIRE_DELAY_S after a target's exit, its records (stacks, counts,
 * events, labels) move from the BPF maps to s->retired, a profile of its
 * own, and its mark_stats slots go back to the BPF side; its bookkeeping
 * (mappings, files) is freed. The first RETIRED_KEEP exited processes keep
 * records of their own; each later one is folded into the record of the
 * first folded process of the same name (its main thread's), threads by
 * name, stacks by content, so that memory stays bounded by the names, not
 * the processes. The report counts them (DIAG_FOLDED_PROCESSES).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "hashmap.h"
#include "log.h"
#include "procmaps.h"
#include "procscan.h"
#include "util.h"
#include "session_int.h"

/* Folded records: at most this many names of processes, and of threads in each. */
#define FOLD_MAX_NAMES 1024
#define FOLD_MAX_THREADS 64

struct fold_thread {
	char comm[FSP_COMM_LEN];
	uint32_t tid;
};

struct fold_rep {
	char comm[FSP_COMM_LEN];
	uint32_t pid;
	struct fold_thread threads[FOLD_MAX_THREADS];
	size_t nr_threads;
};

struct retire_fold {
	size_t kept; /* exited processes with records of their own */
	uint64_t folded;
	struct fold_rep *reps;
	size_t nr_reps, cap_reps;
};

/* ---- copying one profile's records into another -------------------------- */

/* Where one process of src goes in dst: the same PID, or a folded record. */
struct proc_map {
	uint32_t pid;
	struct fold_rep *rep; /* NULL: kept as it is */
};

/* Where one process of src goes in dst (the plan), and what copying looks up
 * for each record: the process's mapping and its folded threads' ids. */
struct fold_plan {
	const struct proc_map *pm;
	size_t npm;
	struct hashmap by_pid; /* pid -> index in pm */
	struct hashmap tids; /* (pid, tid) of a folded process -> tid in dst */
};

/* Each process's name in p: its main thread's, else its first thread's; by
 * pid, the index of that thread. */
static int comm_index(const struct profile *p, struct hashmap *m)
{
	struct profile_thread th;

	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < profile__nr_threads(p); i++)
			if (!profile__thread(p, i, &th) && (pass || th.tid == th.pid) &&
			    hashmap__find_or_insert(m, th.pid, 0, i, NULL) < 0)
				return -ENOMEM;
	return 0;
}

static const char *process_comm(const struct profile *p, const struct hashmap *m, uint32_t pid)
{
	struct profile_thread th;
	uint64_t i;

	if (!hashmap__find(m, pid, 0, &i) || profile__thread(p, i, &th))
		return "";
	return th.comm;
}

static struct fold_rep *fold_rep(struct retire_fold *f, const char *comm, uint32_t pid)
{
	struct fold_rep *r;

	for (size_t i = 0; i < f->nr_reps; i++)
		if (!strncmp(f->reps[i].comm, comm, FSP_COMM_LEN))
			return &f->reps[i];
	if (f->nr_reps == FOLD_MAX_NAMES)
		return &f->reps[0];
	if (fsp_grow((void **)&f->reps, &f->cap_reps, f->nr_reps + 1, sizeof(*f->reps)))
		return NULL;
	r = &f->reps[f->nr_reps++];
	memset(r, 0, sizeof(*r));
	snprintf(r->comm, sizeof(r->comm), "%s", comm);
	r->pid = pid;
	return r;
}

/* The thread of rep that thread tid (named comm) of a folded process joins. */
static uint32_t fold_tid(struct fold_rep *r, uint32_t tid, const char *comm)
{
	for (size_t i = 0; i < r->nr_threads; i++)
		if (!strncmp(r->threads[i].comm, comm, FSP_COMM_LEN))
			return r->threads[i].tid;
	if (r->nr_threads == FOLD_MAX_THREADS)
		return r->pid;
	snprintf(r->threads[r->nr_threads].comm, FSP_COMM_LEN, "%s", comm);
	r->threads[r->nr_threads++].tid = tid;
	return tid;
}

/* A stack's key by content, the same in every process (never 0); a stack
 * whose payloads were not kept stays apart from the one with the same
 * frames. */
static uint64_t content_key(const struct profile_frame *f, size_t depth, unsigned int flags)
{
	uint64_t h = fsp_fnv1a_step(FSP_FNV_OFFSET, flags);

	for (size_t i = 0; i < depth; i++) {
		const char *strs[2] = {f[i].feature, f[i].instance ? f[i].instance : ""};
		uint64_t nums[2] = {(uint64_t)f[i].kind, f[i].payload};

		for (int k = 0; k < 2; k++) {
			h = fsp_fnv1a(strs[k], strlen(strs[k]), h);
			h = fsp_fnv1a_step(h, 0xff);
			h = fsp_fnv1a_step(h, nums[k]);
		}
	}
	return h ? h : 1;
}

static unsigned int stack_flags(const struct profile *p, size_t i)
{
	struct profile_stack st;

	return profile__stack(p, i, &st) ? 0 : st.flags;
}

static const struct proc_map *find_map(const struct fold_plan *fp, uint32_t pid)
{
	uint64_t i;

	return fp && hashmap__find(&fp->by_pid, pid, 0, &i) ? &fp->pm[i] : NULL;
}

/* (pid, tid, key) of src as dst records them. */
static void map_ids(const struct fold_plan *fp, uint32_t *pid, uint32_t *tid, uint64_t *key,
		    const struct profile_frame *frames, size_t depth, unsigned int flags,
		    bool known)
{
	const struct proc_map *pm = find_map(fp, *pid);
	uint64_t t;

	if (!pm || !pm->rep)
		return;
	if (tid)
		*tid = hashmap__find(&fp->tids, *pid, *tid, &t) ? (uint32_t)t
								: fold_tid(pm->rep, *tid, "");
	if (key && *key && known)
		*key = content_key(frames, depth, flags);
	*pid = pm->rep->pid;
}

static int copy_threads_stacks(struct profile *dst, const struct profile *src,
			       const struct fold_plan *fp)
{
	int err = 0;

	for (size_t i = 0; !err && i < profile__nr_threads(src); i++) {
		struct profile_thread th;
		uint32_t pid, tid;

		if (profile__thread(src, i, &th))
			continue;
		pid = th.pid;
		tid = th.tid;
		map_ids(fp, &pid, &tid, NULL, NULL, 0, 0, false);
		err = profile__rename_thread(dst, pid, tid, th.comm);
	}
	for (size_t i = 0; !err && i < profile__nr_stacks(src); i++) {
		struct profile_stack st;
		uint32_t pid;
		uint64_t key;
		size_t id;

		if (profile__stack(src, i, &st))
			continue;
		pid = st.pid;
		key = st.key;
		map_ids(fp, &pid, NULL, &key, st.frames, st.depth, st.flags, true);
		err = profile__add_stack(dst, pid, key, st.frames, st.depth);
		if (err == -EEXIST)
			err = 0;
		if (!err && st.flags && !profile__find_stack(dst, pid, key, &id))
			err = profile__set_stack_flags(dst, id, st.flags);
	}
	return err;
}

static int copy_samples_events(struct profile *dst, const struct profile *src,
			       const struct fold_plan *fp)
{
	int err = 0;

	for (size_t i = 0; !err && i < profile__nr_samples(src); i++) {
		struct profile_sample sm;
		uint32_t pid, tid;
		uint64_t key;

		if (profile__sample(src, i, &sm))
			continue;
		pid = sm.pid;
		tid = sm.tid;
		key = sm.key;
		map_ids(fp, &pid, &tid, &key, sm.frames, sm.depth,
			sm.stack == PROFILE_NO_STACK ? 0 : stack_flags(src, sm.stack), sm.known);
		/* -ENOENT: an unknown stack, counted in the total all the same. */
		if (sm.count)
			err = profile__add_samples(dst, pid, tid, key, sm.count);
		if ((!err || err == -ENOENT) && sm.offcpu_ns)
			err = profile__add_offcpu(dst, pid, tid, key, sm.offcpu_ns);
		if (err == -ENOENT)
			err = 0;
	}
	for (size_t i = 0; !err && i < profile__nr_events(src); i++) {
		struct profile_event ev;
		uint32_t pid;

		if (profile__event(src, i, &ev))
			continue;
		pid = ev.pid;
		map_ids(fp, &pid, NULL, NULL, NULL, 0, 0, false);
		err = profile__add_events(dst, pid, ev.feature, ev.instance, ev.stats);
	}
	return err;
}

/* Indexes pm (npm) and the threads of src's folded processes in fp. */
static int plan_index(struct fold_plan *fp, const struct profile *src, const struct proc_map *pm,
		      size_t npm)
{
	struct profile_thread th;

	*fp = (struct fold_plan){pm, npm, HASHMAP_INIT, HASHMAP_INIT};
	for (size_t i = 0; i < npm; i++)
		if (hashmap__find_or_insert(&fp->by_pid, pm[i].pid, 0, i, NULL) < 0)
			return -ENOMEM;
	for (size_t i = 0; i < profile__nr_threads(src); i++) {
		const struct proc_map *m;

		if (profile__thread(src, i, &th))
			continue;
		m = find_map(fp, th.pid);
		if (m && m->rep &&
		    hashmap__find_or_insert(&fp->tids, th.pid, th.tid,
					    fold_tid(m->rep, th.tid, th.comm), NULL) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* Adds every record of src to dst, each process as pm says (NULL: as it is). */
static int absorb(struct profile *dst, const struct profile *src, const struct proc_map *pm,
		  size_t npm)
{
	struct fold_plan plan, *fp = pm ? &plan : NULL;
	int err = pm ? plan_index(&plan, src, pm, npm) : 0;

	for (size_t i = 0; !err && i < profile__nr_pids(src); i++) {
		struct profile_process pr;
		const struct proc_map *m;

		if (profile__process(src, i, &pr))
			continue;
		m = find_map(fp, pr.pid);
		err = profile__add_pid(dst, m && m->rep ? m->rep->pid : pr.pid);
		if (!err && pr.nspid && !(m && m->rep))
			err = profile__set_process_nspid(dst, pr.pid, pr.nspid);
	}
	if (!err)
		err = copy_threads_stacks(dst, src, fp);
	if (!err)
		err = copy_samples_events(dst, src, fp);
	if (fp) {
		hashmap__fini(&plan.by_pid);
		hashmap__fini(&plan.tids);
	}
	return err;
}

/* ---- retirement ------------------------------------------------------------ */

/*
 * Exited processes kept with records of their own: RETIRED_KEEP, or
 * FSP_RETIRED_KEEP from the environment (the tests fold after a few).
 */
static size_t retired_keep(void)
{
	const char *env = getenv("FSP_RETIRED_KEEP");
	char *end;
	unsigned long v;

	if (!env || !*env)
		return RETIRED_KEEP;
	v = strtoul(env, &end, 10);
	return *end ? RETIRED_KEEP : v;
}

/* Where each process of taken goes: kept while fewer than retired_keep() are. */
static int plan_folds(struct session *s, const struct profile *taken, struct proc_map *pm,
		      size_t *npm)
{
	struct retire_fold *f = s->fold;
	struct hashmap comms = HASHMAP_INIT;
	int err = comm_index(taken, &comms);

	*npm = 0;
	for (size_t i = 0; !err && i < profile__nr_pids(taken); i++) {
		uint32_t pid = profile__pid(taken, i);
		struct fold_rep *rep = NULL;

		if (f->kept < retired_keep()) {
			f->kept++;
		} else {
			rep = fold_rep(f, process_comm(taken, &comms, pid), pid);
			if (!rep) {
				err = -ENOMEM;
				break;
			}
			if (rep->pid != pid)
				f->folded++;
		}
		pm[(*npm)++] = (struct proc_map){pid, rep};
	}
	hashmap__fini(&comms);
	return err;
}

/* Moves the records of processes pids (nr) from the maps to s->retired. */
static int retire_pids(struct session *s, const pid_t *pids, size_t nr)
{
	struct profile *taken = profile__new();
	struct proc_map *pm = NULL;
	size_t npm;
	int err = -ENOMEM;

	if (!s->retired)
		s->retired = profile__new();
	if (!s->fold)
		s->fold = calloc(1, sizeof(*s->fold));
	if (!taken || !s->retired || !s->fold)
		goto cleanup;
	err = collect__take(s, taken, pids, nr);
	if (err)
		goto cleanup;
	pm = calloc(profile__nr_pids(taken) + 1, sizeof(*pm));
	err = pm ? plan_folds(s, taken, pm, &npm) : -ENOMEM;
	if (!err)
		err = absorb(s->retired, taken, pm, npm);
cleanup:
	if (err)
		log__err("cannot keep the records of %zu exited processes: %s", nr, strerror(-err));
	free(pm);
	profile__free(taken);
	return err;
}

static void target_free(struct target *t)
{
	if (t->pidfd >= 0)
		close(t->pidfd);
	file_set__free(&t->files);
	procmaps__free(t->mappings, t->nr_mappings);
}

static bool due(const struct target *t, double now_s)
{
	return !t->alive && now_s - t->gone_mono >= RETIRE_DELAY_S;
}

void retire__due(struct session *s)
{
	double t = now(CLOCK_MONOTONIC);
	size_t nr = 0, j = 0;
	pid_t *pids;

	if (!s->opts.system_wide || t - s->retired_mono < RETIRE_INTERVAL_S)
		return;
	for (size_t i = 0; i < s->nr_targets; i++)
		nr += due(&s->targets[i], t);
	if (!nr)
		return;
	s->retired_mono = t;
	pids = calloc(nr, sizeof(*pids));
	if (!pids)
		return;
	nr = 0;
	for (size_t i = 0; i < s->nr_targets; i++)
		if (due(&s->targets[i], t))
			pids[nr++] = s->targets[i].pid;
	/* On failure the records are lost, said at once; the maps are freed anyway. */
	retire_pids(s, pids, nr);
	for (size_t i = 0; i < s->nr_targets; i++) {
		if (due(&s->targets[i], t)) {
			/* Its native stacks were unwound by now (the loop reads
			 * them every NATIVE_POLL_S): its Dwfl goes. */
			stacks__forget(s->stacks, s->targets[i].pid);
			target_free(&s->targets[i]);
		} else {
			s->targets[j++] = s->targets[i];
		}
	}
	s->nr_targets = j;
	free(pids);
}

double retire__next(const struct session *s)
{
	double next = -1, t = now(CLOCK_MONOTONIC);

	if (!s->opts.system_wide)
		return -1;
	for (size_t i = 0; i < s->nr_targets; i++) {
		double due = s->targets[i].gone_mono + RETIRE_DELAY_S - t;

		if (!s->targets[i].alive && (next < 0 || due < next))
			next = due > 0 ? due : 0;
	}
	/* Passes are RETIRE_INTERVAL_S apart. */
	if (next >= 0 && next < s->retired_mono + RETIRE_INTERVAL_S - t)
		next = s->retired_mono + RETIRE_INTERVAL_S - t;
	return next;
}

void retire__orphans(struct session *s)
{
	uint64_t lost = collect__stat(s, FSP_STAT_EVENTS_LOST), start;
	pid_t *pids, *gone;
	size_t nr, n = 0;

	if (!s->opts.system_wide || lost == s->events_lost_seen)
		return;
	s->events_lost_seen = lost;
	if (collect__pids(s, &pids, &nr))
		return;
	gone = calloc(nr ? nr : 1, sizeof(*gone));
	for (size_t i = 0; gone && i < nr; i++) {
		if (targets__find(s, pids[i]))
			continue;
		if (procscan__start_time(pids[i], &start) == -ESRCH)
			gone[n++] = pids[i];
		else
			syswide__new_process(s, pids[i]);
	}
	if (n) {
		log__verbose("%zu exited processes userspace had not heard of (%llu events lost): "
			     "their records retired",
			     n, (unsigned long long)lost);
		retire_pids(s, gone, n);
	}
	free(gone);
	free(pids);
}

int retire__replay(struct session *s, struct profile *p)
{
	return s->retired ? absorb(p, s->retired, NULL, 0) : 0;
}

uint64_t retire__folded(const struct session *s)
{
	return s->fold ? s->fold->folded : 0;
}

void retire__free(struct session *s)
{
	profile__free(s->retired);
	s->retired = NULL;
	if (s->fold)
		free(s->fold->reps);
	free(s->fold);
	s->fold = NULL;
}
