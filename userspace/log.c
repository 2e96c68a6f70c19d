// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdarg.h>
#include <stdio.h>

#include "log.h"

static enum log_level max_level = LOG_INFO;

void log__set_level(enum log_level level)
{
	max_level = level;
}

bool log__enabled(enum log_level level)
{
	return level <= max_level;
}

static void vlog(enum log_level level, const char *fmt, va_list ap)
{
	if (!log__enabled(level))
		return;
	fputs("fsp-bpf: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
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
