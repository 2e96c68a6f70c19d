// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * startwatch - when a profiler is ready and how long it takes to end
 * (bench/startup.sh): runs CMD, timestamps the first line of its stderr that
 * contains READY, interrupts it (SIGINT) INT seconds after its start and
 * times its exit. Every time is CLOCK_MONOTONIC, in seconds, the clock of
 * the targets' own timestamps, of perf record -k CLOCK_MONOTONIC and of
 * bpftrace's nsecs.
 *
 *   startwatch [-r READY] [-i INT] [-e ERRFILE] [-o OUTFILE] -- CMD [ARGS...]
 *
 * CMD's stderr goes to ERRFILE, its stdout to OUTFILE (default /dev/null).
 * Prints one line: "t0=T ready=T int=T exit=T status=N" (ready=n/a when no
 * line matched; int=n/a when CMD ended by itself first).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void usage(void)
{
	fputs("usage: startwatch [-r READY] [-i SECONDS] [-e ERRFILE] [-o OUTFILE] -- CMD "
	      "[ARGS...]\n",
	      stderr);
	exit(2);
}

/* Runs argv with stdout to out and stderr into the pipe's write end. */
static pid_t spawn(char **argv, const char *out, int pipe_w, int pipe_r)
{
	pid_t pid = fork();

	if (pid)
		return pid;
	int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0 || dup2(fd, 1) < 0 || dup2(pipe_w, 2) < 0)
		_exit(126);
	close(pipe_r);
	execvp(argv[0], argv);
	_exit(127);
}

struct watch {
	const char *ready; /* NULL: none */
	FILE *err; /* where CMD's stderr goes */
	char line[4096];
	size_t len;
	double t_ready;
};

/* Takes what CMD wrote to stderr: whole lines are checked for ready. */
static void take(struct watch *w, const char *buf, size_t n)
{
	fwrite(buf, 1, n, w->err);
	for (size_t i = 0; i < n; i++) {
		if (buf[i] != '\n' && w->len < sizeof(w->line) - 1) {
			w->line[w->len++] = buf[i];
			continue;
		}
		w->line[w->len] = 0;
		if (w->ready && !w->t_ready && strstr(w->line, w->ready))
			w->t_ready = mono();
		w->len = 0;
	}
}

int main(int argc, char **argv)
{
	const char *errfile = "/dev/null", *outfile = "/dev/null";
	struct watch w = {};
	double t0, t_int = 0, after = 0, t_exit;
	int opt, fds[2], status = 0;
	bool eof = false;
	pid_t pid;

	while ((opt = getopt(argc, argv, "r:i:e:o:")) != -1) {
		switch (opt) {
		case 'r':
			w.ready = optarg;
			break;
		case 'i':
			after = strtod(optarg, NULL);
			break;
		case 'e':
			errfile = optarg;
			break;
		case 'o':
			outfile = optarg;
			break;
		default:
			usage();
		}
	}
	if (optind >= argc)
		usage();
	w.err = fopen(errfile, "w");
	if (!w.err || pipe2(fds, O_CLOEXEC)) {
		perror("startwatch");
		return 2;
	}
	t0 = mono();
	pid = spawn(argv + optind, outfile, fds[1], fds[0]);
	if (pid < 0) {
		perror("startwatch: fork");
		return 2;
	}
	close(fds[1]);
	for (;;) {
		struct pollfd p = {.fd = fds[0], .events = POLLIN};
		double t = mono();
		int ms = 20, n;

		if (after > 0 && !t_int && t >= t0 + after) {
			kill(pid, SIGINT);
			t_int = mono();
		}
		if (waitpid(pid, &status, WNOHANG) == pid)
			break;
		n = eof ? 0 : poll(&p, 1, ms);
		if (n > 0) {
			char buf[4096];
			ssize_t r = read(fds[0], buf, sizeof(buf));

			if (r > 0)
				take(&w, buf, (size_t)r);
			else
				eof = true; /* the command's children may hold it: wait for CMD */
		} else if (eof) {
			usleep(ms * 1000);
		}
	}
	t_exit = mono();
	/* What it wrote last (its children may keep the pipe open). */
	fcntl(fds[0], F_SETFL, O_NONBLOCK);
	for (;;) {
		char buf[4096];
		ssize_t r = eof ? 0 : read(fds[0], buf, sizeof(buf));

		if (r <= 0)
			break;
		take(&w, buf, (size_t)r);
	}
	fclose(w.err);
	printf("t0=%.6f ready=", t0);
	printf(w.t_ready ? "%.6f" : "n/a", w.t_ready);
	printf(" int=");
	printf(t_int ? "%.6f" : "n/a", t_int);
	printf(" exit=%.6f status=%d\n", t_exit, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	return 0;
}
