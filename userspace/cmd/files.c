// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The subcommands that work on saved profiles: report, merge, diff. They
 * need no privileges and no BPF. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "diff.h"
#include "log.h"
#include "merge.h"
#include "outfile.h"
#include "profile_io.h"
#include "render.h"

static struct profile *load(const char *path)
{
	char msg[512];
	struct profile *p = profile__load(path, msg, sizeof(msg));

	if (!p)
		log__err("%s", msg);
	return p;
}

int command__report(const struct fsp_options *o)
{
	struct profile *p = load(o->inputs[0]);
	int err;

	if (!p)
		return -EINVAL;
	err = render__profile(p, &o->view, o->out_path);
	profile__free(p);
	return err;
}

int command__merge(const struct fsp_options *o, const char *cmdline)
{
	struct profile *dst = profile__new(), *src = NULL;
	char msg[512];
	int err = 0;

	if (!dst)
		return -ENOMEM;
	/* One input at a time: memory is the merge plus the largest input. */
	for (int i = 0; i < o->nr_inputs; i++) {
		src = load(o->inputs[i]);
		if (!src) {
			err = -EINVAL;
			goto cleanup;
		}
		err = profile__merge(dst, src, msg, sizeof(msg));
		if (err) {
			log__err("cannot merge %s: %s", o->inputs[i], msg);
			goto cleanup;
		}
		profile__free(src);
		src = NULL;
	}
	err = profile__merge_finish(dst, cmdline, msg, sizeof(msg));
	if (err) {
		log__err("cannot merge: %s", msg);
		goto cleanup;
	}
	err = profile__save(o->out_path, dst, msg, sizeof(msg));
	if (err)
		log__err("%s", msg);
cleanup:
	profile__free(src);
	profile__free(dst);
	return err;
}

int command__diff(const struct fsp_options *o)
{
	struct diff_report_opts ro = {.min_pct = o->view.ropts.min_pct};
	struct diff_opts dopts = {.scale = o->scale};
	struct profile *base = NULL, *new_p = NULL;
	struct outfile *f = NULL;
	struct diff *d = NULL;
	int err = -EINVAL;

	base = load(o->inputs[0]);
	if (base)
		new_p = load(o->inputs[1]);
	if (!new_p)
		goto cleanup;
	d = diff__compute(base, new_p, &dopts);
	if (!d) {
		err = errno ? -errno : -ENOMEM;
		log__err("cannot compare the profiles: %s", strerror(-err));
		goto cleanup;
	}
	f = outfile__open(o->out_path, &err);
	if (!f) {
		log__err("cannot write %s: %s", o->out_path, strerror(-err));
		goto cleanup;
	}
	if (o->view.format == FSP_FMT_JSON)
		err = diff__json(outfile__stream(f), d);
	else
		err = diff__text(outfile__stream(f), d, &ro);
	if (!err)
		err = outfile__commit(f);
	if (err)
		log__err("cannot write %s: %s", outfile__name(f), strerror(-err));
cleanup:
	outfile__free(f);
	diff__free(d);
	profile__free(new_p);
	profile__free(base);
	return err;
}
