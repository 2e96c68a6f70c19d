/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* `go tool pprof`, the real consumer of the pprof views, for the unit tests
 * that render pprof (test_native_pprof.c, test_native_once.c). */
#ifndef FSP_UNIT_PPROF_GO_H
#define FSP_UNIT_PPROF_GO_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "unit_helpers.h"

/* Whether `go` is in PATH; says loudly that the test skips when not. */
static inline bool go_pprof_installed(const char *what)
{
	if (!system("command -v go >/dev/null 2>&1"))
		return true;
	fprintf(stderr,
		"!!! SKIPPED: `go` is not in PATH, `go tool pprof` was not run on %s "
		"(Debian: apt-get install golang-go; scripts/install-deps.sh test)\n",
		what);
	return false;
}

/* `go tool pprof ARGS FILE` in dir (its HOME and caches: no network, no
 * writes elsewhere): its stdout; fails on a non-zero exit or any stderr. */
static inline char *go_pprof(const char *dir, const char *args, const char *file)
{
	char cmd[1024], *out = NULL, *err = NULL;
	size_t n = 0, m = 0;
	FILE *f, *e;
	int c, rc;

	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && HOME='%s' GOCACHE='%s/cache' GOPATH='%s/gopath' PPROF_TMPDIR='%s' "
		 "GOFLAGS= GOTOOLCHAIN=local go tool pprof %s '%s' 2>err.txt",
		 dir, dir, dir, dir, dir, args, file);
	f = popen(cmd, "r");
	assert_non_null(f);
	FILE *o = open_memstream(&out, &n);

	assert_non_null(o);
	while ((c = getc(f)) != EOF)
		fputc(c, o);
	rc = pclose(f);
	assert_int_equal(fclose(o), 0);
	snprintf(cmd, sizeof(cmd), "%s/err.txt", dir);
	e = fopen(cmd, "r");
	assert_non_null(e);
	o = open_memstream(&err, &m);
	assert_non_null(o);
	while ((c = getc(e)) != EOF)
		fputc(c, o);
	fclose(e);
	assert_int_equal(fclose(o), 0);
	if (rc || m)
		fail_msg("go tool pprof %s: exit %d, stderr:\n%s", args, rc, err);
	free(err);
	return out;
}

#endif /* FSP_UNIT_PPROF_GO_H */
