// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* System-wide mode (-a): every process whose files carry fsp probes or a
 * probe map's provider, found in /proc at the start and every second, and by
 * its first probe; probes are attached per file, for every process. With
 * function features, also the processes that map a file of theirs (at most
 * SESSION_SW_MAX_FUNCTION_PROCESSES of them without probes at once). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/capability.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "caps.h"
#include "fsp_probes.h"
#include "funcfeat.h"
#include "log.h"
#include "procmaps.h"
#include "procscan.h"
#include "usdt.h"
#include "util.h"
#include "session_int.h"

/* Whether a file carries probes fsp-bpf attaches, or functions of a
 * function feature, cached by file. */
struct sw_verdict {
	struct file_id id;
	bool relevant;
	bool functions;
};

/* A process looked at, and the last /proc scan that saw it. */
struct sw_seen {
	pid_t pid;
	unsigned int gen;
};

/* Files scanned (attached when relevant) and the processes looked at, so
 * that each is read once. */
struct syswide {
	struct file_set files; /* attached for every process (or failed) */
	struct file_set dl_files; /* dynamic loaders hooked for every process */
	struct sw_verdict *verdicts;
	size_t nr_verdicts, cap_verdicts;
	struct sw_seen *seen;
	size_t nr_seen, cap_seen;
	unsigned int scan_gen; /* the /proc scan under way, or the last one */
	uint64_t reported[4]; /* errnos of failures already reported */
	bool ptrace_said; /* processes of other users we may not read, said */
	size_t nr_functions; /* targets for function features alone, alive */
	bool functions_said; /* the bound of those was reached, said */
};

int syswide__init(struct session *s)
{
	if (!s->opts.system_wide)
		return 0;
	s->sw = calloc(1, sizeof(*s->sw));
	return s->sw ? 0 : -ENOMEM;
}

void syswide__free(struct session *s)
{
	if (!s->sw)
		return;
	file_set__free(&s->sw->files);
	file_set__free(&s->sw->dl_files);
	free(s->sw->verdicts);
	free(s->sw->seen);
	free(s->sw);
	s->sw = NULL;
}

bool syswide__file_known(const struct session *s, dev_t dev, ino_t ino)
{
	return file_set__has(&s->sw->files, dev, ino);
}

int syswide__file_add(struct session *s, dev_t dev, ino_t ino)
{
	return file_set__add(&s->sw->files, dev, ino);
}

void syswide__hook_dl(struct session *s, const char *path, const char *kpath, dev_t dev, ino_t ino)
{
	struct file_set *dl = &s->sw->dl_files;

	if (!hooks__is_dl(path) || file_set__has(dl, dev, ino) || file_set__add(dl, dev, ino))
		return;
	/* Not hooked: tried again with the next process that maps it. */
	if (hooks__dl_file(s, path, kpath))
		dl->nr--;
}

/* Has pid been looked at? Else records it. Either way it is marked as seen
 * by the scan under way. */
static int sw_pid_seen(struct syswide *sw, pid_t pid, bool *seen)
{
	for (size_t i = 0; i < sw->nr_seen; i++) {
		if (sw->seen[i].pid == pid) {
			sw->seen[i].gen = sw->scan_gen;
			*seen = true;
			return 0;
		}
	}
	*seen = false;
	if (fsp_grow((void **)&sw->seen, &sw->cap_seen, sw->nr_seen + 1, sizeof(*sw->seen)))
		return -ENOMEM;
	sw->seen[sw->nr_seen++] = (struct sw_seen){pid, sw->scan_gen};
	return 0;
}

static void sw_forget(struct syswide *sw, pid_t pid)
{
	for (size_t i = 0; i < sw->nr_seen; i++) {
		if (sw->seen[i].pid == pid) {
			sw->seen[i] = sw->seen[--sw->nr_seen];
			return;
		}
	}
}

/* Forgets the processes the last scan did not see: they have exited. */
static void sw_prune(struct syswide *sw)
{
	size_t j = 0;

	for (size_t i = 0; i < sw->nr_seen; i++)
		if (sw->seen[i].gen == sw->scan_gen)
			sw->seen[j++] = sw->seen[i];
	sw->nr_seen = j;
}

/* System-wide: does the comm filter let pid in? An excluded process is
 * marked 0 in the targets map: its probes then return at once. */
static bool sw_admitted(struct session *s, pid_t pid)
{
	char comm[64] = "";
	uint64_t start;
	__u32 key = pid;
	__u64 out;

	if (!s->opts.comm_filter)
		return true;
	procscan__comm(pid, comm, sizeof(comm));
	if (procscan__in_list(s->opts.comm_filter, comm))
		return true;
	/* Left out as the process that has the PID now (profiler.h). */
	if (!procscan__start_time(pid, &start)) {
		out = start << 1;
		bpf_map_update_elem(bpf_map__fd(s->skel->maps.targets), &key, &out, BPF_ANY);
	}
	return false;
}

/*
 * A failure that makes system-wide mode miss processes for now (no
 * descriptor left, no memory): reported at once, the first time for each
 * error, and counted; what failed is tried again at the next scan.
 */
static void sw_report(struct session *s, const char *what, int err)
{
	unsigned int e = -err;

	if (e < 256 && (s->sw->reported[e / 64] >> (e % 64)) & 1)
		return;
	if (e < 256)
		s->sw->reported[e / 64] |= 1ULL << (e % 64);
	log__err("cannot %s: %s; processes are looked at again at the next scan", what,
		 strerror(e));
	s->attach_errors++;
}

/* Errors that say the process or file is gone, not that we failed. */
static bool gone_error(int err)
{
	return err == -ESRCH || err == -ENOENT;
}

/* Does the file at path carry fsp probes or the provider of a probe map?
 * 1, 0 or -errno (the file could not be read: no verdict). */
static int file_relevant(struct session *s, const char *path)
{
	struct usdt_site *sites = NULL;
	size_t nr = 0, skipped;
	bool relevant = false;
	int err;

	err = usdt__read_sites(path, NULL, &sites, &nr, &skipped, NULL, 0);
	if (err == -EACCES)
		attach__denied(s, path);
	if (err == -ENOEXEC || err == -EACCES)
		return 0; /* not an ELF file we can read: nothing to attach */
	if (err)
		return err;
	for (size_t i = 0; i < nr && !relevant; i++) {
		relevant = !strcmp(sites[i].provider, FSP_PROVIDER);
		for (size_t m = 0; m < s->opts.nr_probemaps && !relevant; m++)
			relevant = probemap__has_provider(s->opts.probemaps[m].probemap,
							  sites[i].provider);
	}
	free(sites);
	return relevant;
}

struct sw_scan_ctx {
	struct session *s;
	pid_t pid;
	bool relevant;
	bool functions; /* maps a file of a function feature */
	int failed; /* a file could not be read: -errno */
};

static int sw_file_cb(void *ctx, const struct mapping *m)
{
	struct sw_scan_ctx *c = ctx;
	struct syswide *sw = c->s->sw;
	char host[PATH_MAX + 64], kpath[64];
	int relevant, fd;

	for (size_t i = 0; i < sw->nr_verdicts; i++) {
		if (sw->verdicts[i].id.dev == m->dev && sw->verdicts[i].id.ino == m->ino) {
			c->relevant |= sw->verdicts[i].relevant;
			c->functions |= sw->verdicts[i].functions;
			return c->relevant ? 1 : 0;
		}
	}
	snprintf(host, sizeof(host), "/proc/%d/root%s", c->pid, m->path);
	/* The mapped file itself (any process's: never by a name it chose). */
	fd = procmaps__open(c->pid, m);
	if (fd < 0) {
		c->failed = fd == -EINVAL || fd == -ESTALE || fd == -ELOOP ? 0 : fd;
		return 0;
	}
	attach__fd_path(fd, kpath, sizeof(kpath));
	relevant = file_relevant(c->s, kpath);
	if (relevant >= 0)
		syswide__hook_dl(c->s, host, kpath, m->dev, m->ino);
	close(fd);
	if (relevant < 0) {
		c->failed = relevant;
		return 0;
	}
	if (fsp_grow((void **)&sw->verdicts, &sw->cap_verdicts, sw->nr_verdicts + 1,
		     sizeof(*sw->verdicts)))
		return -ENOMEM;
	sw->verdicts[sw->nr_verdicts++] = (struct sw_verdict){
		{m->dev, m->ino}, relevant, funcfeat__names_file(c->s->opts.funcfeat, m->path)};
	c->relevant |= relevant;
	c->functions |= sw->verdicts[sw->nr_verdicts - 1].functions;
	return c->relevant ? 1 : 0;
}

static int sw_add(struct session *s, pid_t pid);
static int sw_add_functions(struct session *s, pid_t pid);

static int sw_pid_cb(void *ctx, pid_t pid)
{
	struct session *s = ctx;
	struct sw_scan_ctx c = {.s = s, .pid = pid};
	bool seen;
	int err;

	if (pid == getpid())
		return 0;
	err = sw_pid_seen(s->sw, pid, &seen);
	if (err || seen)
		return err;
	err = procmaps__for_each_mapped_file(pid, sw_file_cb, &c);
	if (!err && !c.relevant && c.failed && !gone_error(c.failed))
		err = c.failed;
	if (err < 0) {
		if (gone_error(err))
			return 0;
		/* Not looked at: again at the next scan. EACCES: a process in
		 * the middle of an exec (its mappings are not readable then),
		 * or, without CAP_SYS_PTRACE, another user's. */
		sw_forget(s->sw, pid);
		if (err != -EACCES)
			sw_report(s, "read the mappings or files of a process", err);
		else if (!s->sw->ptrace_said && !caps__have(CAP_SYS_PTRACE)) {
			s->sw->ptrace_said = true;
			log__err("cannot read the mappings of process %d: processes of other users "
				 "are not profiled; that needs CAP_SYS_PTRACE (or root)",
				 pid);
		}
		return 0;
	}
	if (!(c.relevant || c.functions) || !sw_admitted(s, pid))
		return 0;
	if (!c.relevant)
		return sw_add_functions(s, pid);
	return sw_add(s, pid);
}

/* Profiles pid, a process with probes. 0 or -ENOMSG (a probe map does not
 * fit, fatal). */
static int sw_add(struct session *s, pid_t pid)
{
	int err = session__add_target(s, pid, NULL);

	if (err == -ENOMSG)
		return err;
	/* Errors of attaching are reported where they happen; the target's
	 * files are read again at the next scan. */
	if (err < 0 && !gone_error(err))
		sw_report(s, "read the mappings or files of a process with probes", err);
	return 0;
}

/*
 * Profiles pid, a process without probes that maps a file of a function
 * feature: the first SESSION_SW_MAX_FUNCTION_PROCESSES found (in /proc at
 * the start, then as they start or load the file) while that many are alive;
 * the others are left out, said once. Each costs nothing until it runs, then
 * its samples' stacks (perf's cost).
 */
static int sw_add_functions(struct session *s, pid_t pid)
{
	struct syswide *sw = s->sw;
	struct target *t;
	int err;

	if (sw->nr_functions >= SESSION_SW_MAX_FUNCTION_PROCESSES) {
		if (!sw->functions_said)
			log__err("-a: more than %d processes without probes map a file of the "
				 "function features; the first %d found are profiled, process %d "
				 "and others are not (choose them with --comm)",
				 SESSION_SW_MAX_FUNCTION_PROCESSES,
				 SESSION_SW_MAX_FUNCTION_PROCESSES, pid);
		sw->functions_said = true;
		return 0;
	}
	err = sw_add(s, pid);
	t = targets__find(s, pid);
	if (!err && t && !t->functions_only && !t->probed) {
		t->functions_only = true;
		sw->nr_functions++;
	}
	return err;
}

/*
 * Deletes the targets map's entries of processes that are gone. The kernel
 * side deletes a process's entry at its exit, but userspace may write one
 * for a process that has just exited (an admission or exclusion decided from
 * an event or a scan that raced with the exit): without this, such entries
 * would fill the map over the hours. An entry is a process's by its start
 * time (profiler.h): one whose PID another process or a thread has now is
 * gone too (the kernel side ignores it already).
 */
static void sw_sweep(struct session *s)
{
	int fd = bpf_map__fd(s->skel->maps.targets);
	__u32 key, last, *prev = NULL, gone[256];
	__u64 v, vals[256];
	uint64_t start;
	size_t n = 0;
	int err;

	while (n < sizeof(gone) / sizeof(gone[0]) && !bpf_map_get_next_key(fd, prev, &key)) {
		last = key;
		prev = &last;
		if (bpf_map_lookup_elem(fd, &key, &v))
			continue;
		err = procscan__start_time((pid_t)key, &start);
		if (err == -ESRCH || (!err && start != v >> 1)) {
			vals[n] = v;
			gone[n++] = key;
		}
	}
	/* Not if the kernel side admitted the PID's new process meanwhile. */
	for (size_t i = 0; i < n; i++)
		if (!bpf_map_lookup_elem(fd, &gone[i], &v) && v == vals[i])
			bpf_map_delete_elem(fd, &gone[i]);
}

int syswide__rescan(struct session *s)
{
	int err;

	s->sw->scan_gen++;
	err = procscan__for_each_pid(sw_pid_cb, s);
	if (!err)
		sw_prune(s->sw);
	else if (err != -ENOMSG)
		sw_report(s, "scan /proc", err);
	sw_sweep(s);
	return err;
}

int session__add_system_wide(struct session *s)
{
	int err = syswide__rescan(s);

	return err < 0 ? err : (int)s->nr_targets;
}

void syswide__new_process(struct session *s, pid_t pid)
{
	bool seen;

	if (!s->sw || targets__find(s, pid))
		return;
	if (sw_pid_seen(s->sw, pid, &seen) || !sw_admitted(s, pid))
		return;
	sw_add(s, pid);
}

void syswide__exec(struct session *s, pid_t pid)
{
	/* The kernel side dropped an exclusion (--comm) of the old program. */
	if (s->sw)
		sw_forget(s->sw, pid);
}

void syswide__exit(struct session *s, pid_t pid)
{
	struct target *t = targets__find(s, pid);

	/* The kernel side deleted it from the targets map at the exit. */
	if (s->sw)
		sw_forget(s->sw, pid);
	if (t && t->alive && t->functions_only)
		s->sw->nr_functions--;
	if (t)
		targets__gone(s, t);
}

/*
 * A process that is no target changed its link map: it may have loaded a
 * library with probes that no process mapped before, whose probes nobody
 * attached yet. Looked at right away (it goes on running meanwhile: what it
 * runs of the library before the probes are armed is not profiled; the
 * semaphores stay down until then, so nothing is half counted).
 */
void syswide__dlopen(struct session *s, pid_t pid)
{
	if (!s->sw)
		return;
	sw_forget(s->sw, pid);
	sw_pid_cb(s, pid);
}
