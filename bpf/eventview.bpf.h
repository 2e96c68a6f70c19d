/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The event view (rodata events_enabled): every mark instance's enters,
 * leaves and durations (minus the time under its feature's antimarks) in the
 * per-CPU mark_stats, with a log2 histogram of the durations.
 */
#ifndef FSP_EVENTVIEW_BPF_H
#define FSP_EVENTVIEW_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "profiler.h"
#include "config.bpf.h"
#include "maps.bpf.h"
#include "util.bpf.h"

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
	id = max_events;
	if (nr_mark_slots < max_events)
		id = __sync_fetch_and_add(&nr_mark_slots, 1);
	/* All handed out once: one of an exited process, freed by userspace. */
	if (id >= max_events && bpf_map_pop_elem(&free_slots, &id))
		return SLOT_NONE;
	if (bpf_map_update_elem(&mark_ids, &key, &id, BPF_NOEXIST)) {
		/* Another thread of the process inserted it first: its slot wins
		 * and ours goes back. Or mark_ids is full. */
		bpf_map_push_elem(&free_slots, &id, 0);
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

/* v2stack.bpf.h: the call number of the ABI v2 frame of `feature`, entered
 * at stack pointer sp, that the current thread has just popped. */
__noinline __u64 v2_left_call(__u64 feature, __u64 sp);

/* Whether a call of ns of instance slot is among the slowest this CPU has
 * seen of it (calls_exact_top), else one in (calls as long or longer /
 * calls_exact_top) at random: the leaves of a long session send a number of
 * records that grows with the log of its calls, not with them. count_leave
 * has counted the call in the histogram already. */
static __always_inline bool exact_wanted(__u32 slot, __u64 ns)
{
	struct fsp_mark_stats *ms;
	__u64 above = 0;
	__u32 b;

	if (!calls_exact_top || slot == SLOT_NONE)
		return true;
	ms = bpf_map_lookup_elem(&mark_stats, &slot);
	if (!ms)
		return true;
	b = hist_bucket(ns);
	for (__u32 i = 0; i < FSP_HIST_BUCKETS; i++)
		if (i >= b)
			above += ms->hist[i];
	return above <= calls_exact_top || bpf_get_prandom_u32() % above < calls_exact_top;
}

/* record --calls --events: a call as long as calls_exact_ns or longer sends
 * its exact duration (profiler.h, FSP_CALL_EXACT_DEPTH), the slowest of its
 * instance and a thinning sample of the others (exact_wanted); a shadow
 * frame's call number is its ABI v2 frame's, looked up now (only for such
 * calls: at every enter it cost a pair 354 ns, bench/calls.sh). A
 * subprogram. */
static __noinline void send_exact(const struct tframe *f, __u64 now)
{
	__u64 ns, id = bpf_get_current_pid_tgid(), call;
	struct fsp_call_rec *r;

	if (!f)
		return;
	ns = now - f->t_enter;
	ns = ns > f->anti_ns ? ns - f->anti_ns : 0;
	if (ns < calls_exact_ns || !exact_wanted(f->slot, ns))
		return;
	call = f->flags & TF_SHADOW ? v2_left_call(f->feature, f->sp) : f->call;
	if (!call)
		return;
	r = bpf_ringbuf_reserve(&calls_rb, FSP_CALL_REC_HEAD + 2 * sizeof(__u64), 0);
	if (!r) {
		stat_inc(FSP_STAT_CALLS_LOST);
		return;
	}
	r->tgid = id >> 32;
	r->tid = (__u32)id;
	r->hash = 0;
	r->time_ns = now;
	r->depth = FSP_CALL_EXACT_DEPTH;
	r->call[0] = call;
	r->call[1] = ns;
	bpf_ringbuf_submit(r, BPF_RB_NO_WAKEUP);
}

/* Frame i is being popped by its leave at `now` (event view). */
static __always_inline void frame_left(struct tstack *st, __u32 i, __u64 now)
{
	struct tframe *f = &st->f[slot(i)];

	if (f->kind != FSP_FRAME_MARK) {
		antimark_left(st, i, now - f->t_enter);
		return;
	}
	if (f->slot != SLOT_NONE)
		count_leave(f->slot, f->t_enter, f->anti_ns, now);
	if (calls_exact_ns)
		send_exact(f, now);
}

#endif /* FSP_EVENTVIEW_BPF_H */
