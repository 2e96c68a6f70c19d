/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The output formats (--format NAME): one table (formats.c), a row per
 * format saying which subcommands take it, where its output may go, what it
 * needs or refuses, and its renderers. The parsers (options.c), the checks
 * of the command line (options.c, cmd_record.c), render.c, record's -o and
 * diff read the table: a new format is one row and its renderer.
 *
 * merge takes no --format: it writes the profile file, json's format.
 */
#ifndef FSP_FORMATS_H
#define FSP_FORMATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct diff;
struct fsp_view;
struct plugin_run;
struct profile;

/* Who takes a format: the subcommands with --format, and record --interval
 * (a report re-rendered while profiling). */
enum format_takers {
	FORMAT_RECORD = 1 << 0,
	FORMAT_REPORT = 1 << 1,
	FORMAT_DIFF = 1 << 2,
	FORMAT_INTERVAL = 1 << 3,
};

/* What record -o FILE receives with a format (--json FILE is the profile
 * file with every format). */
enum format_record_out {
	/* the profile file; the rendering goes to stdout (unless -o -): text,
	 * the default, for the terminal, and json, the profile itself */
	FORMAT_OUT_PROFILE,
	/* the rendering, as report -o FILE writes it (checked before
	 * profiling, -o - or none: stdout), and the text report goes to
	 * stdout when it went to a file; the profile file only with --json */
	FORMAT_OUT_RENDERING,
};

/* What a format does with --plugin. */
enum format_plugins {
	FORMAT_PLUGINS_REFUSED, /* a usage error */
	FORMAT_PLUGINS_OWN, /* the plug-ins' output in this format (text sections, a json member) */
	FORMAT_PLUGINS_PAGE, /* their text sections, as a section of the page */
	FORMAT_PLUGINS_GRAPH, /* the graph of one plug-in, which it needs */
};

/* The plug-ins' run of one rendering (run NULL: no --plugin) and the
 * message of their first failure. */
struct render_plugins {
	struct plugin_run *run;
	int err;
	char msg[1024];
};

struct fsp_format {
	const char *name; /* --format NAME */
	const char *title; /* what it writes, in messages ("the HTML report") */
	unsigned int takers; /* enum format_takers */
	/* in --help: record's and report's text, diff's */
	const char *doc, *diff_doc;
	/* NULL: it may go to a terminal; else why not, said as "NAME output is
	 * NOT_TERMINAL" when stdout is one */
	const char *not_terminal;
	enum format_record_out record_out;
	enum format_plugins plugins;
	/* a failure of the plug-ins leaves the rendering whole (shown, and
	 * written to -o FILE): it comes before their sections */
	bool whole_without_plugins;
	bool function; /* --function (a call graph in the report) applies */
	/* Renders p as v says; a failure of the plug-ins is left in rp. 0 or
	 * -errno (-ENOENT: --feature names no feature of p; -ESRCH: --function
	 * names no function of its native stacks). */
	int (*render)(FILE *out, const struct profile *p, const struct fsp_view *v,
		      struct render_plugins *rp);
	/* diff's rendering (FORMAT_DIFF). 0 or -errno. */
	int (*render_diff)(FILE *out, const struct diff *d, const struct fsp_view *v);
};

/* The rows, in the order --help and messages list them; the first, text,
 * is the default. */
extern const struct fsp_format fsp_formats[];
extern const size_t fsp_nr_formats;

/* The row of name, NULL if none. */
const struct fsp_format *format__find(const char *name);

/* The rows code and tests name. */
#define FSP_FMT_TEXT format__find("text")
#define FSP_FMT_JSON format__find("json")
#define FSP_FMT_FOLDED format__find("folded")
#define FSP_FMT_HTML format__find("html")

/* Which rows a list shows, and what of them. */
typedef bool (*format_pick)(const struct fsp_format *f, unsigned int arg);
enum format_text {
	FORMAT_NAME,
	FORMAT_DOC,
	FORMAT_DIFF_DOC,
};

/* The text of every row pick(f, arg) keeps, joined with ", " and last
 * before the last ("text, json or html"), into buf. */
void format__list(char *buf, size_t size, format_pick pick, unsigned int arg, enum format_text text,
		  const char *last);

/* format_pick functions: taken by any of takers (FORMAT_RECORD, ...); its
 * plugins among mask (1 << FORMAT_PLUGINS_..., or'ed); --function applies;
 * record's -o is its rendering. */
bool format__takes(const struct fsp_format *f, unsigned int takers);
bool format__plugins_in(const struct fsp_format *f, unsigned int mask);
bool format__has_function(const struct fsp_format *f, unsigned int unused);
/* record -o FILE gets the rendering (FORMAT_OUT_RENDERING) and record takes it. */
bool format__record_renders(const struct fsp_format *f, unsigned int unused);

#endif /* FSP_FORMATS_H */
