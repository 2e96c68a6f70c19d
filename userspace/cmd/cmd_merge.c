// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* fsp-bpf merge: sums saved profiles into one; its options. Needs no
 * privileges and no BPF. */
#include <errno.h>

#include "commands.h"
#include "log.h"
#include "merge.h"
#include "profile_file.h"
#include "profile_io.h"

static int merge_run(const struct fsp_options *o, const char *cmdline)
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

/* ---- the command line ---- */

static const char merge_doc[] =
	"Sums profiles of the same program (several runs, several hosts) into one, "
	"keeping each source's metadata and diagnostics. The profiles must have been "
	"sampled at the same frequency.\n\n"
	"USAGE: fsp-bpf merge -o OUT FILE FILE..."
	"\v"
	"EXAMPLES:\n"
	"  fsp-bpf merge -o all.json host1.json host2.json host3.json\n"
	"  fsp-bpf report --by process all.json";

static const struct argp_option merge_options[] = {
	{"output", 'o', "FILE", 0, "The merged profile (required; - for stdout)", 0},
	OPTIONS_FILE_MODE,
	{},
};

static error_t parse_merge(int key, char *arg, struct argp_state *state)
{
	struct fsp_options *o = state->input;

	switch (key) {
	case 'o':
		return options__output(state, o, "-o", arg);
	case OPT_FILE_MODE:
		return options__file_mode(state, o, arg);
	case ARGP_KEY_ARG:
		return options__input(state, o, arg);
	case ARGP_KEY_END:
		if (!o->out_path)
			return options__error(state, "merge needs -o OUT, the file to write");
		if (o->nr_inputs < 1)
			return options__error(state, "merge needs the profile files to merge");
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

static const struct argp merge_argp = {
	merge_options, parse_merge, "FILE FILE...", merge_doc, NULL, NULL, NULL,
};

const struct fsp_command cmd_merge = {"merge", &merge_argp, merge_run, 0};
