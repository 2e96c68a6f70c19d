// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Draining the BPF maps into an analysis profile: stacks with their labels
 * resolved, samples and off-CPU time per thread, the event view, and the
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

#include "log.h"
#include "probemap_sites.h"
#include "procmaps.h"
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

/* A label from the labels map, else from the live process, else a placeholder. */
static const char *resolve_label(struct session *s, __u32 tgid, __u64 addr, char *buf, size_t size,
				 uint64_t *errors)
{
	struct fsp_label_key key = {.tgid = tgid, .addr = addr};
	struct fsp_label l;
	char mem[64];
	ssize_t n;
	int fd;

	if (probemap_sites__is_feature_id(addr)) {
		uint64_t i = addr & ~(FSP_ID_SYNTH | FSP_ID_FEATURE);

		if (i < s->nr_feature_names)
			return s->feature_names[i];
		(*errors)++;
		snprintf(buf, size, "<mapped feature %llu>", (unsigned long long)i);
		return buf;
	}
	if (probemap_sites__is_label_id(addr)) {
		/* Interned by a mapped probe, for all processes. */
		key.tgid = 0;
		if (!bpf_map_lookup_elem(bpf_map__fd(s->skel->maps.labels), &key, &l)) {
			snprintf(buf, size, "%.*s", (int)l.len, l.str);
			return buf;
		}
		return "(label not kept: the labels map was full; raise --max-stacks)";
	}
	if (!bpf_map_lookup_elem(bpf_map__fd(s->skel->maps.labels), &key, &l) && l.len) {
		snprintf(buf, size, "%.*s", (int)l.len, l.str);
		return buf;
	}
	snprintf(mem, sizeof(mem), "/proc/%u/mem", tgid);
	fd = open(mem, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = pread(fd, buf, size - 1, (off_t)addr);
		close(fd);
		if (n > 0) {
			buf[n] = 0;
			if (memchr(buf, 0, n) || n == (ssize_t)size - 1)
				return buf;
		}
	}
	for (size_t i = 0; i < s->nr_targets; i++) {
		const struct target *t = &s->targets[i];

		if (t->pid == (pid_t)tgid &&
		    procmaps__read_string(t->mappings, t->nr_mappings, addr, buf, size) >= 0)
			return buf;
	}
	(*errors)++;
	snprintf(buf, size, "<label at 0x%llx>", (unsigned long long)addr);
	return buf;
}

static int collect_stacks(struct session *s, struct profile *p, uint64_t *label_errors)
{
	int fd = bpf_map__fd(s->skel->maps.stacks), err = 0;
	struct fsp_stack_key key, next, *prev = NULL;
	struct profile_frame frames[FSP_MAX_DEPTH];
	char(*bufs)[2][FSP_LABEL_LEN + 32];
	struct fsp_stack *st;

	st = malloc(sizeof(*st));
	bufs = malloc(FSP_MAX_DEPTH * sizeof(*bufs));
	if (!st || !bufs) {
		err = -ENOMEM;
		goto cleanup;
	}
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, st) || !st->depth || st->depth > FSP_MAX_DEPTH)
			continue;
		for (__u64 i = 0; i < st->depth; i++) {
			const struct fsp_frame *f = &st->frames[i];

			frames[i].kind =
				f->kind == FSP_FRAME_ANTIMARK ? PROFILE_ANTIMARK : PROFILE_MARK;
			frames[i].payload = f->payload;
			frames[i].feature = resolve_label(s, key.tgid, f->feature, bufs[i][0],
							  sizeof(bufs[i][0]), label_errors);
			frames[i].instance =
				f->instance ? resolve_label(s, key.tgid, f->instance, bufs[i][1],
							    sizeof(bufs[i][1]), label_errors)
					    : NULL;
		}
		err = profile__add_stack(p, key.tgid, key.hash, frames, st->depth);
		if (err == -EEXIST)
			err = 0;
		if (err)
			break;
	}
cleanup:
	free(st);
	free(bufs);
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

/* Samples and off-CPU time per (thread, stack). Threads are named in the
 * order their entries were last updated, so each ends with its latest name (a
 * launched command is sampled as "fsp-bpf" until its exec, a worker before
 * pthread_setname_np). */
static int collect_counts(struct session *s, struct profile *p)
{
	int fd = bpf_map__fd(s->skel->maps.counts), err = 0;
	struct fsp_count_key key, *prev = NULL;
	struct count_entry *ents = NULL;
	size_t n = 0, cap = 0;

	while (!bpf_map_get_next_key(fd, prev, &key)) {
		if (fsp_grow((void **)&ents, &cap, n + 1, sizeof(*ents))) {
			err = -ENOMEM;
			goto cleanup;
		}
		ents[n].key = key;
		prev = &ents[n].key;
		if (bpf_map_lookup_elem(fd, &key, &ents[n].c))
			continue;
		ents[n].c.comm[FSP_COMM_LEN - 1] = 0;
		n++;
	}
	qsort(ents, n, sizeof(*ents), cmp_seen);
	for (size_t i = 0; i < n; i++) {
		struct count_entry *e = &ents[i];

		err = profile__add_pid(p, e->key.tgid);
		if (!err)
			err = profile__rename_thread(p, e->key.tgid, e->key.tid, e->c.comm);
		if (err)
			goto cleanup;
		/* Entries of off-CPU time only have no samples. -ENOENT: the
		 * stack could not be stored; the time still counts in the total. */
		if (e->c.samples) {
			err = profile__add_samples(p, e->key.tgid, e->key.tid, e->key.hash,
						   e->c.samples);
			if (err && err != -ENOENT)
				goto cleanup;
		}
		if (e->c.offcpu_ns) {
			err = profile__add_offcpu(p, e->key.tgid, e->key.tid, e->key.hash,
						  e->c.offcpu_ns);
			if (err && err != -ENOENT)
				goto cleanup;
		}
		err = 0;
	}
cleanup:
	free(ents);
	return err;
}

/*
 * The event view: per (process, feature, instance), the per-CPU statistics
 * of its mark_stats slot, summed, with the labels resolved as in stacks.
 */
static int collect_events(struct session *s, struct profile *p, uint64_t *label_errors)
{
	int ids = bpf_map__fd(s->skel->maps.mark_ids), vals = bpf_map__fd(s->skel->maps.mark_stats);
	int ncpu = libbpf_num_possible_cpus(), err = 0;
	struct fsp_mark_key key, *prev = NULL;
	char fbuf[FSP_LABEL_LEN + 32], ibuf[FSP_LABEL_LEN + 32];
	struct fsp_mark_stats *v = NULL;
	const char *feature, *instance;

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
		struct profile_event_stats st = {0};
		__u32 id;

		prev = &key;
		if (bpf_map_lookup_elem(ids, &key, &id) || bpf_map_lookup_elem(vals, &id, v))
			continue;
		for (int c = 0; c < ncpu; c++) {
			st.enters += v[c].enters;
			st.leaves += v[c].leaves;
			st.total_ns += v[c].total_ns;
			if (v[c].max_ns > st.max_ns)
				st.max_ns = v[c].max_ns;
			for (int b = 0; b < FSP_HIST_BUCKETS; b++)
				st.hist[b] += v[c].hist[b];
		}
		if (!st.enters && !st.leaves)
			continue;
		feature = resolve_label(s, key.tgid, key.feature, fbuf, sizeof(fbuf), label_errors);
		instance = key.instance ? resolve_label(s, key.tgid, key.instance, ibuf,
							sizeof(ibuf), label_errors)
					: NULL;
		err = profile__add_events(p, key.tgid, feature, instance, &st);
		if (err)
			goto cleanup;
	}
cleanup:
	free(v);
	return err;
}

/*
 * Off-CPU time of the threads still switched out: the scheduler hook is
 * detached first (no more switches are charged), then a task iterator charges
 * each pending interval up to now. Best effort: on failure that time is lost.
 */
static void flush_offcpu(struct session *s)
{
	struct bpf_link *link;
	char buf[64];
	ssize_t n;
	int fd;

	bpf_link__destroy(s->switch_link);
	s->switch_link = NULL;
	/* The iterator measures up to this CPU's run-queue clock, which the
	 * scheduler updates when the CPU is yielded (else within a tick). */
	sched_yield();
	link = bpf_program__attach_iter(s->skel->progs.flush_offcpu, NULL);
	if (!link) {
		log__err("cannot charge the off-CPU time of sleeping threads: %s", strerror(errno));
		return;
	}
	fd = bpf_iter_create(bpf_link__fd(link));
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
	bpf_link__destroy(link);
}

/* The counters of the ABI v2 stacks the sampler saw, summed. */
static void v2_counters(struct session *s, struct fsp_v2_counters *sum)
{
	int fd = bpf_map__fd(s->skel->maps.v2_counts);
	struct fsp_v2_key key, *prev = NULL;
	struct fsp_v2_counters c;

	memset(sum, 0, sizeof(*sum));
	while (!bpf_map_get_next_key(fd, prev, &key)) {
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &c))
			continue;
		sum->stale += c.stale;
		sum->overflows += c.overflows;
		sum->unmatched += c.unmatched;
		sum->skipped += c.skipped;
	}
}

/* Everything the maps hold so far into p; the sampler may still be running. */
static int collect_into(struct session *s, struct profile *p)
{
	struct fsp_v2_counters v2;
	uint64_t label_errors = 0;
	int err;

	for (size_t i = 0; i < s->nr_targets; i++) {
		const struct target *t = &s->targets[i];

		err = profile__add_pid(p, t->pid);
		/* In a container: its PID there too. */
		if (!err && t->nspid && t->nspid != t->pid)
			err = profile__set_process_nspid(p, t->pid, t->nspid);
		if (err)
			return err;
	}
	err = collect_stacks(s, p, &label_errors);
	if (!err)
		err = collect_counts(s, p);
	if (!err && s->opts.events)
		err = collect_events(s, p, &label_errors);
	if (err)
		return err;
	v2_counters(s, &v2);
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
	return 0;
}

int session__snapshot(struct session *s, struct profile *p)
{
	if (s->collected)
		return -EINVAL;
	return collect_into(s, p);
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
	err = collect_into(s, p);
	if (err)
		return err;
	log__verbose("%llu probe hits, %llu samples of the targets",
		     (unsigned long long)stat_sum(s, FSP_STAT_PROBE_HITS),
		     (unsigned long long)stat_sum(s, FSP_STAT_SAMPLES));
	if (stat_sum(s, FSP_STAT_OFFCPU_DROPS))
		log__err("%llu off-CPU intervals were not recorded: the counts map was full "
			 "(raise --max-stacks)",
			 (unsigned long long)stat_sum(s, FSP_STAT_OFFCPU_DROPS));
	s->collected = true;
	return 0;
}
