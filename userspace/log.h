/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* One-line messages to stderr, prefixed "fsp-bpf: ". */
#ifndef FSP_LOG_H
#define FSP_LOG_H

void log__err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* FSP_LOG_H */
