// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The output formats: the table and each format's renderers (formats.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attrib.h"
#include "diff.h"
#include "formats.h"
#include "options.h"
#include "plugin.h"
#include "profile_io.h"
#include "report_html.h"

/* ---- the renderers ---- */

static int text_render(FILE *out, const struct profile *p, const struct fsp_view *v,
		       struct render_plugins *rp)
{
	struct attrib *a = attrib__compute(p, NULL);
	int err;

	if (!a)
		return -ENOMEM;
	err = report__text(out, p, a, &v->ropts);
	attrib__free(a);
	/* the plug-ins' sections follow the report, which shows even if they fail */
	if (!err && rp->run)
		err = rp->err = plugin_run__text(rp->run, out, rp->msg, sizeof(rp->msg));
	return err;
}

static int plugins_member(void *ctx, struct json_out *w)
{
	struct render_plugins *rp = ctx;

	rp->err = plugin_run__json(rp->run, w, rp->msg, sizeof(rp->msg));
	return rp->err;
}

static int json_render(FILE *out, const struct profile *p, const struct fsp_view *v,
		       struct render_plugins *rp)
{
	struct profile_json_ext ext = {plugins_member, rp};

	(void)v;
	return profile__write_json_ext(out, p, rp->run ? &ext : NULL);
}

static int folded_render(FILE *out, const struct profile *p, const struct fsp_view *v,
			 struct render_plugins *rp)
{
	(void)rp;
	return report__folded(out, p, &v->ropts);
}

static int pprof_render(FILE *out, const struct profile *p, const struct fsp_view *v,
			struct render_plugins *rp)
{
	(void)rp;
	return report__pprof(out, p, &v->ropts);
}

static struct report_html_opts html_opts(const struct fsp_view *v)
{
	return (struct report_html_opts){
		.source_dirs = v->source_dirs,
		.nr_source_dirs = v->nr_source_dirs,
		.call_selection = v->call_selection,
	};
}

/* The HTML page of p, with the plug-ins' text sections, if any, as a
 * section of the page (rendered as text there). */
static int html_render(FILE *out, const struct profile *p, const struct fsp_view *v,
		       struct render_plugins *rp)
{
	struct report_html_opts h = html_opts(v);
	struct report_html_section sec = {.title = "Plug-in sections"};
	struct report_html_plugin pl = {.name = "plug-ins", .nr_sections = 1, .sections = &sec};
	char *text = NULL;
	size_t len = 0;
	FILE *mem;
	int err;

	if (rp->run) {
		mem = open_memstream(&text, &len);
		if (!mem)
			return -ENOMEM;
		rp->err = plugin_run__text(rp->run, mem, rp->msg, sizeof(rp->msg));
		if (fclose(mem) && !rp->err)
			rp->err = -ENOMEM;
		if (rp->err) {
			free(text);
			return rp->err;
		}
		sec.text = text;
		h.plugins = &pl;
		h.nr_plugins = 1;
	}
	err = report__html(out, p, &v->ropts, &h);
	free(text);
	return err;
}

static int dot_render(FILE *out, const struct profile *p, const struct fsp_view *v,
		      struct render_plugins *rp)
{
	(void)p;
	(void)v;
	return rp->err = plugin_run__dot(rp->run, out, rp->msg, sizeof(rp->msg));
}

static int text_diff(FILE *out, const struct diff *d, const struct fsp_view *v)
{
	struct diff_report_opts ro = {.min_pct = v->ropts.min_pct};

	return diff__text(out, d, &ro);
}

static int json_diff(FILE *out, const struct diff *d, const struct fsp_view *v)
{
	(void)v;
	return diff__json(out, d);
}

static int html_diff(FILE *out, const struct diff *d, const struct fsp_view *v)
{
	struct report_html_opts h = html_opts(v);

	return diff__html(out, d, &h);
}

/* ---- the table ---- */

#define PROFILE_VIEWS (FORMAT_RECORD | FORMAT_REPORT | FORMAT_INTERVAL)

const struct fsp_format fsp_formats[] = {
	{
		.name = "text",
		.title = "the text report",
		.takers = PROFILE_VIEWS | FORMAT_DIFF,
		.doc = "text (default)",
		.diff_doc = "text (default)",
		.plugins = FORMAT_PLUGINS_OWN,
		.whole_without_plugins = true,
		.function = true,
		.render = text_render,
		.render_diff = text_diff,
	},
	{
		.name = "json",
		.title = "the profile",
		.takers = PROFILE_VIEWS | FORMAT_DIFF,
		.doc = "json (the profile file)",
		.diff_doc = "json",
		.plugins = FORMAT_PLUGINS_OWN,
		.render = json_render,
		.render_diff = json_diff,
	},
	{
		.name = "folded",
		.title = "the folded stacks",
		.takers = PROFILE_VIEWS,
		.doc = "folded (flame graph stacks)",
		.plugins = FORMAT_PLUGINS_REFUSED,
		.record_out = FORMAT_OUT_RENDERING,
		.render = folded_render,
	},
	{
		.name = "pprof",
		.title = "the pprof profile",
		.takers = PROFILE_VIEWS,
		.doc = "pprof (gzipped profile.proto; binary: redirect it or use -o)",
		.not_terminal = "binary (gzipped protobuf): redirect it to a file or use -o FILE",
		.plugins = FORMAT_PLUGINS_REFUSED,
		.record_out = FORMAT_OUT_RENDERING,
		.render = pprof_render,
	},
	{
		.name = "html",
		.title = "the HTML report",
		.takers = FORMAT_RECORD | FORMAT_REPORT | FORMAT_DIFF,
		.doc = "html (one self-contained page: tables, source, flame graph; use -o)",
		.diff_doc = "html (a page: use -o)",
		.not_terminal = "a page for a browser: write it to a file with -o FILE (or "
				"redirect it)",
		.record_out = FORMAT_OUT_RENDERING,
		.plugins = FORMAT_PLUGINS_PAGE,
		.render = html_render,
		.render_diff = html_diff,
	},
	{
		.name = "dot",
		.title = "the graph",
		.takers = PROFILE_VIEWS,
		.doc = "dot (a plug-in's graph, for Graphviz)",
		.record_out = FORMAT_OUT_RENDERING,
		.plugins = FORMAT_PLUGINS_GRAPH,
		.render = dot_render,
	},
};

const size_t fsp_nr_formats = sizeof(fsp_formats) / sizeof(fsp_formats[0]);

const struct fsp_format *format__find(const char *name)
{
	for (size_t i = 0; i < fsp_nr_formats; i++)
		if (!strcmp(name, fsp_formats[i].name))
			return &fsp_formats[i];
	return NULL;
}

bool format__takes(const struct fsp_format *f, unsigned int takers)
{
	return f->takers & takers;
}

bool format__plugins_in(const struct fsp_format *f, unsigned int mask)
{
	return (1u << f->plugins) & mask;
}

bool format__has_function(const struct fsp_format *f, unsigned int unused)
{
	(void)unused;
	return f->function;
}

bool format__record_renders(const struct fsp_format *f, unsigned int unused)
{
	(void)unused;
	return f->record_out == FORMAT_OUT_RENDERING && format__takes(f, FORMAT_RECORD);
}

void format__list(char *buf, size_t size, format_pick pick, unsigned int arg, enum format_text text,
		  const char *last)
{
	const char *texts[sizeof(fsp_formats) / sizeof(fsp_formats[0])];
	size_t n = 0, len = 0;

	for (size_t i = 0; i < fsp_nr_formats; i++) {
		const struct fsp_format *f = &fsp_formats[i];

		if (pick(f, arg))
			texts[n++] = text == FORMAT_DOC	       ? f->doc
				     : text == FORMAT_DIFF_DOC ? f->diff_doc
							       : f->name;
	}
	buf[0] = 0;
	for (size_t i = 0; i < n && len < size; i++) {
		const char *sep = i + 1 < n ? ", " : last;

		len += snprintf(buf + len, size - len, "%s%s", i ? sep : "", texts[i]);
	}
}
