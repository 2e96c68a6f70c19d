// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Loading the BPF programs in parts, at the same time. The kernel verifies
 * one program after the other within a load, and that verification is what
 * takes the time at the start. So the skeleton loads its maps alone, and
 * each part (the sampler, the hooks, the ABI v1 probes, the probe maps'
 * programs) is a copy of the skeleton that reuses those maps and loads its
 * own programs, on a thread of its own: the parts verify side by side on
 * the machine's CPUs. Programs a session does not use are not loaded at all
 * (loader.c switches off their autoload), and the ABI v1 probes' programs
 * only when a file with such probes comes (most targets have none: probe ABI
 * v2 marks do not trap), unless the target's program has them.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "log.h"
#include "session_int.h"

enum part_id { PART_SAMPLER, PART_HOOKS, PART_MARKS, PART_MAPPED, NR_PARTS };

/* More programs than the skeleton has. */
#define MAX_PROGS 64

static const char *const part_names[NR_PARTS] = {"the sampler", "the hooks", "the ABI v1 probes",
						 "the probe maps"};

struct parts {
	struct profiler_bpf *skel[NR_PARTS]; /* NULL: not loaded (yet) */
	bool load[NR_PARTS][MAX_PROGS]; /* by program index: loads in that part */
	bool any[NR_PARTS]; /* the part has programs to load */
	size_t nr_progs;
};

/* The part a program loads in: the heavy ones apart, the ABI v1 probes
 * apart (loaded when needed), the rest (hooks, v2_announce, tracepoints:
 * small programs) together. */
static enum part_id part_of(const char *prog)
{
	static const char *const marks[] = {"mark_enter", "mark_leave", "antimark_enter",
					    "antimark_leave"};

	if (!strcmp(prog, "sample") || !strcmp(prog, "on_switch"))
		return PART_SAMPLER;
	if (!strcmp(prog, "map_enter") || !strcmp(prog, "map_leave"))
		return PART_MAPPED;
	for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]); i++)
		if (!strcmp(prog, marks[i]))
			return PART_MARKS;
	return PART_HOOKS;
}

/* A part being loaded. */
struct part_load {
	enum part_id id;
	struct profiler_bpf *skel;
	const struct profiler_bpf *maps; /* whose maps and configuration it takes */
	const bool *load;
	size_t nr_progs;
	int err;
	double start, end; /* CLOCK_MONOTONIC */
	uint64_t end_boot; /* CLOCK_BOOTTIME ns, as the kernel's load_time */
};

static uint64_t boottime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Makes the part's copy take the maps of p->maps: the same kernel maps, so
 * also the same (frozen) configuration the verifier reads. */
static int reuse_maps(struct part_load *p)
{
	struct bpf_map *m = NULL, *from = NULL;
	int err;

	/* Not what the verifier reads (the reused map's frozen copy), but what
	 * the copy says it runs with. */
	memcpy(p->skel->rodata, p->maps->rodata, sizeof(*p->skel->rodata));
	for (;;) {
		m = bpf_object__next_map(p->skel->obj, m);
		from = bpf_object__next_map(p->maps->obj, from);
		if (!m || !from)
			return m || from ? -EINVAL : 0;
		err = bpf_map__reuse_fd(m, bpf_map__fd(from));
		if (err)
			return err;
	}
}

/* Opens the part's copy with the programs it loads, their types as the
 * skeleton's. */
static int open_part(struct part_load *p)
{
	struct bpf_program *prog = NULL, *orig = NULL;
	int err;

	p->skel = profiler_bpf__open();
	if (!p->skel)
		return -errno;
	for (size_t i = 0; i < p->nr_progs; i++) {
		prog = bpf_object__next_program(p->skel->obj, prog);
		orig = bpf_object__next_program(p->maps->obj, orig);
		if (!prog || !orig)
			return -EINVAL;
		err = bpf_program__set_autoload(prog, p->load[i]);
		if (!err && p->load[i])
			err = bpf_program__set_expected_attach_type(
				prog, bpf_program__expected_attach_type(orig));
		if (err)
			return err;
	}
	return reuse_maps(p);
}

static void *load_part(void *arg)
{
	struct part_load *p = arg;

	p->start = now(CLOCK_MONOTONIC);
	p->err = open_part(p);
	if (!p->err)
		p->err = profiler_bpf__load(p->skel);
	p->end = now(CLOCK_MONOTONIC);
	p->end_boot = boottime_ns();
	return NULL;
}

/* -v: the part's time and each program's: the instructions the verifier
 * went through, and the time until the next one's load began (the kernel's
 * load_time marks when each load began). */
static void report_part(const struct part_load *p)
{
	char line[768] = "";
	size_t len = 0;
	struct bpf_program *prog;
	struct bpf_prog_info prev = {};
	const char *name = NULL;

	if (!log__enabled(LOG_VERBOSE))
		return;
	bpf_object__for_each_program(prog, p->skel->obj) {
		struct bpf_prog_info info = {};
		__u32 size = sizeof(info);

		if (bpf_program__fd(prog) < 0 ||
		    bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &size))
			continue;
		if (name && len < sizeof(line))
			len += snprintf(line + len, sizeof(line) - len, "%s %u insns %.3f s, ",
					name, prev.verified_insns,
					(info.load_time - prev.load_time) / 1e9);
		prev = info;
		name = bpf_program__name(prog);
	}
	if (name && len < sizeof(line))
		snprintf(line + len, sizeof(line) - len, "%s %u insns %.3f s", name,
			 prev.verified_insns,
			 p->end_boot > prev.load_time ? (p->end_boot - prev.load_time) / 1e9 : 0.0);
	log__phase("loaded %s in %.3f s: %s", part_names[p->id], p->end - p->start, line);
}

/* Each program that autoloads in the skeleton goes to its part; the
 * skeleton itself then loads none. */
static int assign(struct parts *ps, struct profiler_bpf *skel)
{
	struct bpf_program *prog;

	bpf_object__for_each_program(prog, skel->obj) {
		if (ps->nr_progs == MAX_PROGS)
			return -E2BIG;
		if (bpf_program__autoload(prog)) {
			enum part_id id = part_of(bpf_program__name(prog));

			ps->load[id][ps->nr_progs] = true;
			ps->any[id] = true;
			bpf_program__set_autoload(prog, false);
		}
		ps->nr_progs++;
	}
	return 0;
}

/* Keeps a loaded part and its programs in s->progs (by their place in the
 * skeleton). */
static void keep_part(struct session *s, enum part_id id, struct profiler_bpf *skel)
{
	struct bpf_program **dst = (struct bpf_program **)&s->progs;
	struct bpf_program **src = (struct bpf_program **)&skel->progs;

	_Static_assert(sizeof(s->progs) % sizeof(dst[0]) == 0, "progs: an array of pointers");
	s->parts->skel[id] = skel; /* freed with the session */
	for (size_t i = 0; i < sizeof(s->progs) / sizeof(dst[0]); i++)
		if (bpf_program__fd(src[i]) >= 0)
			dst[i] = src[i];
}

/* Loads the parts in ids (nr of them) side by side. 0 or -errno. */
static int load_parts(struct session *s, const enum part_id *ids, size_t nr)
{
	struct part_load p[NR_PARTS] = {};
	pthread_t th[NR_PARTS];
	bool started[NR_PARTS] = {};
	int err = 0;

	for (size_t k = 0; k < nr; k++) {
		p[k] = (struct part_load){.id = ids[k],
					  .maps = s->skel,
					  .load = s->parts->load[ids[k]],
					  .nr_progs = s->parts->nr_progs};
		/* Without a thread: here, in turn. */
		started[k] = !pthread_create(&th[k], NULL, load_part, &p[k]);
		if (!started[k])
			load_part(&p[k]);
	}
	for (size_t k = 0; k < nr; k++) {
		if (started[k])
			pthread_join(th[k], NULL);
		if (p[k].skel)
			keep_part(s, p[k].id, p[k].skel);
		if (p[k].err && !err)
			err = p[k].err;
		else if (!p[k].err)
			report_part(&p[k]);
	}
	return err;
}

int parts__load(struct session *s)
{
	enum part_id ids[NR_PARTS];
	double t0 = now(CLOCK_MONOTONIC);
	size_t nr = 0;
	int err;

	s->parts = calloc(1, sizeof(*s->parts));
	if (!s->parts)
		return -ENOMEM;
	err = assign(s->parts, s->skel);
	if (err)
		return err;
	/* The maps (and the frozen configuration) alone. */
	err = profiler_bpf__load(s->skel);
	if (err)
		return err;
	log__phase("created the BPF maps in %.3f s", now(CLOCK_MONOTONIC) - t0);
	for (int k = 0; k < NR_PARTS; k++)
		if (s->parts->any[k] && (k != PART_MARKS || s->opts.v2_events || s->opts.v1_marks))
			ids[nr++] = k;
	return load_parts(s, ids, nr);
}

int parts__load_marks(struct session *s)
{
	static const enum part_id marks = PART_MARKS;
	int err;

	if (!s->parts || s->parts->skel[PART_MARKS] || !s->parts->any[PART_MARKS])
		return 0;
	err = load_parts(s, &marks, 1);
	if (err)
		log__err("cannot load the BPF programs of the ABI v1 probes: %s%s", strerror(-err),
			 log__enabled(LOG_VERBOSE) ? "" : "; run with -v for the verifier's log");
	return err;
}

void parts__free(struct session *s)
{
	if (!s->parts)
		return;
	for (int k = 0; k < NR_PARTS; k++)
		profiler_bpf__destroy(s->parts->skel[k]);
	free(s->parts);
	s->parts = NULL;
}
