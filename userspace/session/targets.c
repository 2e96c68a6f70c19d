// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The processes profiled: adding one, and attaching the files it maps,
 * once each, at the start and at every rescan (dlopen, exec, each second). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "log.h"
#include "procmaps.h"
#include "procscan.h"
#include "util.h"
#include "session_int.h"

struct target *targets__find(struct session *s, pid_t pid)
{
	for (size_t i = 0; i < s->nr_targets; i++)
		if (s->targets[i].pid == pid)
			return &s->targets[i];
	return NULL;
}

bool file_set__has(const struct file_set *fs, dev_t dev, ino_t ino)
{
	for (size_t i = 0; i < fs->nr; i++)
		if (fs->ids[i].dev == dev && fs->ids[i].ino == ino)
			return true;
	return false;
}

int file_set__add(struct file_set *fs, dev_t dev, ino_t ino)
{
	if (fsp_grow((void **)&fs->ids, &fs->cap, fs->nr + 1, sizeof(*fs->ids)))
		return -ENOMEM;
	fs->ids[fs->nr++] = (struct file_id){dev, ino};
	return 0;
}

void file_set__free(struct file_set *fs)
{
	free(fs->ids);
	*fs = (struct file_set){0};
}

struct scan_ctx {
	struct session *s;
	struct target *t;
	int sites;
};

static int scan_cb(void *ctx, const struct mapping *m)
{
	struct scan_ctx *c = ctx;
	/* The file as the target sees it, also in another mount namespace. */
	char host[PATH_MAX + 64], kpath[64];
	bool sw = c->s->opts.system_wide;
	int err, fd;

	if (file_set__has(&c->t->files, m->dev, m->ino))
		return 0;
	err = file_set__add(&c->t->files, m->dev, m->ino);
	if (err)
		return err;
	if (sw && syswide__file_known(c->s, m->dev, m->ino))
		return 0; /* attached for every process when first seen */
	snprintf(host, sizeof(host), "/proc/%d/root%s", c->t->pid, m->path);
	/* The mapped file itself, never what its name may now be. */
	fd = procmaps__open(c->t->pid, m);
	if (fd == -EACCES) {
		/* A file the fsp-bpf user may not read: said once, with the
		 * capability that would. */
		attach__denied(c->s, host);
		return 0;
	}
	if (fd < 0) {
		/* Not reached: the next process mapping the file attaches it.
		 * The process is gone, or the file is (a deleted file, a name
		 * that now names another file). */
		return kill(c->t->pid, 0) && errno == ESRCH ? -ESRCH : 0;
	}
	attach__fd_path(fd, kpath, sizeof(kpath));
	if (sw || c->t->unwind_hooked)
		hooks__unwind(c->s, sw ? 0 : c->t->pid, host, kpath);
	if (sw)
		syswide__hook_dl(c->s, host, kpath, m->dev, m->ino);
	err = attach__file(c->s, sw ? 0 : c->t->pid, host, fd);
	if (err >= 0 || err == -ENOMSG) {
		int ferr = funcev__file(c->s, sw ? 0 : c->t->pid, host, kpath);

		err = ferr == -ENOMSG || ferr == -ESRCH ? ferr : err;
	}
	/* Its labels outlive the processes: a label no probe could read is
	 * read from it after they are gone. */
	if (err > 0)
		label__keep_file(c->s, fd, m->dev, m->ino);
	close(fd);
	/* A file's links wait for grace periods: the stacks sampled meanwhile */
	loop__drain_native(c->s);
	if (err == -ESRCH || err == -ENOENT)
		return kill(c->t->pid, 0) && errno == ESRCH ? -ESRCH : 0;
	/* Attached, or failed and reported: not tried again for each process. */
	if (sw && syswide__file_add(c->s, m->dev, m->ino))
		return -ENOMEM;
	if (err == -ENOMSG)
		return err;
	c->sites += err > 0 ? err : 0;
	return 0;
}

static int hook_cb(void *ctx, const struct mapping *m)
{
	struct scan_ctx *c = ctx;
	char host[PATH_MAX + 64], kpath[64];
	int fd = procmaps__open(c->t->pid, m);

	if (fd < 0)
		return 0;
	snprintf(host, sizeof(host), "/proc/%d/root%s", c->t->pid, m->path);
	attach__fd_path(fd, kpath, sizeof(kpath));
	hooks__unwind(c->s, c->t->pid, host, kpath);
	close(fd);
	return 0;
}

/* Attaches every not yet seen file mapped by the target. */
int targets__rescan(struct session *s, struct target *t)
{
	struct scan_ctx c = {.s = s, .t = t};
	struct mapping *m;
	char exe[64];
	size_t n;
	int err;

	if (!t->dl_hooked && !s->opts.system_wide) {
		snprintf(exe, sizeof(exe), "/proc/%d/exe", t->pid);
		err = hooks__dl(s, t, exe);
		if (err)
			return err;
	}
	/* One read of /proc/PID/maps: the files to attach, and the mappings
	 * kept for the labels of a process that is gone by the end. */
	err = procmaps__read(t->pid, &m, &n);
	if (err)
		return err;
	s->scan_pid = t->pid;
	err = procmaps__for_each_file(m, n, scan_cb, &c);
	s->scan_pid = 0;
	if (err) {
		procmaps__free(m, n);
		return err;
	}
	/* The first probes of a target (-p, --): hook the runtime libraries it
	 * maps, scanned before or after the file with the probes; later
	 * files are hooked as they are scanned. A process without probes has
	 * no marks to prune, so its longjmps and exceptions run unhooked.
	 * System-wide, the hooks are per file, for every process. */
	t->probed |= c.sites > 0;
	if (t->probed && !t->unwind_hooked && !s->opts.system_wide) {
		procmaps__for_each_file(m, n, hook_cb, &c);
		t->unwind_hooked = true;
	}
	v2__scan(s, t->pid, m, n);
	samplevars__scan(s, t->pid, m, n);
	procmaps__free(t->mappings, t->nr_mappings);
	t->mappings = m;
	t->nr_mappings = n;
	return c.sites;
}

static int pidfd_open(pid_t pid)
{
	return syscall(SYS_pidfd_open, pid, 0);
}

/*
 * -p: a pidfd per target tells its exit (closed then). System-wide, the
 * kernel side reports exits instead: no descriptor per process, whose limit
 * a busy host would reach.
 */
static int watch_exit(struct session *s, struct target *t)
{
	struct epoll_event ev = {.events = EPOLLIN, .data.u64 = TAG_PIDFD | s->nr_targets};
	int err;

	if (s->opts.system_wide)
		return 0;
	t->pidfd = pidfd_open(t->pid);
	err = t->pidfd < 0 ? -errno : 0;
	if (!err && epoll_ctl(s->epfd, EPOLL_CTL_ADD, t->pidfd, &ev)) {
		err = -errno;
		close(t->pidfd);
		t->pidfd = -1;
	}
	if (err && err != -ESRCH) {
		log__err("cannot watch process %d for its exit: %s; it is not profiled", t->pid,
			 strerror(-err));
		s->attach_errors++;
	}
	return err;
}

/* Admits pid in the kernel side's targets map as the process that has it now
 * (its start time, profiler.h); a full map is reported. -ESRCH: it is gone. */
static int admit(struct session *s, pid_t pid)
{
	int fd = bpf_map__fd(s->skel->maps.targets);
	__u32 key = pid;
	uint64_t start, again;
	__u64 in;
	int err;

	err = procscan__start_time(pid, &start);
	if (err)
		return err;
	in = start << 1 | FSP_TARGET_IN;
	if (!bpf_map_update_elem(fd, &key, &in, BPF_ANY)) {
		/* It exited meanwhile: the entry is no one's (the kernel side
		 * would ignore it; it goes now rather than at the sweep). */
		if (procscan__start_time(pid, &again) || again != start) {
			bpf_map_delete_elem(fd, &key);
			return -ESRCH;
		}
		return 0;
	}
	err = -errno;
	if (!s->untracked++)
		log__err("cannot profile process %d: %s (more processes with probes at once than "
			 "fsp-bpf tracks); such processes are counted as untracked",
			 pid, strerror(-err));
	return err;
}

int session__add_target(struct session *s, pid_t pid, const char *exe)
{
	struct target *t = targets__find(s, pid);
	int err, sites = 0;

	if (!t) {
		if (fsp_grow((void **)&s->targets, &s->cap_targets, s->nr_targets + 1,
			     sizeof(*s->targets)))
			return -ENOMEM;
		t = &s->targets[s->nr_targets];
		memset(t, 0, sizeof(*t));
		t->pid = pid;
		t->pidfd = -1;
		err = watch_exit(s, t);
		if (err)
			return err;
		t->alive = true;
		if (procscan__nspid(pid, &t->nspid))
			t->nspid = pid;
		s->nr_targets++;
	}
	/* -a: admitted once its files are attached, so that the leaves it fires
	 * while they are (entered before: unseen) are not counted as unmatched;
	 * with its first enter the kernel side admits it anyway. */
	err = s->opts.system_wide ? 0 : admit(s, pid);
	if (err)
		return err;
	if (exe) {
		struct stat st;

		/* Not exec'd yet: its probes are armed when the kernel maps the file. */
		err = hooks__dl(s, t, exe);
		if (err)
			return err;
		if (stat(exe, &st))
			return -errno;
		err = file_set__add(&t->files, st.st_dev, st.st_ino);
		if (err)
			return err;
		sites = attach__file(s, pid, exe, -1);
		t->probed |= sites > 0;
		err = sites >= 0 ? funcev__file(s, pid, exe, exe) : 0;
		return err ? err : sites;
	}
	err = targets__rescan(s, t);
	if (err == -ESRCH && !s->opts.system_wide) {
		/* -p: admitted, sampled, and gone while its files were being
		 * attached (function features' probes take a second or more):
		 * what was sampled is kept, the session ends with it. */
		log__info("process %d exited while its files were being attached: the %s taken "
			  "meanwhile are reported",
			  pid, s->opts.stacks ? "samples and native stacks" : "samples");
		targets__gone(s, t);
		return 0;
	}
	if (err < 0)
		return err;
	sites += err;
	if (s->opts.system_wide) {
		err = admit(s, pid);
		if (err)
			return err;
	}
	return sites;
}

void targets__gone(struct session *s, struct target *t)
{
	if (!t->alive)
		return;
	t->alive = false;
	t->gone_mono = now(CLOCK_MONOTONIC);
	if (t->pidfd >= 0) {
		epoll_ctl(s->epfd, EPOLL_CTL_DEL, t->pidfd, NULL);
		close(t->pidfd);
		t->pidfd = -1;
	}
	v2__forget(s, t->pid);
	samplevars__forget(s, t->pid);
}
