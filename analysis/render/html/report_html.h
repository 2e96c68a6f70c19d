/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The HTML report (docs/output-formats.md, "HTML"): one self-contained page,
 * the page template built from analysis/render/html/ (its libraries bundled
 * at build time, html_assets.c) with the report's data embedded as JSON in a
 * <script type="application/json"> element. The page (page.js) renders the
 * summary table, the source view, the flame graph, the event view and the
 * plug-in sections from that data; nothing in the page is fetched.
 *
 * Every label is attacker-controlled (a target names its features): the data
 * is JSON whose '<', '>' and '&' are written as \u003c, \u003e and \u0026,
 * so that no label can end the element it is in, and the page puts labels
 * in the document as text only.
 */
#ifndef FSP_ANALYSIS_REPORT_HTML_H
#define FSP_ANALYSIS_REPORT_HTML_H

#include <stddef.h>
#include <stdio.h>

#include "diff.h"
#include "profile.h"
#include "report.h"

/* The version of the embedded data ("fsp-bpf-html" documents). */
#define REPORT_HTML_DATA_VERSION 1

/* Limits of the source view: bigger files are not embedded (the page says
 * so), nor files once the total is reached. */
#define REPORT_HTML_MAX_SOURCE_FILE (2u << 20)
#define REPORT_HTML_MAX_SOURCES (8u << 20)
#define REPORT_HTML_MAX_SOURCE_FILES 1000

/* The calls (record --calls) the page keeps for its call selection: the
 * slowest, when the profile has more (the page says how many it left out). */
#define REPORT_HTML_MAX_CALLS 100000u

/*
 * A plug-in's part of the page: sections of text or of a table, which the
 * page renders generically (text as text, never as markup). Plug-ins are a
 * later issue; this is their extension point, in the data's "plugins" array.
 */
struct report_html_section {
	const char *title;
	const char *text; /* a paragraph (may be NULL) */
	/* a table (nr_columns 0: none): rows of nr_columns cells, row-major */
	size_t nr_columns, nr_rows;
	const char *const *columns;
	const char *const *cells;
};

struct report_html_plugin {
	const char *name;
	size_t nr_sections;
	const struct report_html_section *sections;
};

struct report_html_opts {
	/* Where the source view looks for the files of "file.c:LINE" labels,
	 * before the label's own path (docs/output-formats.md). */
	const char *const *source_dirs;
	size_t nr_source_dirs;
	const struct report_html_plugin *plugins;
	size_t nr_plugins;
	/* A selector of calls (report --calls's grammar) the profile page opens
	 * with when its address names none (report --calls SEL --format html);
	 * NULL: none. */
	const char *call_selection;
};

/*
 * The HTML report of p: opts (may be NULL) as the other renderers take them
 * (--feature, --comm, --pid; --order is the table's first order; min_pct and
 * by do not apply: the page has every row and its own views), h (may be
 * NULL) for the source view and plug-ins. Returns 0, -ENOENT (--feature
 * names no feature: nothing written), -EINVAL, -ENOMEM or -errno of the
 * write.
 */
int report__html(FILE *out, const struct profile *p, const struct report_opts *opts,
		 const struct report_html_opts *h);

/* The HTML page of a diff: its document (diff__json) and the sources of its
 * instances. Returns 0, -EINVAL, -ENOMEM or -errno of the write. */
int diff__html(FILE *out, const struct diff *d, const struct report_html_opts *h);

/*
 * Internal, for the renderers and their tests: the data of the page alone
 * (the JSON document the page embeds, unescaped) for p or d.
 */
int report_html__data(FILE *out, const struct profile *p, const struct report_opts *opts,
		      const struct report_html_opts *h);
int diff_html__data(FILE *out, const struct diff *d, const struct report_html_opts *h);

/* The page template (html_assets.c): its bytes and length. */
const char *report_html__page(size_t *len);

#endif /* FSP_ANALYSIS_REPORT_HTML_H */
