// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libwl_loopplugin.so - a plug-in whose analysis never ends (a bug in a
 * plug-in, or an input it takes forever over): fsp-bpf must still quit on
 * SIGTERM and on Ctrl-C, with the profile saved (tests/integration/
 * test_plugins.c).
 */
#include <stddef.h>
#include <stdio.h>

#include "fsp-plugin.h"

static int analyze(const struct fsp_plugin_host *h, const struct fsp_plugin_profile *p,
		   const struct fsp_plugin_args *args, void **state)
{
	volatile unsigned long spins = 0;

	(void)h, (void)p, (void)args;
	*state = NULL;
	for (;;)
		spins++;
	return 0;
}

static int render_text(const struct fsp_plugin_host *h, const struct fsp_plugin_profile *p,
		       void *state, FILE *out)
{
	(void)h, (void)p, (void)state, (void)out;
	return 0;
}

static void release(void *state)
{
	(void)state;
}

static const struct fsp_plugin looping = {
	.abi_version = FSP_PLUGIN_ABI_VERSION,
	.size = sizeof(struct fsp_plugin),
	.name = "looping",
	.summary = "an analysis that never returns",
	.analyze = analyze,
	.render_text = render_text,
	.release = release,
};

FSP_PLUGIN_DEFINE(looping)
