/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Renders a profile as one of the views of fsp_view to a file or stdout. */
#ifndef FSP_RENDER_H
#define FSP_RENDER_H

#include "options.h"
#include "profile.h"

/* path NULL or "-": stdout. Writes atomically otherwise. Prints what went
 * wrong; returns 0 or -errno (-ENOENT: --feature names no feature of p). */
int render__profile(const struct profile *p, const struct fsp_view *v, const char *path);

/* -EINVAL (said) when the format may not go to a terminal (its
 * not_terminal: pprof, html) and path is stdout on a terminal, else 0. */
int render__to_terminal_check(const struct fsp_format *format, const char *path);

#endif /* FSP_RENDER_H */
