// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * empty_attach - attach an empty BPF program to every fsp USDT site of a binary
 * for one process, the way fsp-bpf attaches its own programs, and hold the
 * attachment until SIGINT or SIGTERM or the process is gone.
 *
 *   empty_attach EMPTY_BPF_O BINARY PID [HZ]
 *
 * Like fsp-bpf it parses the .note.stapsdt notes itself (userspace/usdt.c) and
 * creates one uprobe_multi link (BPF_TRACE_UPROBE_MULTI) per probe name per
 * file, semaphores included, so the probes fire exactly as they do under
 * fsp-bpf; only the program differs. With HZ, it also opens a software
 * cpu-clock perf event with a period of 1e9/HZ ns on every CPU, as fsp-bpf's
 * sampler does, and attaches an empty perf_event program to each. Prints
 * "empty_attach: attached N sites" once everything is attached. It is the
 * baseline of bench/run.sh.
 */
#include <errno.h>
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
		/* The link and the event stay open until the process exits. */
		if (!bpf_program__attach_perf_event(prog, fd))
			return -errno;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct usdt_site *sites = NULL;
	struct bpf_object *obj;
	struct bpf_program *prog, *sample_prog;
	unsigned long hz = 0;
	int link_fds[NR_PROBES] = {};
	unsigned int nr_linked = 0;
	size_t nr = 0, skipped = 0;
	struct sigaction sa = {.sa_handler = on_signal};
	char why[256];
	pid_t pid;
	int err, ret = 1;

	if (argc != 4 && argc != 5) {
		fprintf(stderr, "usage: %s EMPTY_BPF_O BINARY PID [HZ]\n", argv[0]);
		return 2;
	}
	pid = (pid_t)atoi(argv[3]);
	if (argc == 5) {
		hz = strtoul(argv[4], NULL, 10);
		if (hz < 1 || hz > 100000) {
			fprintf(stderr, "empty_attach: HZ must be 1..100000\n");
			return 2;
		}
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	err = usdt__read_sites(argv[2], "fsp", &sites, &nr, &skipped, why, sizeof(why));
	if (err || !nr) {
		fprintf(stderr, "empty_attach: %s: no fsp sites (%s)\n", argv[2],
			err ? strerror(-err) : "none found");
		return 1;
	}
	if (skipped)
		fprintf(stderr, "empty_attach: skipped %zu sites: %s\n", skipped, why);

	obj = bpf_object__open_file(argv[1], NULL);
	if (!obj) {
		fprintf(stderr, "empty_attach: cannot open %s: %s\n", argv[1], strerror(errno));
		goto out_sites;
	}
	prog = bpf_object__find_program_by_name(obj, "empty");
	sample_prog = bpf_object__find_program_by_name(obj, "empty_sample");
	if (!prog || !sample_prog) {
		fprintf(stderr, "empty_attach: no program 'empty' or 'empty_sample' in %s\n",
			argv[1]);
		goto out_obj;
	}
	bpf_program__set_expected_attach_type(prog, USDT_TRACE_UPROBE_MULTI);
	bpf_program__set_autoattach(prog, false);
	err = bpf_object__load(obj);
	if (err) {
		fprintf(stderr, "empty_attach: cannot load %s: %s\n", argv[1], strerror(-err));
		goto out_obj;
	}
	for (size_t i = 0; i < NR_PROBES; i++) {
		int fd = link_probe(bpf_program__fd(prog), argv[2], pid, probe_names[i], sites, nr,
				    &nr_linked);

		if (fd < 0) {
			fprintf(stderr, "empty_attach: cannot attach fsp:%s in %s (pid %d): %s\n",
				probe_names[i], argv[2], (int)pid, strerror(-fd));
			goto out_links;
		}
		link_fds[i] = fd;
	}
	if (hz) {
		err = open_samplers(sample_prog, hz);
		if (err) {
			fprintf(stderr, "empty_attach: cannot open the %lu Hz sampler: %s\n", hz,
				strerror(-err));
			goto out_links;
		}
	}
	printf("empty_attach: attached %u sites of %s for pid %d, sampler %lu Hz\n", nr_linked,
	       argv[2], (int)pid, hz);
	fflush(stdout);
	/* Hold the links until told to stop or the target is gone. */
	while (!stop && kill(pid, 0) == 0)
		usleep(50000);
	ret = 0;
out_links:
	for (size_t i = 0; i < NR_PROBES; i++)
		if (link_fds[i] > 0)
			close(link_fds[i]);
out_obj:
	bpf_object__close(obj);
out_sites:
	free(sites);
	return ret;
}
