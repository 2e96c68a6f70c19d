// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* fsp-bpf merge: sums saved profiles into one. Needs no privileges and no BPF. */
#include <errno.h>

#include "commands.h"
#include "log.h"
#include "merge.h"
#include "profile_file.h"
#include "profile_io.h"

int command__merge(const struct fsp_options *o, const char *cmdline)
{
	struct profile *dst = profile__new(), *src = NULL;
	char msg[512];
	int err = 0;

	if (!dst)
		return -ENOMEM;
	/* One input at a time: memory is the merge plus the largest input. */
	for (int i = 0; i < o->nr_inputs; i++) {
		src = profile_file__load(o->inputs[i]);
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
