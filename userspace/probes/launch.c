// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "caps.h"
#include "launch.h"

struct launch {
	pid_t pid;
	int go_fd; /* parent writes one byte: exec now */
	int err_fd; /* child writes errno if exec fails; EOF (CLOEXEC) on success */
	int started;
	char path[PATH_MAX];
};

static int resolve(const char *cmd, char out[PATH_MAX])
{
	const char *p, *path = getenv("PATH");
	struct stat st;

	if (strchr(cmd, '/')) {
		if (stat(cmd, &st))
			return -errno;
		if (!realpath(cmd, out))
			return -errno;
		return access(out, X_OK) ? -errno : 0;
	}
	for (p = path ? path : "/usr/local/bin:/usr/bin:/bin"; *p;) {
		const char *end = strchrnul(p, ':');
		char cand[PATH_MAX];

		snprintf(cand, sizeof(cand), "%.*s/%s", (int)(end - p), end == p ? "." : p, cmd);
		if (!stat(cand, &st) && S_ISREG(st.st_mode) && !access(cand, X_OK))
			return realpath(cand, out) ? 0 : -errno;
		p = *end ? end + 1 : end;
	}
	return -ENOENT;
}

static void child(int go_fd, int err_fd, char *const argv[], const char *path)
{
	sigset_t held;
	char c;
	int e;

	/* Die with the profiler if it dies before letting us go. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (read(go_fd, &c, 1) != 1)
		_exit(127);
	prctl(PR_SET_PDEATHSIG, 0);
	close(go_fd);
	/* fsp-bpf holds Ctrl-C and SIGTERM from before the fork (cmd_record.c): the
	 * command gets them as if run alone (one already pending then arrives). */
	sigemptyset(&held);
	sigaddset(&held, SIGINT);
	sigaddset(&held, SIGTERM);
	sigprocmask(SIG_UNBLOCK, &held, NULL);
	/* Run with capabilities instead of as root, fsp-bpf does not pass
	 * them on to the command. */
	caps__drop_ambient();
	execv(path, argv);
	e = errno;
	if (write(err_fd, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

struct launch *launch__new(char *const argv[], int *err)
{
	int go[2] = {-1, -1}, ex[2] = {-1, -1};
	struct launch *l;

	l = calloc(1, sizeof(*l));
	if (!l) {
		*err = -ENOMEM;
		return NULL;
	}
	l->go_fd = l->err_fd = -1;
	*err = resolve(argv[0], l->path);
	if (*err)
		goto cleanup;
	if (pipe2(go, O_CLOEXEC) || pipe2(ex, O_CLOEXEC)) {
		*err = -errno;
		goto cleanup;
	}
	l->pid = fork();
	if (l->pid < 0) {
		*err = -errno;
		goto cleanup;
	}
	if (l->pid == 0) {
		close(go[1]);
		close(ex[0]);
		child(go[0], ex[1], argv, l->path);
	}
	close(go[0]);
	close(ex[1]);
	l->go_fd = go[1];
	l->err_fd = ex[0];
	return l;
cleanup:
	for (int i = 0; i < 2; i++) {
		if (go[i] >= 0)
			close(go[i]);
		if (ex[i] >= 0)
			close(ex[i]);
	}
	free(l);
	return NULL;
}

pid_t launch__pid(const struct launch *l)
{
	return l->pid;
}

const char *launch__path(const struct launch *l)
{
	return l->path;
}

int launch__start(struct launch *l)
{
	ssize_t n;
	int e = 0;

	if (write(l->go_fd, "g", 1) != 1)
		return -errno;
	close(l->go_fd);
	l->go_fd = -1;
	l->started = 1;
	do {
		n = read(l->err_fd, &e, sizeof(e));
	} while (n < 0 && errno == EINTR);
	close(l->err_fd);
	l->err_fd = -1;
	if (n == sizeof(e)) {
		waitpid(l->pid, NULL, 0);
		l->pid = 0;
		return -e;
	}
	return 0;
}

void launch__free(struct launch *l)
{
	if (!l)
		return;
	if (!l->started && l->pid > 0) {
		kill(l->pid, SIGKILL);
		waitpid(l->pid, NULL, 0);
	}
	if (l->go_fd >= 0)
		close(l->go_fd);
	if (l->err_fd >= 0)
		close(l->err_fd);
	free(l);
}
