/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Analysis plug-ins (fsp-plugin.h, docs/plugins.md), fsp-bpf's side: the
 * plug-ins --plugin names (plugin.c: built-in ones and shared objects),
 * their runs over a profile and the sections they render (plugin_run.c),
 * and the function table they read the profile through (plugin_host.c).
 */
#ifndef FSP_ANALYSIS_PLUGIN_H
#define FSP_ANALYSIS_PLUGIN_H

#include <stddef.h>
#include <stdio.h>

#include "fsp-plugin.h"
#include "profile.h"
#include "report.h"

struct json_out;

/* The built-in plug-ins, by name. */
size_t plugin__nr_builtins(void);
const struct fsp_plugin *plugin__builtin(size_t i);

/*
 * Checks a plug-in's descriptor: its ABI version, size, name and the
 * members every plug-in has. `where` names it in the message ("./libx.so").
 * 0 or -EINVAL with a one-line message in err.
 */
int plugin__check(const struct fsp_plugin *d, const char *where, char *err, size_t errlen);

/* The plug-ins of a --plugin list, resolved and loaded. */
struct plugin_set;

/*
 * Parses "SPEC[,SPEC...]", each SPEC "NAME[=FEATURE]": NAME a built-in
 * plug-in, or, when it contains a '/', the path of a plug-in shared object
 * (loaded now); FEATURE the feature it reads instead of its own. Empty
 * elements are ignored; a SPEC given twice counts once. Returns 0, or
 * -EINVAL (an unknown name, an object that is not a plug-in or of another
 * ABI version, an empty feature) or -ENOMEM, with a one-line message in
 * err. *out is NULL when list names nothing.
 */
int plugin_set__new(const char *list, struct plugin_set **out, char *err, size_t errlen);
void plugin_set__free(struct plugin_set *s); /* NULL-safe; unloads the objects */
size_t plugin_set__nr(const struct plugin_set *s);
/* How many plug-ins of s draw a graph (render_dot). */
size_t plugin_set__nr_dot(const struct plugin_set *s);

/* The analyses of a plug-in set over one profile. */
struct plugin_run;

/*
 * Runs every plug-in's analyze over p: the processes opts->comm and
 * opts->pid keep (report__filter), opts->min_pct for the plug-ins (opts may
 * be NULL). Returns NULL, with -errno in *errp and a one-line message in
 * err, when a plug-in's feature has no samples in p (-ENOENT), a plug-in
 * needs a feature and was given none (-EINVAL), or an analysis fails.
 */
struct plugin_run *plugin_run__new(const struct plugin_set *s, const struct profile *p,
				   const struct report_opts *opts, int *errp, char *err,
				   size_t errlen);
void plugin_run__free(struct plugin_run *r); /* NULL-safe; releases the plug-ins' states */

/* Each plug-in's section of the text report: a heading, then its body.
 * 0 or -errno with a message. */
int plugin_run__text(struct plugin_run *r, FILE *out, char *err, size_t errlen);
/* The JSON profile's "plugins" member (json_out__member framing): one
 * record {"name", "feature", "result"} per plug-in. 0 or -errno with a
 * message. */
int plugin_run__json(struct plugin_run *r, struct json_out *w, char *err, size_t errlen);
/* The graph of the one plug-in of the set that draws one (-EINVAL when
 * not exactly one does). 0 or -errno with a message. */
int plugin_run__dot(struct plugin_run *r, FILE *out, char *err, size_t errlen);

#endif /* FSP_ANALYSIS_PLUGIN_H */
