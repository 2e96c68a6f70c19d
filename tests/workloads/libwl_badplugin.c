// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libwl_badplugin.so - a plug-in built for another ABI version of
 * fsp-plugin.h (the next one), which fsp-bpf must refuse with a message
 * (tests/integration/test_plugins.c).
 */
#include <stddef.h>

#include "fsp-plugin.h"

static int analyze(const struct fsp_plugin_host *h, const struct fsp_plugin_profile *p,
		   const struct fsp_plugin_args *args, void **state)
{
	(void)h, (void)p, (void)args;
	*state = NULL;
	return 0;
}

static int render_text(const struct fsp_plugin_host *h, const struct fsp_plugin_profile *p,
		       void *state, FILE *out)
{
	(void)h, (void)p, (void)state;
	fputs("  should never be shown\n", out);
	return 0;
}

static void release(void *state)
{
	(void)state;
}

static const struct fsp_plugin future = {
	.abi_version = FSP_PLUGIN_ABI_VERSION + 1,
	.size = sizeof(struct fsp_plugin),
	.name = "future",
	.summary = "built against a later fsp-plugin.h",
	.feature = "task",
	.analyze = analyze,
	.render_text = render_text,
	.release = release,
};

FSP_PLUGIN_DEFINE(future)
