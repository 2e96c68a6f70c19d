// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Uprobes on runtime functions, not on probes: ld.so's _dl_debug_state
 * (dlopen), longjmp and __cxa_begin_catch (a thread resuming higher up its
 * stack), swapcontext and setcontext (a thread switching coroutines). Each
 * is a uprobe_multi link of one site: its detach waits for an RCU grace
 * period of its own, which the teardown's threads overlap (a perf-event
 * uprobe's detach waits under a lock every other one waits for too: 5 hooks
 * took 0.5 s to detach one after the other). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "safeopen.h"
#include "usdt.h"
#include "session_int.h"

/*
 * The BPF cookie of the _dl_debug_state hook of the ld.so at path: where
 * ld.so's r_debug (_r_debug) is relative to _dl_debug_state, so that the BPF
 * side reads the link map's state (RT_ADD, RT_CONSISTENT, RT_DELETE) and stops
 * and rescans only when a dlopen completed. 0 when unknown: it then does so at
 * every call.
 */
static __u64 dl_state_cookie(const char *path)
{
	uint64_t r_debug, hook;

	if (usdt__symbol(path, "_r_debug", &r_debug) || usdt__func(path, "_dl_debug_state", &hook))
		return 0;
	return r_debug - hook;
}

/* Attaches prog at file offset off of path, for process pid (0: every
 * process), with cookie. 0 or -errno. */
static int hook_at(struct session *s, int prog_fd, const char *path, uint64_t off, __u64 cookie,
		   pid_t pid)
{
	__u64 o = off;

	return attach__link_fd(s, usdt__link(prog_fd, path, &o, NULL, &cookie, 1, pid));
}

/* Hooks _dl_debug_state of the ld.so at path (at its entry: the cookie
 * places r_debug relative to it) for pid (0: every process). 0 or -errno. */
static int hook_dl(struct session *s, const char *path, pid_t pid)
{
	uint64_t off;
	int err = usdt__func_offset(path, "_dl_debug_state", &off);

	if (err)
		return err;
	return hook_at(s, PROG_FD(s, on_dl_debug_state), path, off, dl_state_cookie(path), pid);
}

/* Hooks ld.so's _dl_debug_state so that dlopen()ed libraries are noticed. */
int hooks__dl(struct session *s, struct target *t, const char *exe)
{
	char interp[PATH_MAX], path[PATH_MAX + 64], kpath[64];
	int err, fd;

	if (t->dl_hooked)
		return 0;
	err = usdt__elf_interp(exe, interp, sizeof(interp));
	if (err || !interp[0])
		return 0; /* static executable: nothing is ever dlopen()ed by ld.so */
	/* The interpreter as the target sees it (its mount namespace), a
	 * regular file (the name comes from the target's executable). */
	snprintf(path, sizeof(path), "/proc/%d/root%s", t->pid, interp);
	fd = safeopen__read(AT_FDCWD, path, 0, NULL, NULL);
	if (fd < 0) {
		err = fd;
	} else {
		attach__fd_path(fd, kpath, sizeof(kpath));
		err = hook_dl(s, kpath, t->pid);
		close(fd);
	}
	if (err == -ESRCH || err == -ENOMEM)
		return err;
	if (err) {
		log__err("cannot watch %s for dlopen in pid %d: %s; libraries loaded later are "
			 "found within %.0f s instead",
			 path, t->pid, strerror(-err), RESCAN_INTERVAL_S);
		return 0;
	}
	t->dl_hooked = true;
	return 0;
}

/* Attaches program prog_fd to function func of path for pid, at the
 * cheapest place to probe its entry (usdt__func_probe()). 0 or -errno. */
static int hook_func(struct session *s, int prog_fd, pid_t pid, const char *path, const char *func)
{
	bool emulated;
	uint64_t off;
	int err;

	err = usdt__func_probe(path, func, &off, &emulated);
	if (err)
		return err;
	if (!emulated)
		log__verbose("%s in %s starts with an instruction the kernel single-steps: "
			     "each call costs a second trap",
			     func, path);
	return hook_at(s, prog_fd, path, off, 0, pid);
}

enum unwind_hook { HOOK_LONGJMP, HOOK_CATCH, HOOK_SWAPCONTEXT, HOOK_SETCONTEXT };

static int unwind_prog(struct session *s, enum unwind_hook h)
{
	switch (h) {
	case HOOK_LONGJMP:
		return PROG_FD(s, on_longjmp);
	case HOOK_CATCH:
		return PROG_FD(s, on_catch);
	case HOOK_SWAPCONTEXT:
		return PROG_FD(s, on_swapcontext);
	default:
		return PROG_FD(s, on_setcontext);
	}
}

/* Hooks the points where a thread resumes higher up its stack (longjmp, a
 * C++ catch) or switches stacks (coroutines) in the runtime libraries the
 * target maps, for pid (0: every process). Best effort. path names the
 * file, kpath reaches it
 * (attach__file). */
void hooks__unwind(struct session *s, pid_t pid, const char *path, const char *kpath)
{
	static const struct {
		const char *lib;
		const char *func;
		enum unwind_hook hook;
	} hooks[] = {
		{"libc.so.", "longjmp", HOOK_LONGJMP},
		{"libc.so.", "__longjmp_chk", HOOK_LONGJMP},
		{"libc.so.", "swapcontext", HOOK_SWAPCONTEXT},
		{"libc.so.", "setcontext", HOOK_SETCONTEXT},
		{"libstdc++.so.", "__cxa_begin_catch", HOOK_CATCH},
	};
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	for (size_t i = 0; i < sizeof(hooks) / sizeof(hooks[0]); i++) {
		int err;

		if (strncmp(base, hooks[i].lib, strlen(hooks[i].lib)))
			continue;
		err = hook_func(s, unwind_prog(s, hooks[i].hook), pid, kpath, hooks[i].func);
		if (err)
			log__verbose("cannot hook %s in %s (pid %d): %s; the marks of threads "
				     "passing through it are judged by their stack pointers alone",
				     hooks[i].func, path, pid, strerror(-err));
	}
}

bool hooks__is_dl(const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	return !strncmp(base, "ld-linux", 8) || !strncmp(base, "ld-2.", 5);
}

/*
 * System-wide: hooks _dl_debug_state in a dynamic loader for every process
 * (syswide.c does it once per file): the BPF side reports the link-map
 * changes of any process but an excluded one, so that a library with probes
 * that a process loads is found at once. path names the file, kpath reaches
 * it.
 */
int hooks__dl_file(struct session *s, const char *path, const char *kpath)
{
	int err = hook_dl(s, kpath, 0);

	if (err && err != -ENOMEM)
		log__err("cannot watch %s for dlopen: %s; libraries loaded later are found "
			 "within %.0f s instead",
			 path, strerror(-err), RESCAN_INTERVAL_S);
	return err;
}
