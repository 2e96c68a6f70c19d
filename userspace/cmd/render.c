// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "attrib.h"
#include "log.h"
#include "outfile.h"
#include "profile_io.h"
#include "render.h"
#include "report_html.h"

static int render_to(FILE *out, const struct profile *p, const struct fsp_view *v)
{
	struct report_html_opts h = {
		.source_dirs = v->source_dirs,
		.nr_source_dirs = v->nr_source_dirs,
	};
	struct attrib *a;
	int err;

	switch (v->format) {
	case FSP_FMT_JSON:
		return profile__write_json(out, p);
	case FSP_FMT_FOLDED:
		return report__folded(out, p, &v->ropts);
	case FSP_FMT_PPROF:
		return report__pprof(out, p, &v->ropts);
	case FSP_FMT_HTML:
		return report__html(out, p, &v->ropts, &h);
	case FSP_FMT_TEXT:
		break;
	}
	a = attrib__compute(p, NULL);
	if (!a)
		return -ENOMEM;
	err = report__text(out, p, a, &v->ropts);
	attrib__free(a);
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

int render__profile(const struct profile *p, const struct fsp_view *v, const char *path)
{
	struct outfile *f;
	int err;

	err = render__to_terminal_check(v->format, path);
	if (err)
		return err;
	f = outfile__open(path, &err);
	if (!f) {
		log__err("cannot write %s: %s", path, strerror(-err));
		return err;
	}
	err = render_to(outfile__stream(f), p, v);
	if (err == -ENOENT && v->ropts.feature) {
		fflush(outfile__stream(f));
		log__err("no feature '%s' in this profile (the text report lists them all)",
			 v->ropts.feature);
	} else if (err) {
		log__err("cannot render the profile to %s: %s", outfile__name(f), strerror(-err));
	} else {
		err = outfile__commit(f);
		if (err)
			log__err("cannot write %s: %s", outfile__name(f), strerror(-err));
	}
	outfile__free(f);
	return err;
}
