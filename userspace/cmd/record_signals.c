// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* SIGINT and SIGTERM while record makes a report (record_signals.h). */
#include <string.h>
#include <unistd.h>

#include "record_signals.h"

static volatile sig_atomic_t live_report, signals_seen, first_signal;

static void say(const char *msg)
{
	ssize_t n = write(STDERR_FILENO, msg, strlen(msg));

	(void)n;
}

/* Async-signal-safe: a flag, write(2), _exit(2). */
static void on_signal(int sig)
{
	if (signals_seen++ || (sig == SIGTERM && !live_report))
		_exit(128 + sig);
	first_signal = sig;
	if (live_report)
		say("\nfsp-bpf: the session ends after this live report; again to quit at once, "
		    "nothing saved\n");
	else
		say("\nfsp-bpf: the report is being made (a plug-in may take long); Ctrl-C again "
		    "to quit without it\n");
}

void record_signals__report(struct record_signals *rs, bool live)
{
	struct sigaction sa = {.sa_handler = on_signal};
	sigset_t set;

	rs->live = live;
	live_report = live;
	signals_seen = 0;
	first_signal = 0;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &rs->old_int);
	sigaction(SIGTERM, &sa, &rs->old_term);
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigprocmask(SIG_UNBLOCK, &set, &rs->old_mask);
}

void record_signals__done(struct record_signals *rs)
{
	int sig = first_signal;

	sigprocmask(SIG_SETMASK, &rs->old_mask, NULL);
	sigaction(SIGINT, &rs->old_int, NULL);
	sigaction(SIGTERM, &rs->old_term, NULL);
	/* Blocked again: pending for the session's signalfd. */
	if (rs->live && sig)
		raise(sig);
}
