// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Loading the BPF programs in parts, at the same time. The kernel verifies
 * one program after the other within a load, and that verification is what
 * takes the time at the start. So the skeleton loads its maps alone, and
 * each part (the sampler, the hooks, the ABI v1 probes, the probe maps'
 * programs) is a copy of the skeleton that reuses those maps and loads its
 * own programs, on a thread of its own: the parts verify side by side on
 * the machine's CPUs. A loaded part's programs are kept by their fds and
 * the copy is closed (its descriptors of the maps with it). Programs a
 * session does not use are not loaded at all (loader.c switches off their
 * autoload). The ABI v1 probes' programs, which most targets do not need
 * (probe ABI v2 marks do not trap), load with the others when the target's
 * program has such marks or with -a, else beside them in the background for
 * -p (the start does not wait for them), on need for a launched command. A
 * part that runs out of descriptors loads again alone.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "log.h"
#include "session_int.h"

enum part_id { PART_SAMPLER, PART_HOOKS, PART_MARKS, PART_MAPPED, NR_PARTS };

static const char *const part_names[NR_PARTS] = {"the sampler", "the hooks", "the ABI v1 probes",
						 "the probe maps"};

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

struct parts {
	bool loaded[NR_PARTS];
	bool load[NR_PARTS][NR_PROGS]; /* by program index: loads in that part */
	bool any[NR_PARTS]; /* the part has programs to load */
	size_t nr_progs;
	/* The ABI v1 probes' part, loading on a thread of its own once the
	 * others are: joined when a file with such probes comes. */
	struct part_load marks;
	pthread_t marks_th;
	bool marks_loading;
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
		if (ps->nr_progs == NR_PROGS)
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

/*
 * Keeps the programs of a loaded part in s->prog_fds (by their place in the
 * skeleton), then closes the part's copy of the skeleton: its programs live
 * on through those fds, and its copies of the maps' fds (one per map, in
 * every part) are not kept open for the session. 0 or -errno.
 */
static int keep_part(struct session *s, struct part_load *p)
{
	struct bpf_program **progs = (struct bpf_program **)&p->skel->progs;
	int err = 0;

	_Static_assert(sizeof(p->skel->progs) == NR_PROGS * sizeof(progs[0]), "progs: pointers");
	for (size_t i = 0; i < NR_PROGS && !err; i++) {
		int fd = bpf_program__fd(progs[i]);

		if (fd < 0)
			continue;
		if (s->prog_fds[i] >= 0) /* a part kept in part before */
			close(s->prog_fds[i]);
		s->prog_fds[i] = fcntl(fd, F_DUPFD_CLOEXEC, 0);
		if (s->prog_fds[i] < 0)
			err = -errno;
	}
	profiler_bpf__destroy(p->skel);
	p->skel = NULL;
	s->parts->loaded[p->id] = !err;
	return err;
}

static struct part_load part_new(const struct session *s, enum part_id id)
{
	return (struct part_load){.id = id,
				  .maps = s->skel,
				  .load = s->parts->load[id],
				  .nr_progs = s->parts->nr_progs};
}

/* A part loaded, said and kept; or not (tried again when needed again,
 * e.g. after EMFILE). Its error or 0. */
static int part_done(struct session *s, struct part_load *p)
{
	if (p->err) {
		profiler_bpf__destroy(p->skel);
		p->skel = NULL;
		return p->err;
	}
	report_part(p);
	return keep_part(s, p);
}

/* Loads the parts in ids (nr of them) side by side. 0 or -errno. */
static int load_parts(struct session *s, const enum part_id *ids, size_t nr)
{
	struct part_load p[NR_PARTS] = {};
	pthread_t th[NR_PARTS];
	bool started[NR_PARTS] = {};
	int err = 0, e;

	for (size_t k = 0; k < nr; k++) {
		p[k] = part_new(s, ids[k]);
		/* Without a thread: here, in turn. */
		started[k] = !pthread_create(&th[k], NULL, load_part, &p[k]);
		if (!started[k])
			load_part(&p[k]);
	}
	for (size_t k = 0; k < nr; k++) {
		if (started[k])
			pthread_join(th[k], NULL);
		e = part_done(s, &p[k]);
		/* Out of descriptors (each part's copy holds one per map while
		 * it loads: a low RLIMIT_NOFILE): again alone, below, once the
		 * others' copies are closed. */
		if (e == -EMFILE)
			p[k].err = e;
		else
			err = err ? err : e;
	}
	for (size_t k = 0; k < nr; k++) {
		if (p[k].err != -EMFILE)
			continue;
		p[k] = part_new(s, ids[k]);
		load_part(&p[k]);
		e = part_done(s, &p[k]);
		err = err ? err : e;
	}
	return err;
}

/* Do the ABI v1 probes' programs load with the others? With --events
 * (every ABI v2 mark also traps), when the target's program has such marks,
 * and system-wide (-a runs for long, and any process may bring them). */
static bool marks_now(const struct session_opts *o)
{
	return o->v2_events || o->v1_marks || o->system_wide;
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
		if (s->parts->any[k] && (k != PART_MARKS || marks_now(&s->opts)))
			ids[nr++] = k;
	/* The ABI v1 probes' part, if it does not load with the others, loads
	 * beside them in the background for -p, whose targets run on while a
	 * library they load is attached: when one with such probes comes, the
	 * programs are ready (the start does not wait for them; started after
	 * the others, they were not yet when a library came at once: 60-100 ms
	 * of test_dynamic dlopen_attach's target unarmed). A launched command
	 * is held at its dlopen until the library is attached: for it they
	 * load on need. */
	if (s->parts->any[PART_MARKS] && !marks_now(&s->opts) && !s->opts.sync_pid) {
		s->parts->marks = part_new(s, PART_MARKS);
		s->parts->marks_loading =
			!pthread_create(&s->parts->marks_th, NULL, load_part, &s->parts->marks);
	}
	return load_parts(s, ids, nr);
}

/* The background load of the ABI v1 probes' part, finished. 0 or -errno. */
static int marks_join(struct session *s)
{
	if (!s->parts->marks_loading)
		return 0;
	pthread_join(s->parts->marks_th, NULL);
	s->parts->marks_loading = false;
	return part_done(s, &s->parts->marks);
}

int parts__load_marks(struct session *s)
{
	static const enum part_id marks = PART_MARKS;
	int err;

	if (!s->parts || s->parts->loaded[PART_MARKS] || !s->parts->any[PART_MARKS])
		return 0;
	err = s->parts->marks_loading ? marks_join(s) : load_parts(s, &marks, 1);
	if (err == -EMFILE) /* beside the others: now alone */
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
	/* Loaded in the background and never needed: not said. */
	if (s->parts->marks_loading) {
		pthread_join(s->parts->marks_th, NULL);
		profiler_bpf__destroy(s->parts->marks.skel);
	}
	for (size_t i = 0; i < NR_PROGS; i++) {
		if (s->prog_fds[i] >= 0)
			close(s->prog_fds[i]);
		s->prog_fds[i] = -1;
	}
	free(s->parts);
	s->parts = NULL;
}
