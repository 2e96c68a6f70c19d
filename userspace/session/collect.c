// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Draining the BPF maps into an analysis profile: stacks with their labels
 * resolved (label_resolve.c), samples and off-CPU time per thread, the event view, and the
 * diagnostics. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "hashmap.h"
#include "label_resolve.h"
#include "log.h"
#include "probemap_sites.h"
#include "procmaps.h"
#include "utf8.h"
#include "util.h"
#include "session_int.h"

static uint64_t stat_sum(struct session *s, __u32 stat)
{
	int ncpu = libbpf_num_possible_cpus();
	__u64 *v = calloc(ncpu, sizeof(*v));
	uint64_t sum = 0;

	if (v && !bpf_map_lookup_elem(bpf_map__fd(s->skel->maps.stats), &stat, v))
		for (int i = 0; i < ncpu; i++)
			sum += v[i];
	free(v);
	return sum;
}

/* Is addr a mapped feature that is a point event ("event PROBE")? */
static bool is_point_event(const struct session *s, __u64 addr)
{
	uint64_t i = addr & ~(FSP_ID_SYNTH | FSP_ID_FEATURE);

	if (!probemap_sites__is_feature_id(addr))
		return false;
	for (size_t m = 0; m < s->opts.nr_probemaps; m++) {
		const struct probemap *pm = s->opts.probemaps[m].probemap;

		if (i >= s->feature_base[m] && i - s->feature_base[m] < pm->nr_features)
			return pm->features[i - s->feature_base[m]].point;
	}
	return false;
}

/*
 * Which processes' records a pass copies: all of them (the report), or
 * those of exited processes, which it also deletes from the maps (their
 * retirement, -a). Keys are deleted after the walk, not during it.
 */
struct drain {
	const pid_t *pids; /* NULL: every process */
	size_t nr;
	bool take;
	const struct label_cache *labels; /* the labels map, read once (may be NULL) */
	void *keys; /* keys to delete */
	size_t nr_keys, cap_keys;
};

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

/* d->pids are sorted (collect__take). */
static bool drain_wants(const struct drain *d, __u32 tgid)
{
	pid_t pid = (pid_t)tgid;

	return !d->pids || bsearch(&pid, d->pids, d->nr, sizeof(pid), cmp_pid);
}

/* Remembers key (size bytes) for drain_delete. 0 or -ENOMEM. */
static int drain_keep(struct drain *d, const void *key, size_t size)
{
	if (!d->take)
		return 0;
	if (fsp_grow(&d->keys, &d->cap_keys, d->nr_keys + 1, size))
		return -ENOMEM;
	memcpy((char *)d->keys + d->nr_keys++ * size, key, size);
	return 0;
}

/* Deletes the keys remembered from map fd, and forgets them. */
static void drain_delete(struct drain *d, int fd, size_t size)
{
	for (size_t i = 0; i < d->nr_keys; i++)
		bpf_map_delete_elem(fd, (char *)d->keys + i * size);
	free(d->keys);
	d->keys = NULL;
	d->nr_keys = d->cap_keys = 0;
}

/* One stack of the map into p, its labels resolved. */
static int add_stack(struct session *s, struct profile *p, const struct fsp_stack_key *key,
		     const struct fsp_stack *st, uint64_t *label_errors, const struct drain *d)
{
	struct profile_frame frames[FSP_MAX_DEPTH];
	char(*bufs)[2][FSP_LABEL_LEN + 32];
	size_t known;
	int err;

	/* one p has already (collect__stacks again): labels not resolved again */
	if (!profile__find_stack(p, key->tgid, key->hash, &known))
		return 0;
	bufs = malloc(FSP_MAX_DEPTH * sizeof(*bufs));
	if (!bufs)
		return -ENOMEM;
	for (__u64 i = 0; i < st->depth; i++) {
		const struct fsp_frame *f = &st->frames[i];

		frames[i].kind = f->kind == FSP_FRAME_ANTIMARK	? PROFILE_ANTIMARK
				 : f->kind == FSP_FRAME_CHARGED ? PROFILE_CHARGED
								: PROFILE_MARK;
		frames[i].payload = f->payload;
		frames[i].feature = label__resolve(s, d->labels, key->tgid, f->feature, bufs[i][0],
						   sizeof(bufs[i][0]), label_errors);
		frames[i].instance =
			f->instance ? label__resolve(s, d->labels, key->tgid, f->instance,
						     bufs[i][1], sizeof(bufs[i][1]), label_errors)
				    : NULL;
	}
	err = profile__add_stack(p, key->tgid, key->hash, frames, st->depth);
	free(bufs);
	return err == -EEXIST ? 0 : err;
}

struct stack_pass {
	struct session *s;
	struct profile *p;
	uint64_t *label_errors;
	struct drain *d;
};

static int stack_batch(void *ctx, const void *keys, const void *vals, size_t n)
{
	struct stack_pass *c = ctx;
	int err = 0;

	for (size_t i = 0; !err && i < n; i++) {
		const struct fsp_stack_key *key = (const struct fsp_stack_key *)keys + i;
		const struct fsp_stack *st = (const struct fsp_stack *)vals + i;

		if (!drain_wants(c->d, key->tgid))
			continue;
		err = drain_keep(c->d, key, sizeof(*key));
		if (!err && st->depth && st->depth <= FSP_MAX_DEPTH)
			err = add_stack(c->s, c->p, key, st, c->label_errors, c->d);
	}
	return err;
}

static int collect_stacks(struct session *s, struct profile *p, uint64_t *label_errors,
			  struct drain *d)
{
	struct stack_pass c = {s, p, label_errors, d};
	int fd = bpf_map__fd(s->skel->maps.stacks), err;

	err = map_batch__each(fd, sizeof(struct fsp_stack_key), sizeof(struct fsp_stack),
			      stack_batch, &c);
	drain_delete(d, fd, sizeof(struct fsp_stack_key));
	return err;
}

struct count_entry {
	struct fsp_count_key key;
	struct fsp_count c;
};

static int cmp_seen(const void *a, const void *b)
{
	uint64_t x = ((const struct count_entry *)a)->c.seen;
	uint64_t y = ((const struct count_entry *)b)->c.seen;

	return (x > y) - (x < y);
}

/* The key of the stack of frames `hash` with the payloads of phash (a
 * payloads record), or with payloads not kept (phash 0): never 0, and apart
 * from the BPF side's keys in practice. */
static uint64_t payload_key(uint64_t hash, uint64_t phash)
{
	uint64_t k = hash ^ (phash ? phash : 0x5bd1e9955bd1e995ULL) * 0x9e3779b97f4a7c15ULL;

	return k ? k : 1;
}

/* Stack `key` of pid with the frames of stack `hash` and the depth payloads
 * given (NULL: 0, and flagged as not kept). Its id in *id. 0 or -errno
 * (-ENOENT: stack hash is not known, or not of that depth). */
static int payload_stack(struct profile *p, __u32 pid, uint64_t hash, uint64_t key,
			 const uint64_t *payloads, size_t depth, size_t *id)
{
	struct profile_frame frames[FSP_MAX_DEPTH];
	struct profile_stack st;
	size_t i;
	int err;

	if (!profile__find_stack(p, pid, key, id))
		return 0;
	err = profile__find_stack(p, pid, hash, &i);
	if (!err)
		err = profile__stack(p, i, &st);
	if (err)
		return err;
	/* depth < st.depth: the sampler appended frames without payloads
	 * (function features' variables, samplevars.c) */
	if (st.depth > FSP_MAX_DEPTH || (payloads && depth > st.depth))
		return -ENOENT;
	memcpy(frames, st.frames, st.depth * sizeof(*frames));
	for (i = 0; i < st.depth; i++)
		frames[i].payload = payloads && i < depth ? payloads[i] : 0;
	err = profile__add_stack(p, pid, key, frames, st.depth);
	if (err)
		return err;
	*id = profile__nr_stacks(p) - 1;
	return payloads ? 0 : profile__set_stack_flags(p, *id, PROFILE_STACK_PAYLOADS_LOST);
}

/*
 * The samples of one counts entry: those without payloads with their stack;
 * of those with payloads, the ones not kept (payloads.c) with a copy of the
 * stack flagged so; the kept ones come with their records (collect_payloads).
 */
static int add_samples(struct session *s, struct profile *p, const struct count_entry *e)
{
	uint64_t with = e->c.payload_samples, kept;
	__u32 pid = e->key.tgid, tid = e->key.tid;
	size_t id;
	int err;

	if (with > e->c.samples || profile__find_stack(p, pid, e->key.hash, NULL))
		with = 0; /* an unknown stack: all its samples are charged to nothing */
	if (e->c.samples > with) {
		err = profile__add_samples(p, pid, tid, e->key.hash, e->c.samples - with);
		if (err)
			return err;
	}
	kept = payloads__kept(s->payloads, pid, tid, e->key.hash);
	if (kept >= with)
		return 0;
	err = payload_stack(p, pid, e->key.hash, payload_key(e->key.hash, 0), NULL, 0, &id);
	return err ? err
		   : profile__add_samples(p, pid, tid, payload_key(e->key.hash, 0), with - kept);
}

/* The samples kept with their payloads: each record a stack of its own (of
 * d's processes). */
static int collect_payloads(struct session *s, struct profile *p, const struct drain *d)
{
	for (size_t i = 0; i < payloads__nr(s->payloads); i++) {
		const struct payload_rec *r = payloads__rec(s->payloads, i);
		__u32 pid = r->a >> 32, tid = (__u32)r->a;
		uint64_t key = payload_key(r->hash, r->phash);
		size_t id;
		int err;

		if (!drain_wants(d, pid))
			continue;
		err = payload_stack(p, pid, r->hash, key, payloads__values(s->payloads, r),
				    r->depth, &id);
		if (err == -ENOENT)
			continue; /* its stack was not stored: counted as unknown */
		if (!err)
			err = profile__add_samples(p, pid, tid, key, r->count);
		if (err)
			return err;
	}
	return 0;
}

/* Samples and off-CPU time per (thread, stack). Threads are named in the
 * order their entries were last updated, so each ends with its latest name (a
 * launched command is sampled as "fsp-bpf" until its exec, a worker before
 * pthread_setname_np). The main thread is named by the others' entries too:
 * the process's name is its main thread's, also when that thread took no
 * sample (it is then a thread without samples). */
struct count_pass {
	struct drain *d;
	struct count_entry *ents;
	size_t n, cap;
};

static int count_batch(void *ctx, const void *keys, const void *vals, size_t n)
{
	struct count_pass *c = ctx;

	for (size_t i = 0; i < n; i++) {
		const struct fsp_count_key *key = (const struct fsp_count_key *)keys + i;
		struct count_entry *e;

		if (!drain_wants(c->d, key->tgid))
			continue;
		if (fsp_grow((void **)&c->ents, &c->cap, c->n + 1, sizeof(*c->ents)) ||
		    drain_keep(c->d, key, sizeof(*key)))
			return -ENOMEM;
		e = &c->ents[c->n++];
		e->key = *key;
		e->c = ((const struct fsp_count *)vals)[i];
		e->c.comm[FSP_COMM_LEN - 1] = 0;
		e->c.pcomm[FSP_COMM_LEN - 1] = 0;
	}
	return 0;
}

static int collect_counts(struct session *s, struct profile *p, struct drain *d)
{
	int fd = bpf_map__fd(s->skel->maps.counts), err = 0;
	struct count_pass c = {.d = d};
	struct count_entry *ents;
	size_t n;

	err = map_batch__each(fd, sizeof(struct fsp_count_key), sizeof(struct fsp_count),
			      count_batch, &c);
	ents = c.ents;
	n = c.n;
	if (err)
		goto cleanup;
	qsort(ents, n, sizeof(*ents), cmp_seen);
	for (size_t i = 0; i < n; i++) {
		struct count_entry *e = &ents[i];

		err = profile__add_pid(p, e->key.tgid);
		if (!err && e->key.tid != e->key.tgid && e->c.pcomm[0])
			err = profile__rename_thread(p, e->key.tgid, e->key.tgid, e->c.pcomm);
		if (!err)
			err = profile__rename_thread(p, e->key.tgid, e->key.tid, e->c.comm);
		if (err)
			goto cleanup;
		/* Entries of off-CPU time only have no samples. -ENOENT: the
		 * stack could not be stored; the time still counts in the total. */
		err = add_samples(s, p, e);
		if (err && err != -ENOENT)
			goto cleanup;
		if (e->c.offcpu_ns) {
			err = profile__add_offcpu(p, e->key.tgid, e->key.tid, e->key.hash,
						  e->c.offcpu_ns);
			if (err && err != -ENOENT)
				goto cleanup;
		}
		err = 0;
	}
cleanup:
	drain_delete(d, fd, sizeof(struct fsp_count_key));
	free(ents);
	return err;
}

/*
 * The event view: per (process, feature, instance), the per-CPU statistics
 * of its mark_stats slot, summed, with the labels resolved as in stacks.
 */
/* Sums a mark_stats slot's per-CPU values (v: ncpu of them). */
static void sum_stats(const struct fsp_mark_stats *v, int ncpu, struct profile_event_stats *st)
{
	memset(st, 0, sizeof(*st));
	for (int c = 0; c < ncpu; c++) {
		st->enters += v[c].enters;
		st->leaves += v[c].leaves;
		st->total_ns += v[c].total_ns;
		if (v[c].max_ns > st->max_ns)
			st->max_ns = v[c].max_ns;
		for (int b = 0; b < FSP_HIST_BUCKETS; b++)
			st->hist[b] += v[c].hist[b];
	}
}

/* A retired process's mark_ids entry: deleted, its slot zeroed and given
 * back for the BPF side to reuse (v: ncpu zeroed values to write). */
struct taken_slot {
	struct fsp_mark_key key;
	__u32 id;
};

static void free_slots(struct session *s, struct taken_slot *t, size_t n, struct fsp_mark_stats *v,
		       int ncpu)
{
	int ids = bpf_map__fd(s->skel->maps.mark_ids), vals = bpf_map__fd(s->skel->maps.mark_stats);
	int q = bpf_map__fd(s->skel->maps.free_slots);

	memset(v, 0, ncpu * sizeof(*v));
	for (size_t i = 0; i < n; i++) {
		bpf_map_delete_elem(ids, &t[i].key);
		/* Zeroed before it can be handed out again. */
		if (!bpf_map_update_elem(vals, &t[i].id, v, BPF_ANY))
			bpf_map_update_elem(q, NULL, &t[i].id, BPF_ANY);
	}
}

/*
 * The event view: per (process, feature, instance), the per-CPU statistics
 * of its mark_stats slot, summed, with the labels resolved as in stacks.
 */
static int collect_events(struct session *s, struct profile *p, uint64_t *label_errors,
			  const struct drain *d)
{
	int ids = bpf_map__fd(s->skel->maps.mark_ids), vals = bpf_map__fd(s->skel->maps.mark_stats);
	int ncpu = libbpf_num_possible_cpus(), err = 0;
	struct fsp_mark_key key, *prev = NULL;
	char fbuf[FSP_LABEL_LEN + 32], ibuf[FSP_LABEL_LEN + 32];
	struct fsp_mark_stats *v = NULL;
	const char *feature, *instance;
	struct taken_slot *taken = NULL;
	size_t nr_taken = 0, cap_taken = 0;

	if (ncpu <= 0) {
		err = ncpu ? ncpu : -EINVAL;
		goto cleanup;
	}
	v = calloc(ncpu, sizeof(*v));
	if (!v) {
		err = -ENOMEM;
		goto cleanup;
	}
	_Static_assert(sizeof(*v) % 8 == 0, "per-CPU values are laid out 8-byte aligned");
	while (!bpf_map_get_next_key(ids, prev, &key)) {
		struct profile_event_stats st;
		__u32 id;

		prev = &key;
		if (!drain_wants(d, key.tgid) || bpf_map_lookup_elem(ids, &key, &id))
			continue;
		if (d->take) {
			if (fsp_grow((void **)&taken, &cap_taken, nr_taken + 1, sizeof(*taken))) {
				err = -ENOMEM;
				goto cleanup;
			}
			taken[nr_taken++] = (struct taken_slot){key, id};
		}
		if (bpf_map_lookup_elem(vals, &id, v))
			continue;
		sum_stats(v, ncpu, &st);
		if (!st.enters && !st.leaves)
			continue;
		if (funcev__is_feature(key.feature)) {
			err = funcev__keep(s, &key, &st, d->take);
			if (err)
				goto cleanup;
			continue;
		}
		st.point = is_point_event(s, key.feature);
		feature = label__resolve(s, d->labels, key.tgid, key.feature, fbuf, sizeof(fbuf),
					 label_errors);
		/* --events=FEATURE,...: ABI v1 marks count all, the view shows these. */
		if (!eventsel__wanted(s, feature))
			continue;
		instance = key.instance ? label__resolve(s, d->labels, key.tgid, key.instance, ibuf,
							 sizeof(ibuf), label_errors)
					: NULL;
		err = profile__add_events(p, key.tgid, feature, instance, &st);
		if (err)
			goto cleanup;
	}
cleanup:
	if (v)
		free_slots(s, taken, nr_taken, v, ncpu);
	free(taken);
	free(v);
	return err;
}

/* Deletes the labels the processes of d copied (not the interned ones, tgid 0). */
static void drop_labels(struct session *s, struct drain *d)
{
	int fd = bpf_map__fd(s->skel->maps.labels);
	struct fsp_label_key key, last, *prev = NULL;

	while (!bpf_map_get_next_key(fd, prev, &key)) {
		last = key;
		prev = &last;
		if (key.tgid && drain_wants(d, key.tgid) && drain_keep(d, &key, sizeof(key)))
			break;
	}
	drain_delete(d, fd, sizeof(key));
}

/*
 * Off-CPU time of the threads still switched out: the scheduler hook is
 * detached first (no more switches are charged), then a task iterator charges
 * each pending interval up to now. Best effort: on failure that time is lost.
 */
static void flush_offcpu(struct session *s)
{
	char buf[64];
	ssize_t n;
	int fd, link;

	/* From here a pending interval may end unseen: not a missed event. */
	s->skel->bss->offcpu_detaching = true;
	if (s->switch_fd >= 0)
		close(s->switch_fd);
	s->switch_fd = -1;
	/* The iterator measures up to this CPU's run-queue clock, which the
	 * scheduler updates when the CPU is yielded (else within a tick). */
	sched_yield();
	link = bpf_link_create(PROG_FD(s, flush_offcpu), 0, BPF_TRACE_ITER, NULL);
	if (link < 0) {
		log__err("cannot charge the off-CPU time of sleeping threads: %s", strerror(-link));
		return;
	}
	fd = bpf_iter_create(link);
	if (fd < 0) {
		log__err("cannot charge the off-CPU time of sleeping threads: %s", strerror(errno));
		goto cleanup;
	}
	do
		n = read(fd, buf, sizeof(buf));
	while (n > 0 || (n < 0 && errno == EINTR));
	if (n < 0)
		log__err("cannot charge the off-CPU time of sleeping threads: %s", strerror(errno));
	close(fd);
cleanup:
	close(link);
}

/* The counters of the ABI v2 stacks the sampler saw (of d's processes),
 * added to sum; taken out of the map with d->take. */
static void v2_counters(struct session *s, struct fsp_v2_counters *sum, struct drain *d)
{
	int fd = bpf_map__fd(s->skel->maps.v2_counts);
	struct fsp_v2_key key, last, *prev = NULL;
	struct fsp_v2_counters c;

	while (!bpf_map_get_next_key(fd, prev, &key)) {
		last = key;
		prev = &last;
		if (!drain_wants(d, (__u32)key.tgid) || bpf_map_lookup_elem(fd, &key, &c))
			continue;
		if (drain_keep(d, &key, sizeof(key)))
			break;
		sum->stale += c.stale;
		sum->overflows += c.overflows;
		sum->unmatched += c.unmatched;
		sum->skipped += c.skipped;
	}
	drain_delete(d, fd, sizeof(key));
}

/* The process records of the targets (of pids, if not NULL), with their
 * PIDs in their namespaces. */
static int add_processes(struct session *s, struct profile *p, const struct drain *d)
{
	int err;

	for (size_t i = 0; i < s->nr_targets; i++) {
		const struct target *t = &s->targets[i];

		if (!drain_wants(d, t->pid))
			continue;
		err = profile__add_pid(p, t->pid);
		/* In a container: its PID there too. */
		if (!err && t->nspid && t->nspid != t->pid)
			err = profile__set_process_nspid(p, t->pid, t->nspid);
		if (err)
			return err;
	}
	return 0;
}

/* The records of d's processes from the maps into p (taken out of them
 * with d->take, with their payload records): labels are resolved before
 * they go. */
static int drain_into(struct session *s, struct profile *p, struct drain *d, uint64_t *label_errors)
{
	struct label_cache labels;
	int err = add_processes(s, p, d);

	label_cache__read(s, &labels);
	d->labels = &labels;
	if (!err)
		err = collect_stacks(s, p, label_errors, d);
	if (!err)
		err = collect_counts(s, p, d);
	if (!err && s->opts.events)
		err = collect_events(s, p, label_errors, d);
	d->labels = NULL;
	label_cache__free(&labels);
	if (!err && d->take) {
		drop_labels(s, d);
		err = collect_payloads(s, p, d);
		if (!err)
			err = payloads__drop(s->payloads, d->pids, d->nr);
		v2_counters(s, &s->retired_v2, d);
	}
	return err;
}

uint64_t collect__stat(struct session *s, __u32 stat)
{
	return stat_sum(s, stat);
}

/* Adds tgid to the sorted set *pids (nr, cap). 0 or -ENOMEM. */
static int pid_set_add(pid_t **pids, size_t *nr, size_t *cap, pid_t pid)
{
	size_t lo = 0, hi = *nr;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if ((*pids)[mid] == pid)
			return 0;
		if ((*pids)[mid] < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (fsp_grow((void **)pids, cap, *nr + 1, sizeof(**pids)))
		return -ENOMEM;
	memmove(*pids + lo + 1, *pids + lo, (*nr - lo) * sizeof(**pids));
	(*pids)[lo] = pid;
	(*nr)++;
	return 0;
}

int collect__pids(struct session *s, pid_t **pids, size_t *nr)
{
	int counts = bpf_map__fd(s->skel->maps.counts), stacks = bpf_map__fd(s->skel->maps.stacks);
	struct fsp_count_key ck, clast, *cprev = NULL;
	struct fsp_stack_key sk, slast, *sprev = NULL;
	size_t cap = 0;
	int err = 0;

	*pids = NULL;
	*nr = 0;
	while (!err && !bpf_map_get_next_key(counts, cprev, &ck)) {
		clast = ck;
		cprev = &clast;
		err = pid_set_add(pids, nr, &cap, (pid_t)ck.tgid);
	}
	while (!err && !bpf_map_get_next_key(stacks, sprev, &sk)) {
		slast = sk;
		sprev = &slast;
		err = pid_set_add(pids, nr, &cap, (pid_t)sk.tgid);
	}
	return err;
}

int collect__stacks(struct session *s, struct profile *p)
{
	struct label_cache labels;
	struct drain all = {0};
	uint64_t label_errors = 0;
	int err;

	label_cache__read(s, &labels);
	all.labels = &labels;
	err = collect_stacks(s, p, &label_errors, &all);
	label_cache__free(&labels);
	return err;
}

int collect__take(struct session *s, struct profile *p, const pid_t *pids, size_t nr)
{
	struct drain d = {.nr = nr, .take = true};
	pid_t *sorted = malloc((nr ? nr : 1) * sizeof(*sorted));
	int err;

	if (!sorted)
		return -ENOMEM;
	memcpy(sorted, pids, nr * sizeof(*sorted));
	qsort(sorted, nr, sizeof(*sorted), cmp_pid);
	d.pids = sorted;
	/* The payload records of their last samples, still in their ring;
	 * their call records joined while their stacks are in the map. */
	loop__consume(s);
	err = callrecs__flush(s);
	if (!err)
		err = drain_into(s, p, &d, &s->retired_label_errors);
	free(sorted);
	return err;
}

/* Everything the maps hold so far into p, after the exited processes'
 * records taken out of them earlier; the sampler may still be running. */
static int collect_into(struct session *s, struct profile *p)
{
	uint64_t label_errors = s->retired_label_errors;
	struct fsp_v2_counters v2 = s->retired_v2;
	struct drain all = {0};
	int err;

	/* The payloads still in their ring, before the counts are read: the
	 * sampler sends a sample's payloads before it counts the sample, so
	 * every record read is in the counts read after it (add_samples). Read
	 * after the counts, as the sampler may still run (--interval), the
	 * records of samples taken meanwhile were counted on top of them. */
	loop__consume(s);
	funcev__begin(s);
	err = retire__replay(s, p);
	if (!err)
		err = drain_into(s, p, &all, &label_errors);
	if (!err)
		err = collect_payloads(s, p, &all);
	if (err)
		return err;
	if (s->opts.calls) {
		err = callrecs__collect(s, p);
		if (err)
			return err;
	}
	v2_counters(s, &v2, &all);
	profile__set_diag(p, DIAG_LOST_SAMPLES, stat_sum(s, FSP_STAT_LOST_SAMPLES));
	profile__set_diag(p, DIAG_UNKNOWN_STACKS, stat_sum(s, FSP_STAT_STACK_DROPS));
	profile__set_diag(p, DIAG_UNMATCHED_LEAVES,
			  stat_sum(s, FSP_STAT_UNMATCHED_LEAVES) + v2.unmatched);
	profile__set_diag(p, DIAG_OVERFLOWS, stat_sum(s, FSP_STAT_OVERFLOWS) + v2.overflows);
	profile__set_diag(p, DIAG_STALE_MARKS, stat_sum(s, FSP_STAT_STALE_MARKS) + v2.stale);
	profile__set_diag(p, DIAG_UNREADABLE_STACKS, stat_sum(s, FSP_STAT_V2_UNREADABLE));
	profile__set_diag(p, DIAG_SKIPPED_MARKS, v2.skipped);
	profile__set_diag(p, DIAG_TRUNCATED, stat_sum(s, FSP_STAT_TRUNCATED));
	profile__set_diag(p, DIAG_LABEL_ERRORS, label_errors + stat_sum(s, FSP_STAT_LABEL_DROPS));
	profile__set_diag(p, DIAG_ARG_ERRORS,
			  stat_sum(s, FSP_STAT_ARG_ERRORS) + stat_sum(s, FSP_STAT_NO_STORAGE));
	profile__set_diag(p, DIAG_EVENTS_LOST, stat_sum(s, FSP_STAT_EVENTS_LOST));
	profile__set_diag(p, DIAG_ATTACH_ERRORS,
			  s->attach_errors + stat_sum(s, FSP_STAT_V2_DSO_DROPS));
	profile__set_diag(p, DIAG_EVENT_DROPS, stat_sum(s, FSP_STAT_EVENT_DROPS));
	profile__set_diag(p, DIAG_OFFCPU_RECOVERED, stat_sum(s, FSP_STAT_OFFCPU_RECOVERED));
	profile__set_diag(p, DIAG_OFFCPU_LOST,
			  stat_sum(s, FSP_STAT_OFFCPU_DROPS) + stat_sum(s, FSP_STAT_OFFCPU_NOREC));
	profile__set_diag(p, DIAG_CHARGE_DROPS, stat_sum(s, FSP_STAT_CHARGE_DROPS));
	profile__set_diag(p, DIAG_UNTRACKED, s->untracked + stat_sum(s, FSP_STAT_UNTRACKED));
	profile__set_diag(p, DIAG_FOLDED_PROCESSES, retire__folded(s));
	profile__set_diag(p, DIAG_NATIVE_LOST, stat_sum(s, FSP_STAT_NATIVE_LOST));
	profile__set_diag(p, DIAG_SAMPLE_LABEL_ERRORS, stat_sum(s, FSP_STAT_SAMPLE_LABEL_ERRORS));
	return 0;
}

int session__snapshot(struct session *s, struct profile *p)
{
	if (s->collected)
		return -EINVAL;
	return collect_into(s, p);
}

int session__snapshot_stacks(struct session *s, struct profile *p, bool symbolize)
{
	int err = session__snapshot(s, p);

	if (!err && s->stacks)
		err = symbolize ? stacks__fill(s->stacks, p) : stacks__fill_raw(s->stacks, p);
	if (!err)
		err = funcev__fill(s, p);
	if (!err && s->stacks && s->opts.calls)
		err = callrecs__collect_native(s, p);
	return err;
}

int session__collect(struct session *s, struct profile *p)
{
	int err;

	if (!s->end_mono) {
		s->end_mono = now(CLOCK_MONOTONIC);
		s->end_wall = now(CLOCK_REALTIME);
	}
	loader__stop_sampler(s);
	if (s->opts.offcpu)
		flush_offcpu(s);
	/* No probe counts from here on: the links go in no given order. */
	s->skel->bss->probes_ended = true;
	/* The probes' detach waits while the maps are read and reported. */
	attach__detach_start(s);
	err = collect_into(s, p);
	/* The native stacks (the ring was read last by collect_into), with
	 * symbols: at the end only, not in the live view's snapshots. */
	if (!err && s->stacks)
		err = stacks__fill(s->stacks, p);
	if (!err)
		err = funcev__fill(s, p);
	if (!err && s->stacks && s->opts.calls)
		err = callrecs__collect_native(s, p);
	if (err)
		return err;
	log__verbose("%llu probe hits, %llu samples of the targets",
		     (unsigned long long)stat_sum(s, FSP_STAT_PROBE_HITS),
		     (unsigned long long)stat_sum(s, FSP_STAT_SAMPLES));
	if (stat_sum(s, FSP_STAT_OFFCPU_DROPS))
		log__err("%llu off-CPU intervals were not recorded: the counts map was full "
			 "(raise --max-stacks)",
			 (unsigned long long)stat_sum(s, FSP_STAT_OFFCPU_DROPS));
	if (stat_sum(s, FSP_STAT_OFFCPU_NOREC))
		log__err("%llu off-CPU intervals were not recorded: no off-CPU record could be "
			 "allocated for their thread (more than %u threads, or out of memory)",
			 (unsigned long long)stat_sum(s, FSP_STAT_OFFCPU_NOREC), OFFCPU_SPILL);
	s->collected = true;
	return 0;
}
