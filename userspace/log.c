// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "escape.h"
#include "log.h"

static enum log_level max_level = LOG_INFO;
static struct timespec started;

/* Before main(): the phases' times count from here. */
__attribute__((constructor)) static void log_start(void)
{
	clock_gettime(CLOCK_MONOTONIC, &started);
}

double log__uptime(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)(ts.tv_sec - started.tv_sec) + (ts.tv_nsec - started.tv_nsec) / 1e9;
}

void log__set_level(enum log_level level)
{
	max_level = level;
}

bool log__enabled(enum log_level level)
{
	return level <= max_level;
}

/*
 * A message is one line, and much of what it quotes is outside text:
 * labels, comms, paths of the target's files, map file text. So the whole
 * message is written escaped (escape.h): a control, invalid UTF-8 or a
 * bidirectional override in it shows as \x1b, \xff, \u202e. (A message too
 * long for memory is cut.)
 */
static void vlog(enum log_level level, const char *fmt, va_list ap)
{
	char small[1024], *msg = small;
	va_list again;
	int n;

	if (!log__enabled(level))
		return;
	va_copy(again, ap);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	if (n >= (int)sizeof(small)) {
		msg = malloc((size_t)n + 1);
		if (msg)
			vsnprintf(msg, (size_t)n + 1, fmt, again);
		else
			msg = small;
	}
	va_end(again);
	/* One line, also when several threads log (the agent's server). */
	flockfile(stderr);
	fputs("fsp-bpf: ", stderr);
	escape__fputs(n < 0 ? fmt : msg, stderr);
	fputc('\n', stderr);
	funlockfile(stderr);
	if (msg != small)
		free(msg);
}

void log__lines(const char *text)
{
	const char *nl;

	for (; *text; text = nl + 1) {
		nl = strchr(text, '\n');
		if (!nl) {
			escape__fputs(text, stderr);
			return;
		}
		escape__fwrite(text, (size_t)(nl - text), stderr);
		fputc('\n', stderr);
	}
}

/* log__err, log__info, log__verbose */
#define DEFINE_LOG(name, level)                                                                    \
	void name(const char *fmt, ...)                                                            \
	{                                                                                          \
		va_list ap;                                                                        \
                                                                                                   \
		va_start(ap, fmt);                                                                 \
		vlog(level, fmt, ap);                                                              \
		va_end(ap);                                                                        \
	}

DEFINE_LOG(log__err, LOG_ERR)
DEFINE_LOG(log__info, LOG_INFO)
DEFINE_LOG(log__verbose, LOG_VERBOSE)

void log__phase(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	if (!log__enabled(LOG_VERBOSE))
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	log__verbose("%.3f s: %s", log__uptime(), msg);
}
