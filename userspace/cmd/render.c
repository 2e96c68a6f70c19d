// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A profile rendered by its format's renderer (formats.c), with the
 * plug-ins, to a file or stdout (render.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats.h"
#include "log.h"
#include "outfile.h"
#include "plugin.h"
#include "render.h"

int render__to_terminal_check(const struct fsp_format *format, const char *path)
{
	if ((path && strcmp(path, "-")) || !isatty(STDOUT_FILENO) || !format->not_terminal)
		return 0;
	log__err("%s output is %s", format->name, format->not_terminal);
	return -EINVAL;
}

/* The plug-ins' analyses, before anything is written: a format whose
 * rendering is whole without them (text) goes on, the others stop. */
static int run_plugins(const struct profile *p, const struct fsp_view *v, struct render_plugins *rp)
{
	if (!v->pset)
		return 0;
	rp->run = plugin_run__new(v->pset, p, &v->ropts, &rp->err, rp->msg, sizeof(rp->msg));
	return v->format->whole_without_plugins ? 0 : rp->err;
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
		log__err("cannot write %s: %s", path, outfile__strerror(err));
		plugin_run__free(rp.run);
		return err;
	}
	err = v->format->render(outfile__stream(f), p, v, &rp);
	if (err == -ESRCH && v->ropts.function && !rp.err) {
		fflush(outfile__stream(f));
		log__err("no function '%s' in the native stacks of the features shown (the report "
			 "without --function lists the hottest)",
			 v->ropts.function);
		outfile__commit(f); /* the report itself is whole */
	} else if (err == -ENOENT && v->ropts.feature && !rp.err) {
		fflush(outfile__stream(f));
		log__err("no feature '%s' in this profile (the text report lists them all)",
			 v->ropts.feature);
	} else if (rp.err) {
		fflush(outfile__stream(f));
		log__err("%s", rp.msg);
		err = err ? err : rp.err;
		if (v->format->whole_without_plugins) /* the report itself is whole */
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
