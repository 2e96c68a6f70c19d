// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The event loop (session__run): fork, exec, dlopen and new-process events
 * from the ring buffer, signals, targets' exits (pidfds), the launched
 * command's stops (exec, dlopen) and its end, the live view's ticks, the
 * rescan every second, the agent's requests (record --listen) and, -a,
 * exits and the retirement of exited processes. */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "log.h"
#include "session_int.h"

static int on_event(void *ctx, void *data, size_t size)
{
	const struct fsp_event *e = data;
	struct session *s = ctx;
	struct target *t;
	int err;

	if (size < sizeof(*e))
		return 0;
	/* The session is over: only a child held stopped is let go. */
	if (s->closing) {
		if (e->type == FSP_EVENT_FORK && e->addr)
			kill(e->pid, SIGCONT);
		return 0;
	}
	switch (e->type) {
	case FSP_EVENT_FORK:
		err = loop__check(s, session__add_target(s, e->pid, NULL));
		if (err < 0 && err != -ESRCH && err != -ENOMSG)
			log__verbose("cannot follow child %d of %d: %s", e->pid, e->ppid,
				     strerror(-err));
		/* A vfork child held until its probes were attached: on it goes. */
		if (e->addr)
			kill(e->pid, SIGCONT);
		break;
	case FSP_EVENT_EXEC:
		stacks__exec(s->stacks, e->pid, e->addr);
		t = targets__find(s, e->pid);
		/* System-wide: a process seen before may run a program with
		 * probes now; the next scan looks at it again. */
		if (!t && s->opts.system_wide)
			syswide__exec(s, e->pid);
		/* Links are per task and file: they stay armed across exec for the
		 * files the new image maps again; only new files need attaching. */
		if (t)
			loop__check(s, targets__rescan(s, t));
		break;
	case FSP_EVENT_DLOPEN:
		/* The launched command also stopped itself: on_sigchld rescans
		 * (once, not twice per dlopen). */
		if ((pid_t)e->pid == s->opts.sync_pid)
			break;
		t = targets__find(s, e->pid);
		if (t)
			loop__check(s, targets__rescan(s, t));
		else if (s->opts.system_wide)
			syswide__dlopen(s, e->pid);
		break;
	case FSP_EVENT_NEW_PROC:
		syswide__new_process(s, e->pid);
		break;
	case FSP_EVENT_LABEL:
		label__read_now(s, e->pid, e->addr);
		break;
	case FSP_EVENT_SKIP_SITE:
		eventsel__drop(s);
		break;
	case FSP_EVENT_EXIT:
		syswide__exit(s, e->pid);
		break;
	}
	return 0;
}

/* A sample's payloads (the sampler wakes us when its ring is half full; the
 * loop also reads it every second). Out of memory: the record is lost, and
 * its sample counted as one whose payloads were not kept. */
static int on_payload(void *ctx, void *data, size_t size)
{
	struct session *s = ctx;

	payloads__add(s->payloads, data, size);
	return 0;
}

/* record --calls: a sample's call numbers. */
static int on_calls(void *ctx, void *data, size_t size)
{
	struct session *s = ctx;
	int err;

	/* enough records: joined to their calls now, and the calls bounded */
	if (callrecs__add(s->callrecs, data, size) <= 0)
		return 0;
	err = callrecs__flush(s);
	if (err)
		log__err("--calls: joining the samples to their calls failed: %s", strerror(-err));
	return 0;
}

void loop__consume(struct session *s)
{
	ring_buffer__consume(s->rb);
	loop__drain_native(s);
}

void loop__drain_native(struct session *s)
{
	if (!s->native_rb)
		return;
	ring_buffer__consume(s->native_rb);
	stacks__batch_end(s->stacks);
}

/* A sample's native stack: unwound now, while the process's mappings are
 * still there. Out of memory: the sample has no native stack. */
static int on_native(void *ctx, void *data, size_t size)
{
	struct session *s = ctx;

	stacks__add(s->stacks, data, size);
	return 0;
}

/* The launched command stopped itself at a link-map change (sync_pid): attach
 * what it mapped, then let it go on. Or it exited: keep its status. */
static void on_sigchld(struct session *s)
{
	pid_t pid = s->opts.sync_pid;
	int status;

	if (!pid)
		return;
	while (waitpid(pid, &status, WNOHANG | WUNTRACED) == pid) {
		struct target *t;

		if (WIFSTOPPED(status)) {
			loop__consume(s);
			/* Found after the events: a fork among them may have
			 * moved the targets. */
			t = targets__find(s, pid);
			if (t)
				loop__check(s, targets__rescan(s, t));
			if (s->fatal)
				return; /* held stopped: killed at the end of the loop */
			kill(pid, SIGCONT);
			continue;
		}
		s->child_status = status;
		t = targets__find(s, pid);
		if (t)
			targets__gone(s, t);
		break;
	}
}

int loop__check(struct session *s, int err)
{
	/* -a keeps its own rule: a map error at the start ends it
	 * (session__add_system_wide), one found later does not. */
	if (err == -ENOMSG && !s->fatal && !s->opts.system_wide) {
		s->fatal = err;
		s->stop = true;
	}
	return err;
}

/* The session ends on an error with a launched command (a probe map that
 * does not fit a library it loaded): the command, held stopped before
 * that library ran, and the processes it started are killed rather than
 * left to run unprofiled. */
static void kill_launched(struct session *s)
{
	int status;

	for (size_t i = 0; i < s->nr_targets; i++)
		if (s->targets[i].alive)
			kill(s->targets[i].pid, SIGKILL);
	if (waitpid(s->opts.sync_pid, &status, 0) == s->opts.sync_pid)
		s->child_status = status;
	log__err("killed the command before it ran that file's code (fix the map, or leave the "
		 "feature out with --feature)");
}

/* How long a launched command may take to exit after SIGTERM before
 * fsp-bpf says that it waits for it. */
#define ENDING_NOTE_S 5.0

/* Sends sig to the launched command and the processes it started (the
 * targets) not signalled with it yet, through their pidfds: a PID that an
 * exit just freed is never another process's. */
static void signal_launched(struct session *s, int sig)
{
	if (sig != s->ending) {
		s->ending = sig;
		s->ending_nr = 0;
		s->ending_mono = now(CLOCK_MONOTONIC);
		s->ending_signals = s->stop_signals;
	}
	for (; s->ending_nr < s->nr_targets; s->ending_nr++) {
		const struct target *t = &s->targets[s->ending_nr];

		if (t->alive && t->pidfd >= 0)
			syscall(SYS_pidfd_send_signal, t->pidfd, sig, NULL, 0);
	}
}

/*
 * The session is over (its duration, SIGINT or SIGTERM) and the launched
 * command, or a process it started, still runs: as perf record ends its
 * workload, each gets SIGTERM, and the session goes on until they have
 * exited (their end is profiled, the command's status reported); a further
 * SIGINT or SIGTERM to fsp-bpf sends SIGKILL. A command stopped at an exec
 * or a link-map change is continued by on_sigchld as always, so it is never
 * left stopped. Returns whether the loop must go on.
 */
static bool end_launched(struct session *s, bool timed_out)
{
	double t = now(CLOCK_MONOTONIC);

	if (!s->opts.sync_pid || s->fatal)
		return false;
	if (!s->ending && timed_out)
		log__info("the session's %g s are over: ending the command (SIGTERM)",
			  s->opts.duration_s);
	if (s->ending == SIGTERM && s->stop_signals > s->ending_signals) {
		log__info("killing the command (SIGKILL)");
		signal_launched(s, SIGKILL);
	}
	signal_launched(s, s->ending ? s->ending : SIGTERM);
	if (!s->ending_said && s->ending == SIGTERM && t - s->ending_mono >= ENDING_NOTE_S) {
		log__info("the command has not exited %.0f s after SIGTERM: waiting for it "
			  "(Ctrl-C or SIGTERM again kills it)",
			  ENDING_NOTE_S);
		s->ending_said = true;
	}
	return true;
}

/* Seconds until end_launched has something to say (a large number: never). */
static double ending_wait(const struct session *s, double t)
{
	if (s->ending != SIGTERM || s->ending_said)
		return 1e9;
	return s->ending_mono + ENDING_NOTE_S - t;
}

void loop__release(struct session *s)
{
	pid_t pid = s->opts.sync_pid;
	int status;

	/* 0: our child, not reaped, alive (running or stopped). */
	if (!pid || s->child_status != -1 || waitpid(pid, &status, WNOHANG) != 0)
		return;
	kill(pid, SIGTERM);
	kill(pid, SIGCONT);
}

static bool any_alive(const struct session *s)
{
	for (size_t i = 0; i < s->nr_targets; i++)
		if (s->targets[i].alive)
			return true;
	return false;
}

static void handle_signal(struct session *s)
{
	struct signalfd_siginfo si;

	while (read(s->sigfd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGCHLD) {
			on_sigchld(s);
		} else {
			s->stop = true;
			s->stop_signals++;
		}
	}
}

int session__run(struct session *s)
{
	double deadline = s->opts.duration_s > 0 ? now(CLOCK_MONOTONIC) + s->opts.duration_s : 0;
	double next_rescan = now(CLOCK_MONOTONIC) + RESCAN_INTERVAL_S;
	double interval = s->opts.on_interval ? s->opts.interval_s : 0;
	double next_tick = interval > 0 ? now(CLOCK_MONOTONIC) + interval : 0;
	double probe_deadline =
		s->opts.probe_timeout_s > 0 ? now(CLOCK_MONOTONIC) + s->opts.probe_timeout_s : 0;
	struct epoll_event evs[16];
	int err = 0;

	while (!s->fatal) {
		double t = now(CLOCK_MONOTONIC), wait_s = next_rescan - t, retire_s;
		int n, i;

		if (next_tick && t >= next_tick) {
			/* The live view: its errors are its own, the session goes on. */
			s->opts.on_interval(s, s->opts.interval_ctx);
			while (next_tick <= now(CLOCK_MONOTONIC))
				next_tick += interval;
			continue;
		}
		if (next_tick && next_tick - t < wait_s)
			wait_s = next_tick - t;
		if (s->stacks) {
			/* The native stacks, which wake us only when their ring
			 * fills: unwound while their processes' mappings last. */
			loop__consume(s);
			if (wait_s > NATIVE_POLL_S)
				wait_s = NATIVE_POLL_S;
		}
		retire__due(s);
		retire_s = retire__next(s);
		if (retire_s >= 0 && retire_s < wait_s)
			wait_s = retire_s;

		if (!s->opts.system_wide && !any_alive(s))
			break;
		if (s->stop || (deadline && t >= deadline)) {
			if (!end_launched(s, !s->stop))
				break;
			deadline = 0;
			if (ending_wait(s, t) < wait_s)
				wait_s = ending_wait(s, t);
		}
		if (deadline && deadline - t < wait_s)
			wait_s = deadline - t;
		/* --wait-probes=S: no probe came within S seconds. */
		if (probe_deadline && s->nr_sites)
			probe_deadline = 0;
		if (probe_deadline && t >= probe_deadline) {
			err = -ETIMEDOUT;
			break;
		}
		if (probe_deadline && probe_deadline - t < wait_s)
			wait_s = probe_deadline - t;
		n = epoll_wait(s->epfd, evs, 16, wait_s > 0 ? (int)(wait_s * 1000) + 1 : 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			break;
		}
		for (i = 0; i < n; i++) {
			__u64 tag = evs[i].data.u64;

			if (tag == TAG_RINGBUF)
				loop__consume(s);
			else if (tag == TAG_SIGNAL)
				handle_signal(s);
			else if (tag == TAG_WAKE)
				s->opts.on_wake(s, s->opts.wake_ctx);
			else if (tag & TAG_PIDFD)
				targets__gone(s, &s->targets[tag & 0xffffffffULL]);
		}
		if (now(CLOCK_MONOTONIC) >= next_rescan) {
			/* The payloads, which do not wake us up. */
			loop__consume(s);
			/* Catch what the events missed (ring buffer full, no ld.so hook). */
			for (size_t j = 0; j < s->nr_targets && !s->fatal; j++)
				if (s->targets[j].alive &&
				    loop__check(s, targets__rescan(s, &s->targets[j])) == -ESRCH)
					targets__gone(s, &s->targets[j]);
			/* System-wide: processes started since (their probes may not
			 * have fired yet, or be in files not seen before). */
			if (s->opts.system_wide) {
				syswide__rescan(s);
				retire__orphans(s);
			}
			eventsel__drop(s);
			next_rescan = now(CLOCK_MONOTONIC) + RESCAN_INTERVAL_S;
		}
	}
	/* Events that arrived last, and a final look at the launched child. */
	if (!s->fatal) {
		loop__consume(s);
		on_sigchld(s);
	}
	if (s->fatal && s->opts.sync_pid)
		kill_launched(s);
	s->end_mono = now(CLOCK_MONOTONIC);
	s->end_wall = now(CLOCK_REALTIME);
	log__phase("the session ended after %.3f s", s->end_mono - s->start_mono);
	return s->fatal ? s->fatal : err;
}

int loop__setup(struct session *s)
{
	struct epoll_event ev = {.events = EPOLLIN};
	sigset_t mask;

	s->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (s->epfd < 0)
		return -errno;
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGCHLD);
	if (sigprocmask(SIG_BLOCK, &mask, &s->old_mask))
		return -errno;
	s->mask_set = true;
	s->sigfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	if (s->sigfd < 0)
		return -errno;
	ev.data.u64 = TAG_SIGNAL;
	if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, s->sigfd, &ev))
		return -errno;
	s->rb = ring_buffer__new(bpf_map__fd(s->skel->maps.events), on_event, s, NULL);
	if (!s->rb)
		return -errno;
	s->payloads = payloads__new(MAX_PAYLOADS);
	if (!s->payloads)
		return -ENOMEM;
	if (ring_buffer__add(s->rb, bpf_map__fd(s->skel->maps.payload_rb), on_payload, s))
		return -errno;
	if (s->opts.calls) {
		const struct calls_bound b = {
			.slowest = s->opts.calls_keep ? s->opts.calls_keep : CALLS_KEEP_DEFAULT,
			.sample = s->opts.calls_keep ? s->opts.calls_keep : CALLS_KEEP_DEFAULT,
			.period_ns = s->period_ns};

		s->callrecs = callrecs__new(&b, s->opts.stacks != 0);
		if (!s->callrecs)
			return -ENOMEM;
		if (ring_buffer__add(s->rb, bpf_map__fd(s->skel->maps.calls_rb), on_calls, s))
			return -errno;
	}
	if (s->opts.stacks) {
		struct stacks_opts so = {.stack_size = s->opts.stack_size};

		s->stacks = stacks__new(&so);
		if (!s->stacks)
			return -ENOMEM;
		s->native_rb =
			ring_buffer__new(bpf_map__fd(s->skel->maps.native_rb), on_native, s, NULL);
		if (!s->native_rb)
			return -errno;
		ev.data.u64 = TAG_RINGBUF;
		if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, ring_buffer__epoll_fd(s->native_rb), &ev))
			return -errno;
	}
	ev.data.u64 = TAG_RINGBUF;
	if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, ring_buffer__epoll_fd(s->rb), &ev))
		return -errno;
	ev.data.u64 = TAG_WAKE;
	if (s->opts.on_wake && epoll_ctl(s->epfd, EPOLL_CTL_ADD, s->opts.wake_fd, &ev))
		return -errno;
	return 0;
}
