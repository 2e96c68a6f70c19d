// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* fsp-bpf report: renders a saved profile. Needs no privileges and no BPF. */
#include <errno.h>

#include "commands.h"
#include "profile_file.h"
#include "render.h"

int command__report(const struct fsp_options *o)
{
	struct profile *p = profile_file__load(o->inputs[0]);
	int err;

	if (!p)
		return -EINVAL;
	err = render__profile(p, &o->view, o->out_path);
	profile__free(p);
	return err;
}
