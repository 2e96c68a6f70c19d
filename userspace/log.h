/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * One-line messages to stderr, prefixed "fsp-bpf: ", at three levels: errors
 * (what went wrong and what to do), information (what fsp-bpf is doing, and
 * warnings that do not stop it) and verbose details (-v). Errors and
 * information are always printed, verbose details only at LOG_VERBOSE.
 */
#ifndef FSP_LOG_H
#define FSP_LOG_H

#include <stdbool.h>

enum log_level {
	LOG_ERR,
	LOG_INFO,
	LOG_VERBOSE,
};

/* The most detailed level printed (LOG_INFO until set). */
void log__set_level(enum log_level level);
bool log__enabled(enum log_level level);

/*
 * Messages are written escaped (escape.h): every byte of them, fsp-bpf's
 * words and the labels, comms and paths they quote alike, so a message is
 * one line whatever it quotes.
 */
void log__err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log__info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log__verbose(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Seconds since fsp-bpf started (CLOCK_MONOTONIC, from before main()). */
double log__uptime(void);
/* A verbose message after log__uptime() ("0.153 s: ..."): what a session
 * is doing while it starts and ends, phase by phase. */
void log__phase(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Text of another library (libbpf's messages) to stderr as it is, lines
 * and all, but each line escaped. */
void log__lines(const char *text);

#endif /* FSP_LOG_H */
