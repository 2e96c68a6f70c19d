/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Internal to the HTML report (report_html.h): the parts of its data that
 * the profile page and the diff page share, written as members of the
 * top-level object of the data (json_out.h framing).
 */
#ifndef FSP_ANALYSIS_REPORT_HTML_INT_H
#define FSP_ANALYSIS_REPORT_HTML_INT_H

#include <stddef.h>

#include "json_out.h"
#include "report_html.h"

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

#endif /* FSP_ANALYSIS_REPORT_HTML_INT_H */
