// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * empty_attach - attach an empty BPF program to every fsp USDT site of a binary
 * for one process, the way fsp-bpf attaches its own programs, and hold the
 * attachment until SIGINT or SIGTERM or the process is gone.
 *
 *   empty_attach [-b] [-s] [-U] [-f|-F FILE:FUNC]... EMPTY_BPF_O BINARY PID [HZ]
 *
 * Like fsp-bpf it parses the .note.stapsdt notes itself (userspace/probes/usdt.c) and
 * creates one uprobe_multi link (BPF_TRACE_UPROBE_MULTI) per probe name per
 * file, semaphores included, so the probes fire exactly as they do under
 * fsp-bpf; only the program differs. With HZ, it also opens a software
 * cpu-clock perf event with a period of 1e9/HZ ns on every CPU, as fsp-bpf's
 * sampler does, and attaches an empty perf_event program to each. Prints
 * "empty_attach: attached N sites" once everything is attached. It is the
 * baseline of bench/run.sh and bench/events.sh.
 *
 *   -b  bare sampler: the perf events without any BPF program (the cost of
 *       the timer interrupts alone)
 *   -s  also attach an empty tp_btf program to sched_switch, as --off-cpu
 *       does (the floor of any off-CPU profiler)
 *   -U  no uprobes: only the sampler and/or the sched_switch program
 *   -f FILE:FUNC  also attach an empty uprobe to function FUNC of FILE (a
 *       uprobe_multi link of one site) where fsp-bpf hooks a function
 *       (usdt__func_probe(): past a leading endbr64 when the next
 *       instruction is emulated), as it hooks __cxa_begin_catch and longjmp
 *   -F FILE:FUNC  the same at the function's first instruction, where
 *       fsp-bpf hooked before it skipped endbr64
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "usdt.h"

static const char *const probe_names[] = {"mark_enter", "mark_leave", "antimark_enter",
					  "antimark_leave"};
#define NR_PROBES (sizeof(probe_names) / sizeof(probe_names[0]))
#define MAX_HOOKS 8

/* A function to hook (-f, -F). */
struct hook {
	char *file;
	const char *func;
	bool entry; /* -F: at the first instruction */
	int fd; /* its uprobe_multi link, -1: none */
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* Links probe's sites; returns the link fd, 0 if there are none, or -errno. */
static int link_probe(int prog_fd, const char *path, pid_t pid, const char *probe,
		      const struct usdt_site *sites, size_t nr, unsigned int *nr_linked)
{
	__u64 *offs = calloc(nr, sizeof(*offs)), *refs = calloc(nr, sizeof(*refs));
	__u64 *cookies = calloc(nr, sizeof(*cookies));
	__u32 cnt = 0;
	int fd = 0;

	if (!offs || !refs || !cookies) {
		fd = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < nr; i++) {
		if (strcmp(sites[i].name, probe))
			continue;
		offs[cnt] = sites[i].offset;
		refs[cnt] = sites[i].ref_ctr_offset;
		cookies[cnt] = cnt; /* fsp-bpf passes a spec id; the value is unused here */
		cnt++;
	}
	if (cnt) {
		fd = usdt__link(prog_fd, path, offs, refs, cookies, cnt, pid);
		if (fd >= 0)
			*nr_linked += cnt;
	}
out:
	free(offs);
	free(refs);
	free(cookies);
	return fd;
}

/* Opens the cpu-clock sampler on every CPU with prog attached; 0 or -errno. */
static int open_samplers(struct bpf_program *prog, unsigned long hz)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.size = sizeof(attr),
		.sample_period = 1000000000ul / hz,
	};
	int nr_cpus = libbpf_num_possible_cpus(), cpu;

	if (nr_cpus <= 0)
		return -EINVAL;
	for (cpu = 0; cpu < nr_cpus; cpu++) {
		int fd = syscall(SYS_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);

		if (fd < 0) {
			if (errno == ENODEV)
				continue; /* offline CPU */
			return -errno;
		}
		/* The link and the event stay open until the process exits; a
		 * bare event (no program) overflows into nothing. */
		if (prog && !bpf_program__attach_perf_event(prog, fd))
			return -errno;
	}
	return 0;
}

/* Parses "FILE:FUNC" of -f or -F into h; 0 or -EINVAL. */
static int parse_hook(char *arg, bool entry, struct hook *h)
{
	char *colon = strrchr(arg, ':');

	if (!colon || colon == arg || !colon[1])
		return -EINVAL;
	*colon = 0;
	h->file = arg;
	h->func = colon + 1;
	h->entry = entry;
	h->fd = -1;
	return 0;
}

/* Attaches prog to each hook for pid; 0 or -errno. */
static int attach_hooks(struct bpf_program *prog, struct hook *hooks, size_t nr, pid_t pid)
{
	for (size_t i = 0; i < nr; i++) {
		uint64_t off = 0;
		__u64 o, cookie = 0;
		bool emulated = false;
		int err;

		if (hooks[i].entry)
			err = usdt__func_offset(hooks[i].file, hooks[i].func, &off);
		else
			err = usdt__func_probe(hooks[i].file, hooks[i].func, &off, &emulated);
		if (err)
			return err;
		o = off;
		hooks[i].fd =
			usdt__link(bpf_program__fd(prog), hooks[i].file, &o, NULL, &cookie, 1, pid);
		if (hooks[i].fd < 0)
			return hooks[i].fd;
		printf("empty_attach: hooked %s in %s at %s (%s)\n", hooks[i].func, hooks[i].file,
		       hooks[i].entry ? "its entry" : "fsp-bpf's place",
		       hooks[i].entry ? "the symbol's address"
				      : (emulated ? "emulated" : "single-stepped"));
	}
	return 0;
}

static void usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [-b] [-s] [-U] [-f|-F FILE:FUNC]... EMPTY_BPF_O BINARY PID [HZ]\n",
		prog);
}

int main(int argc, char **argv)
{
	struct usdt_site *sites = NULL;
	struct bpf_object *obj;
	struct bpf_program *prog, *sample_prog, *switch_prog, *hook_prog;
	struct hook hooks[MAX_HOOKS] = {};
	size_t nr_hooks = 0;
	struct bpf_link *switch_link = NULL;
	unsigned long hz = 0;
	int link_fds[NR_PROBES] = {};
	unsigned int nr_linked = 0;
	size_t nr = 0, skipped = 0;
	struct sigaction sa = {.sa_handler = on_signal};
	bool bare = false, on_switch = false, uprobes = true;
	const char *obj_path, *bin;
	char why[256];
	pid_t pid;
	int opt, err, ret = 1;

	while ((opt = getopt(argc, argv, "bsUf:F:")) != -1) {
		switch (opt) {
		case 'f':
		case 'F':
			if (nr_hooks == MAX_HOOKS ||
			    parse_hook(optarg, opt == 'F', &hooks[nr_hooks])) {
				fprintf(stderr, "empty_attach: -%c FILE:FUNC, at most %d\n", opt,
					MAX_HOOKS);
				return 2;
			}
			nr_hooks++;
			break;
		case 'b':
			bare = true;
			break;
		case 's':
			on_switch = true;
			break;
		case 'U':
			uprobes = false;
			break;
		default:
			usage(argv[0]);
			return 2;
		}
	}
	if (argc - optind != 3 && argc - optind != 4) {
		usage(argv[0]);
		return 2;
	}
	obj_path = argv[optind];
	bin = argv[optind + 1];
	pid = (pid_t)atoi(argv[optind + 2]);
	if (argc - optind == 4) {
		hz = strtoul(argv[optind + 3], NULL, 10);
		if (hz < 1 || hz > 100000) {
			fprintf(stderr, "empty_attach: HZ must be 1..100000\n");
			return 2;
		}
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	err = uprobes ? usdt__read_sites(bin, "fsp", &sites, &nr, &skipped, why, sizeof(why)) : 0;
	if (uprobes && (err || !nr)) {
		fprintf(stderr, "empty_attach: %s: no fsp sites (%s)\n", bin,
			err ? strerror(-err) : "none found");
		return 1;
	}
	if (skipped)
		fprintf(stderr, "empty_attach: skipped %zu sites: %s\n", skipped, why);

	obj = bpf_object__open_file(obj_path, NULL);
	if (!obj) {
		fprintf(stderr, "empty_attach: cannot open %s: %s\n", obj_path, strerror(errno));
		goto out_sites;
	}
	prog = bpf_object__find_program_by_name(obj, "empty");
	sample_prog = bpf_object__find_program_by_name(obj, "empty_sample");
	switch_prog = bpf_object__find_program_by_name(obj, "empty_switch");
	hook_prog = bpf_object__find_program_by_name(obj, "empty_hook");
	if (!prog || !sample_prog || !switch_prog || !hook_prog) {
		fprintf(stderr,
			"empty_attach: no program 'empty', 'empty_sample', 'empty_switch' or "
			"'empty_hook' in %s\n",
			obj_path);
		goto out_obj;
	}
	bpf_program__set_expected_attach_type(prog, USDT_TRACE_UPROBE_MULTI);
	bpf_program__set_autoattach(prog, false);
	bpf_program__set_autoload(switch_prog, on_switch);
	bpf_program__set_autoattach(hook_prog, false);
	bpf_program__set_expected_attach_type(hook_prog, USDT_TRACE_UPROBE_MULTI);
	err = bpf_object__load(obj);
	if (err) {
		fprintf(stderr, "empty_attach: cannot load %s: %s\n", obj_path, strerror(-err));
		goto out_obj;
	}
	for (size_t i = 0; uprobes && i < NR_PROBES; i++) {
		int fd = link_probe(bpf_program__fd(prog), bin, pid, probe_names[i], sites, nr,
				    &nr_linked);

		if (fd < 0) {
			fprintf(stderr, "empty_attach: cannot attach fsp:%s in %s (pid %d): %s\n",
				probe_names[i], bin, (int)pid, strerror(-fd));
			goto out_links;
		}
		link_fds[i] = fd;
	}
	err = attach_hooks(hook_prog, hooks, nr_hooks, pid);
	if (err) {
		fprintf(stderr, "empty_attach: cannot hook a function for pid %d: %s\n", (int)pid,
			strerror(-err));
		goto out_links;
	}
	if (hz) {
		err = open_samplers(bare ? NULL : sample_prog, hz);
		if (err) {
			fprintf(stderr, "empty_attach: cannot open the %lu Hz sampler: %s\n", hz,
				strerror(-err));
			goto out_links;
		}
	}
	if (on_switch) {
		switch_link = bpf_program__attach(switch_prog);
		if (!switch_link) {
			fprintf(stderr, "empty_attach: cannot attach to sched_switch: %s\n",
				strerror(errno));
			goto out_links;
		}
	}
	printf("empty_attach: attached %u sites of %s for pid %d, sampler %lu Hz%s%s\n", nr_linked,
	       bin, (int)pid, hz, hz && bare ? " (bare)" : "", on_switch ? ", sched_switch" : "");
	fflush(stdout);
	/* Hold the links until told to stop or the target is gone. */
	while (!stop && kill(pid, 0) == 0)
		usleep(50000);
	ret = 0;
out_links:
	bpf_link__destroy(switch_link);
	for (size_t i = 0; i < nr_hooks; i++)
		if (hooks[i].fd >= 0)
			close(hooks[i].fd);
	for (size_t i = 0; i < NR_PROBES; i++)
		if (link_fds[i] > 0)
			close(link_fds[i]);
out_obj:
	bpf_object__close(obj);
out_sites:
	free(sites);
	return ret;
}
