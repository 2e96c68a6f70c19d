// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * fixture_profiles DIR: saves the renderer tests' profiles
 * (render_fixture.h) as profile files in DIR, for
 * scripts/render-equivalence.sh, which renders them with two fsp-bpf
 * binaries. Not a test (make unit does not run it).
 */
#include <stdio.h>

#include "profile_io.h"
#include "render_fixture.h"

/* Saves p as DIR/NAME.json and frees it; 0 or 1. */
static int save(const char *dir, const char *name, struct profile *p)
{
	char path[4096], err[512] = "";
	int ret;

	snprintf(path, sizeof(path), "%s/%s.json", dir, name);
	ret = profile__save(path, p, err, sizeof(err));
	if (ret)
		fprintf(stderr, "fixture_profiles: %s: %s\n", path, err);
	profile__free(p);
	return ret ? 1 : 0;
}

int main(int argc, char **argv)
{
	int failed = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: fixture_profiles DIR\n");
		return 2;
	}
	failed |= save(argv[1], "demo", demo_profile());
	failed |= save(argv[1], "events", rich_profile(true, false));
	failed |= save(argv[1], "offcpu", rich_profile(false, true));
	failed |= save(argv[1], "events-offcpu", rich_profile(true, true));
	failed |= save(argv[1], "orders", order_profile());
	failed |= save(argv[1], "merged-sources", merged_profile());
	failed |= save(argv[1], "containers", container_profile());
	failed |= save(argv[1], "frame-kinds", kinds_profile());
	return failed;
}
