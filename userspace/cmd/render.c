// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "attrib.h"
#include "log.h"
#include "outfile.h"
#include "plugin.h"
#include "profile_io.h"
#include "render.h"
#include "report_html.h"

/* The plug-ins' run and the message of its first failure. */
struct render_plugins {
	struct plugin_run *run;
	int err;
	char msg[1024];
};

static int plugins_member(void *ctx, struct json_out *w)
{
	struct render_plugins *rp = ctx;

	rp->err = plugin_run__json(rp->run, w, rp->msg, sizeof(rp->msg));
	return rp->err;
}

/* The HTML page of p, with the plug-ins' text sections, if any, as a
 * section of the page (rendered as text there). */
static int render_html(FILE *out, const struct profile *p, const struct fsp_view *v,
		       struct render_plugins *rp)
{
	struct report_html_opts h = {
		.source_dirs = v->source_dirs,
		.nr_source_dirs = v->nr_source_dirs,
	};
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

/* Renders v's format; a failure of the plug-ins is left in rp (err, msg). */
static int render_to(FILE *out, const struct profile *p, const struct fsp_view *v,
		     struct render_plugins *rp)
{
	struct profile_json_ext ext = {plugins_member, rp};
	struct attrib *a;
	int err;

	switch (v->format) {
	case FSP_FMT_JSON:
		return profile__write_json_ext(out, p, rp->run ? &ext : NULL);
	case FSP_FMT_FOLDED:
		return report__folded(out, p, &v->ropts);
	case FSP_FMT_PPROF:
		return report__pprof(out, p, &v->ropts);
	case FSP_FMT_HTML:
		return render_html(out, p, v, rp);
	case FSP_FMT_DOT:
		return rp->err = plugin_run__dot(rp->run, out, rp->msg, sizeof(rp->msg));
	case FSP_FMT_TEXT:
		break;
	}
	a = attrib__compute(p, NULL);
	if (!a)
		return -ENOMEM;
	err = report__text(out, p, a, &v->ropts);
	attrib__free(a);
	/* the plug-ins' sections follow the report, which shows even if they fail */
	if (!err && rp->run)
		err = rp->err = plugin_run__text(rp->run, out, rp->msg, sizeof(rp->msg));
	return err;
}

int render__to_terminal_check(enum fsp_format format, const char *path)
{
	if ((path && strcmp(path, "-")) || !isatty(STDOUT_FILENO))
		return 0;
	if (format == FSP_FMT_PPROF) {
		log__err("pprof output is binary (gzipped protobuf): redirect it to a file or "
			 "use -o FILE");
		return -EINVAL;
	}
	if (format == FSP_FMT_HTML) {
		log__err("html output is a page for a browser: write it to a file with -o FILE "
			 "(or redirect it)");
		return -EINVAL;
	}
	return 0;
}

/* The plug-ins' analyses, before anything is written: text goes on without
 * them (its report is still worth showing), other formats stop. */
static int run_plugins(const struct profile *p, const struct fsp_view *v, struct render_plugins *rp)
{
	if (!v->pset)
		return 0;
	rp->run = plugin_run__new(v->pset, p, &v->ropts, &rp->err, rp->msg, sizeof(rp->msg));
	return v->format == FSP_FMT_TEXT ? 0 : rp->err;
}

int render__profile(const struct profile *p, const struct fsp_view *v, const char *path)
{
	struct render_plugins rp = {0};
	struct outfile *f;
	int err;

	err = render__to_terminal_check(v->format, path);
	if (err)
		return err;
	err = run_plugins(p, v, &rp);
	if (err) {
		log__err("%s", rp.msg);
		return err;
	}
	f = outfile__open(path, &err);
	if (!f) {
		log__err("cannot write %s: %s", path, strerror(-err));
		plugin_run__free(rp.run);
		return err;
	}
	err = render_to(outfile__stream(f), p, v, &rp);
	if (err == -ENOENT && v->ropts.feature && !rp.err) {
		fflush(outfile__stream(f));
		log__err("no feature '%s' in this profile (the text report lists them all)",
			 v->ropts.feature);
	} else if (rp.err) {
		fflush(outfile__stream(f));
		log__err("%s", rp.msg);
		err = err ? err : rp.err;
		if (v->format == FSP_FMT_TEXT) /* the report itself is whole */
			outfile__commit(f);
	} else if (err) {
		log__err("cannot render the profile to %s: %s", outfile__name(f), strerror(-err));
	} else {
		err = outfile__commit(f);
		if (err)
			log__err("cannot write %s: %s", outfile__name(f), strerror(-err));
	}
	outfile__free(f);
	plugin_run__free(rp.run);
	return err;
}
