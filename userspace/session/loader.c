// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Loading the BPF programs: the skeleton sized and configured from the
 * options, the fork/exec (and off-CPU) tracepoints, the per-CPU sampler. */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "log.h"
#include "usdt.h"
#include "session_int.h"

/* libbpf's warnings and information with -v (its own "libbpf: " prefix),
 * escaped: they quote paths of the target's files. */
static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char *text = NULL;
	int n;

	if (level == LIBBPF_DEBUG || !log__enabled(LOG_VERBOSE))
		return 0;
	n = vasprintf(&text, fmt, ap);
	if (n < 0)
		return fputs("libbpf: (a message that did not fit in memory)\n", stderr);
	log__lines(text);
	free(text);
	return n;
}

static bool charges(const struct probemap_feature *f)
{
	return f->charge[0] != 0;
}

static bool samples_label(const struct probemap_feature *f)
{
	return f->label_sample;
}

/* Has an enabled feature of a probe map the property has()? */
static bool enabled_has(const struct session_opts *o, bool (*has)(const struct probemap_feature *))
{
	for (size_t m = 0; m < o->nr_probemaps; m++)
		for (size_t f = 0; f < o->probemaps[m].probemap->nr_features; f++)
			if (o->probemaps[m].enabled[f] &&
			    has(&o->probemaps[m].probemap->features[f]))
				return true;
	return false;
}

/* Does an enabled feature of a probe map charge other threads? */
static bool uses_charges(const struct session_opts *o)
{
	return enabled_has(o, charges);
}

/* Does one read its instance at sample time ("label sample")? */
static bool uses_sample_labels(const struct session_opts *o)
{
	return enabled_has(o, samples_label);
}

/* Attaches the tracing program prog_fd (tp_btf) to what it was loaded for;
 * its link kept for the teardown. 0 or -errno. */
static int attach_tracing(struct session *s, int prog_fd)
{
	return attach__link_fd(s, bpf_link_create(prog_fd, 0, BPF_TRACE_RAW_TP, NULL));
}

static int attach_tracepoints(struct session *s)
{
	int err;

	err = attach_tracing(s, PROG_FD(s, on_fork));
	if (!err)
		s->fork_link = s->nr_links - 1;
	if (!err)
		err = attach_tracing(s, PROG_FD(s, on_exec));
	if (!err && uses_charges(&s->opts))
		err = attach_tracing(s, PROG_FD(s, charge_on_exit));
	/* Before on_exit, which forgets a process's ABI v2 records. */
	if (!err)
		err = attach_tracing(s, PROG_FD(s, keep_exit_stack));
	if (err)
		return err;
	if (s->opts.offcpu || s->opts.system_wide) {
		/* on_exit first: a thread's off-CPU time must not die with it. */
		err = attach_tracing(s, PROG_FD(s, on_exit));
		if (err) {
			log__err("cannot hook thread exits: %s", strerror(-err));
			return err;
		}
	}
	if (s->opts.offcpu) {
		s->switch_fd = bpf_link_create(PROG_FD(s, on_switch), 0, BPF_TRACE_RAW_TP, NULL);
		if (s->switch_fd < 0) {
			err = s->switch_fd;
			log__err("cannot hook the scheduler for --off-cpu: %s", strerror(-err));
			return err;
		}
	}
	return 0;
}

/* -a --comm: the kernel side refuses other processes at their first probe
 * (more names than it holds: userspace alone excludes, after that probe). */
static void set_comms(struct profiler_bpf *skel, const char *list)
{
	char *copy = list ? strdup(list) : NULL, *tok, *save = NULL;
	__u32 n = 0;

	for (tok = copy ? strtok_r(copy, ",", &save) : NULL; tok;
	     tok = strtok_r(NULL, ",", &save)) {
		while (*tok == ' ')
			tok++;
		if (!*tok)
			continue;
		if (n == FSP_MAX_COMMS) {
			n = 0;
			break;
		}
		/* The kernel keeps FSP_COMM_LEN - 1 bytes of a name. */
		snprintf((char *)skel->rodata->comms[n++], FSP_COMM_LEN, "%s", tok);
	}
	skel->rodata->nr_comms = n;
	free(copy);
}

/* --events=FEATURE,...: the features' name hashes, and room to note which
 * sites fired for which (eventsel.c); the calibration probe with --events. */
static void set_event_features(struct profiler_bpf *skel, const struct session_opts *o)
{
	__u64 h[FSP_MAX_EVENT_FEATURES];
	unsigned int n = 0;
	bool filter =
		o->v2_events && o->event_features && !eventsel__hashes(o->event_features, h, &n);

	skel->rodata->nr_event_features = filter ? n : 0;
	for (unsigned int i = 0; filter && i < n; i++)
		skel->rodata->event_features[i] = h[i];
	bpf_map__set_max_entries(skel->maps.skip_sites, filter ? MAX_EVENT_SITES : 1);
	bpf_map__set_max_entries(skel->maps.keep_sites, filter ? MAX_EVENT_SITES : 1);
	bpf_program__set_autoload(skel->progs.trap_cost, o->v2_events);
}

/*
 * Slots of the off-CPU record array (a power of two): one per possible thread
 * id up to pid_max, at most 4096 for -p (a few processes) and 65536 for -a;
 * threads whose slot is taken go to the spill hash. FSP_OFFCPU_SLOTS (a power
 * of two) overrides it: the tests use 1 to send every thread but one there.
 */
static __u32 offcpu_slots(bool system_wide)
{
	unsigned long want = system_wide ? 65536 : 4096, pid_max = 0;
	const char *env = getenv("FSP_OFFCPU_SLOTS");
	__u32 n = 1;
	FILE *f;

	if (env && *env) {
		char *end;
		unsigned long v = strtoul(env, &end, 10);

		if (!*end && v && v <= 65536 && !(v & (v - 1)))
			return v;
		log__err("FSP_OFFCPU_SLOTS=%s is not a power of two from 1 to 65536: ignored", env);
	}
	f = fopen("/proc/sys/kernel/pid_max", "r");
	if (f) {
		if (fscanf(f, "%lu", &pid_max) != 1)
			pid_max = 0;
		fclose(f);
	}
	if (pid_max && pid_max < want)
		want = pid_max;
	while (n < want)
		n <<= 1;
	return n;
}

/* --stacks: what the sampler records with each sample (bpf/native.bpf.h);
 * without it, its ring is a page, never written. */
static void set_native(struct profiler_bpf *skel, const struct session_opts *o)
{
	__u32 rb = o->stacks ? FSP_NATIVE_DEFAULT_RB : 4096;

	skel->rodata->native_user = o->stacks & SESSION_STACKS_USER;
	skel->rodata->native_kernel = o->stacks & SESSION_STACKS_KERNEL;
	skel->rodata->native_stack_size = o->stack_size;
	skel->rodata->native_uretprobes = funcev__on(o);
	skel->rodata->native_rb_size = rb;
	bpf_map__set_max_entries(skel->maps.native_rb, rb);
}

/* Every uprobe program is attached with uprobe_multi links (attach.c,
 * hooks.c): one kernel call per file and program, and a detach that waits
 * for one RCU grace period of its own (a perf-event uprobe's waits under a
 * lock that every other one's waits for too). */
static void set_uprobe_multi(struct profiler_bpf *skel)
{
	struct bpf_program *prog;

	bpf_object__for_each_program(prog, skel->obj) {
		if (!strcmp(bpf_program__section_name(prog), "uprobe"))
			bpf_program__set_expected_attach_type(prog, USDT_TRACE_UPROBE_MULTI);
	}
}

int loader__load(struct session *s)
{
	const struct session_opts *o = &s->opts;
	__u32 max_events = o->max_events ? o->max_events : FSP_DEFAULT_MAX_EVENTS;
	struct profiler_bpf *skel;
	int err;

	libbpf_set_print(libbpf_print);
	skel = profiler_bpf__open();
	if (!skel) {
		err = -errno;
		log__err("cannot open the BPF object: %s", strerror(-err));
		return err;
	}
	s->skel = skel;
	log__phase("opened the BPF object");
	skel->rodata->max_depth = o->max_depth;
	skel->rodata->sync_tgid = o->sync_pid;
	skel->rodata->follow_forks = o->follow_forks;
	skel->rodata->inherit_marks = o->inherit_marks;
	skel->rodata->hold_vfork = o->v2_events;
	skel->rodata->events_enabled = o->events;
	skel->rodata->max_events = max_events;
	/* With the event view off, its maps are never touched: keep them tiny. */
	bpf_map__set_max_entries(skel->maps.mark_ids, o->events ? max_events : 1);
	bpf_map__set_max_entries(skel->maps.mark_stats, o->events ? max_events : 1);
	bpf_map__set_max_entries(skel->maps.free_slots, o->events ? max_events : 1);
	/* The scheduler hook costs every context switch of the machine: only
	 * with --off-cpu. */
	skel->rodata->offcpu_enabled = o->offcpu;
	/* record --calls: a call record per sample; else the ring is a page. */
	skel->rodata->calls_enabled = o->calls;
	/* With --events the leaves know each call's duration: the calls of
	 * two sampling periods or more send it (shorter ones are estimated;
	 * so at most one record per two periods of a thread's time). */
	skel->rodata->calls_exact_ns = o->calls && o->events ? 2 * s->period_ns : 0;
	/* and of them, the slowest of each instance on each CPU, then fewer */
	skel->rodata->calls_exact_top = o->calls_keep ? o->calls_keep : CALLS_KEEP_DEFAULT;
	bpf_map__set_max_entries(skel->maps.calls_rb, o->calls ? FSP_CALLS_RB_SIZE : 4096);
	if (o->offcpu) {
		__u32 slots = offcpu_slots(o->system_wide);

		skel->rodata->offcpu_mask = slots - 1;
		bpf_map__set_max_entries(skel->maps.offcpu_recs, slots);
		bpf_map__set_max_entries(skel->maps.offcpu_spill, OFFCPU_SPILL);
	}
	skel->rodata->system_wide = o->system_wide;
	set_native(skel, o);
	set_comms(skel, o->comm_filter);
	set_event_features(skel, o);
	bpf_program__set_autoload(skel->progs.on_switch, o->offcpu);
	bpf_program__set_autoload(skel->progs.on_exit, o->offcpu || o->system_wide);
	bpf_program__set_autoload(skel->progs.flush_offcpu, o->offcpu);
	bpf_map__set_max_entries(skel->maps.stacks, o->max_stacks);
	bpf_map__set_max_entries(skel->maps.counts, o->max_stacks * 8);
	bpf_map__set_max_entries(skel->maps.labels, o->max_stacks * 2);
	/* Processes with probes at once (and, -a, excluded ones); -a retires
	 * exited ones. A process beyond is not profiled, and counted. */
	bpf_map__set_max_entries(skel->maps.targets, o->system_wide ? MAX_TARGETS_SW : MAX_TARGETS);
	/* -a: every process's exec and start come through it too. */
	bpf_map__set_max_entries(skel->maps.events, o->system_wide ? EVENTS_RB_SW : EVENTS_RB);
	bpf_map__set_max_entries(skel->maps.usdt_specs, MAX_SPECS);
	set_uprobe_multi(skel);
	bpf_map__set_max_entries(skel->maps.map_sites, o->nr_probemaps ? MAX_PROBEMAP_SITES : 1);
	/* "charge threads": the sampler looks up the charging marks of the
	 * sampled process, and thread exits release them. */
	skel->rodata->charge_enabled = uses_charges(o);
	/* "label sample": the sampler reads those instances (samplelabel.bpf.h). */
	skel->rodata->sample_labels = uses_sample_labels(o);
	bpf_map__set_max_entries(skel->maps.charges, uses_charges(o) ? 4096 : 1);
	skel->rodata->sample_vars_on = samplevars__used(o);
	bpf_map__set_max_entries(skel->maps.sample_vars,
				 samplevars__used(o) ? FSP_SAMPLE_VAR_PROCS : 1);
	bpf_program__set_autoload(skel->progs.charge_on_exit, uses_charges(o));
	/* The mapped-probe programs take the verifier a while: only with --map. */
	bpf_program__set_autoload(skel->progs.map_enter, o->nr_probemaps > 0);
	bpf_program__set_autoload(skel->progs.map_leave, o->nr_probemaps > 0);
	/* --events of function features: their functions' uprobes. */
	bpf_program__set_autoload(skel->progs.func_enter, funcev__on(o));
	bpf_program__set_autoload(skel->progs.func_leave, funcev__on(o));
	s->max_specs = MAX_SPECS;
	s->specs = calloc(MAX_SPECS, sizeof(*s->specs));
	s->probemap_sites = calloc(MAX_PROBEMAP_SITES, sizeof(*s->probemap_sites));
	if (!s->specs || !s->probemap_sites)
		return -ENOMEM;
	err = parts__load(s);
	if (err) {
		log__err("cannot load the BPF programs: %s. fsp-bpf needs a kernel with BPF, BTF "
			 "(/sys/kernel/btf/vmlinux), uprobes and task storage (Linux >= 5.11)%s",
			 strerror(-err),
			 log__enabled(LOG_VERBOSE) ? "" : "; run with -v for the verifier's log");
		return err;
	}
	err = attach_tracepoints(s);
	if (err)
		log__err("cannot follow forks and execs: %s", strerror(-err));
	else
		log__phase("attached the tracepoints");
	return err;
}

int loader__open_sampler(struct session *s)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.size = sizeof(attr),
		.sample_period = s->period_ns,
	};
	int cpu, opened = 0, err;

	s->nr_cpus = libbpf_num_possible_cpus();
	if (s->nr_cpus <= 0)
		return -EINVAL;
	s->perf_fds = calloc(s->nr_cpus, sizeof(*s->perf_fds));
	s->perf_links = calloc(s->nr_cpus, sizeof(*s->perf_links));
	if (!s->perf_fds || !s->perf_links)
		return -ENOMEM;
	for (cpu = 0; cpu < s->nr_cpus; cpu++)
		s->perf_fds[cpu] = s->perf_links[cpu] = -1;
	for (cpu = 0; cpu < s->nr_cpus; cpu++) {
		int fd = syscall(SYS_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);

		s->perf_fds[cpu] = fd;
		if (fd < 0) {
			if (errno == ENODEV)
				continue; /* offline CPU */
			err = -errno;
			log__err("cannot open the cpu-clock sampler on CPU %d: %s", cpu,
				 strerror(-err));
			return err;
		}
		s->perf_links[cpu] = bpf_link_create(PROG_FD(s, sample), fd, BPF_PERF_EVENT, NULL);
		if (s->perf_links[cpu] < 0) {
			err = s->perf_links[cpu];
			log__err("cannot attach the sampler on CPU %d: %s", cpu, strerror(-err));
			return err;
		}
		opened++;
	}
	if (opened)
		log__phase("started the sampler on %d CPUs", opened);
	return opened ? 0 : -ENODEV;
}

void loader__stop_sampler(struct session *s)
{
	if (!s->perf_fds)
		return;
	for (int cpu = 0; cpu < s->nr_cpus; cpu++) {
		/* Disabled first, as libbpf's perf-event link did: the
		 * event stops on its CPU before the link and the event are
		 * released (which the kernel may finish later). */
		if (s->perf_fds[cpu] >= 0)
			ioctl(s->perf_fds[cpu], PERF_EVENT_IOC_DISABLE, 0);
		if (s->perf_links[cpu] >= 0)
			close(s->perf_links[cpu]);
		s->perf_links[cpu] = -1;
		if (s->perf_fds[cpu] >= 0)
			close(s->perf_fds[cpu]);
		s->perf_fds[cpu] = -1;
	}
}
