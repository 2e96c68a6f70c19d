/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Internal to the HTML report (report_html.h): the parts of its data that
 * the profile page and the diff page share, written as members of the
 * top-level object of the data (json_out.h framing).
 */
#ifndef FSP_ANALYSIS_REPORT_HTML_INT_H
#define FSP_ANALYSIS_REPORT_HTML_INT_H

#include <stddef.h>

#include "charges.h"
#include "hashmap.h"
#include "json_out.h"
#include "report_html.h"
#include "report_native.h"
#include "report_view.h"
#include "strtab.h"

/* "format", "version", "kind" and "tool_version": the first members. */
void html_data__head(struct json_out *w, const char *kind);

/*
 * The "sources" member: for each distinct file named by a "FILE:LINE" label
 * among labels[0..n) (duplicates and other labels are skipped), the file's
 * text or why it is not there (report_html_source.c). 0 or -ENOMEM (w->err
 * holds a write error).
 */
int html_sources__write(struct json_out *w, const char *const *labels, size_t n,
			const struct report_html_opts *h);

/* The "plugins" member: h's plug-in sections (an empty array without). */
void html_plugins__write(struct json_out *w, const struct report_html_opts *h);

/* The file part of a "FILE:LINE" label (LINE: 1 to 9 decimal digits, FILE
 * not empty) into buf (size bytes); false when the label is not one (or the
 * file part does not fit). */
bool html_source__file_of(const char *label, char *buf, size_t size);

/* ---- the data of a profile page (report_html_data.c) ---- */

struct html_calls;

struct hd_thread {
	size_t process;
	uint32_t tid;
	size_t comm; /* string index */
	uint64_t samples, offcpu_ns, uncharged, uncharged_offcpu_ns;
};

struct hd_charge {
	size_t thread, feature, instance; /* feature, instance: string indexes */
	uint64_t samples, offcpu_ns;
	size_t native; /* index in the data's native_stacks + 1, 0: none */
};

struct hd_event {
	size_t process, feature, instance;
	struct profile_event_stats st;
};

struct hd {
	const struct report_scope *scope;
	const struct profile *p;
	struct strtab *tab; /* canonical copies of the strings */
	struct hashmap str_map; /* canonical pointer -> index */
	const char **strs;
	size_t nr_strs, cap_strs;
	struct hashmap proc_map; /* (source, pid) -> process index */
	struct profile_process *procs;
	size_t nr_procs;
	struct hashmap thread_map; /* (source << 32 | pid, tid) -> thread index */
	struct hd_thread *threads;
	size_t nr_threads;
	struct hashmap charge_map, event_map;
	struct hd_charge *charges;
	size_t nr_charges, cap_charges;
	struct hd_event *events;
	size_t nr_events, cap_events;
	struct charges rc;
	/* native stacks (record --stacks) */
	bool has_native;
	struct native_view nv;
	size_t *native_out; /* per native stack: its index in native_stacks + 1, 0: unused */
	size_t *native_order; /* native_stacks: the native stacks written, in order */
	size_t nr_native_out;
	struct html_calls *calls; /* the calls member (report_html_calls.c) */
};

/* The index of string s in "strings", added when new: 0 or -ENOMEM. */
int hd_str(struct hd *d, const char *s, size_t *idx);
/* The index + 1 of native stack `stack` (a profile__native_stack index) in
 * the data's native_stacks, added when new; 0 for SIZE_MAX (none). */
size_t hd_native(struct hd *d, size_t stack);

/*
 * The calls of the slow-call view (record --calls) for the page's call
 * selection (report_html_calls.c): prepare picks the calls the page keeps
 * (at most REPORT_HTML_MAX_CALLS, the slowest), interns their names and
 * native stacks (before "strings" and "native_stacks" are written); write
 * writes the "calls", "call_stacks" and "call_list" members; fini frees.
 * prepare: 0, -ENOMEM or -EINVAL.
 */
int html_calls__prepare(struct hd *d);
void html_calls__write(struct json_out *w, struct hd *d);
void html_calls__fini(struct hd *d);

#endif /* FSP_ANALYSIS_REPORT_HTML_INT_H */
