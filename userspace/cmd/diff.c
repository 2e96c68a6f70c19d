// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* fsp-bpf diff: compares two saved profiles. Needs no privileges and no BPF. */
#include <errno.h>
#include <string.h>

#include "commands.h"
#include "diff.h"
#include "log.h"
#include "outfile.h"
#include "profile_file.h"

int command__diff(const struct fsp_options *o)
{
	struct diff_report_opts ro = {.min_pct = o->view.ropts.min_pct};
	struct diff_opts dopts = {.scale = o->scale};
	struct profile *base = NULL, *new_p = NULL;
	struct outfile *f = NULL;
	struct diff *d = NULL;
	int err = -EINVAL;

	base = profile_file__load(o->inputs[0]);
	if (base)
		new_p = profile_file__load(o->inputs[1]);
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
