/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * unwind_check.h - the unwinding self-check of the integration tests: a
 * session run with FSP_UNWIND_CHECK=1 and -v unwinds each record that the
 * cached CFI rules unwind (userspace/stacks/cfi_cache.c) with libdw too and
 * reports how many it compared and how many differed.
 */
#ifndef FSP_ITEST_UNWIND_CHECK_H
#define FSP_ITEST_UNWIND_CHECK_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "itest.h"

/* The session's stderr at err_path says that at least min records were
 * compared, none differed; prints the counts. Returns the records left to
 * libdw (a frame's rules not simple: a signal frame, a PLT entry). */
static inline uint64_t unwind_check_assert(const char *err_path, uint64_t min)
{
	uint64_t cached = 0, libdw = 0, checked = 0, diff = 1;
	char *err = itest_slurp(err_path), *s, *t;

	assert_non_null(err);
	s = strstr(err, "records by cached CFI rules");
	t = strstr(err, "unwind check: ");
	if (!s || !t)
		fail_msg("no unwind check in fsp-bpf's output (%zu bytes)", strlen(err));
	/* back over " N" to the count */
	if (s > err)
		s--;
	while (s > err && s[-1] >= '0' && s[-1] <= '9')
		s--;
	if (sscanf(s, "%" SCNu64 " records by cached CFI rules, %" SCNu64, &cached, &libdw) != 2 ||
	    sscanf(t, "unwind check: %" SCNu64 " records compared with libdw, %" SCNu64, &checked,
		   &diff) != 2)
		fail_msg("unreadable unwind check in fsp-bpf's output: %.200s | %.200s", s, t);
	printf("  unwind check: %" PRIu64 " records by cached rules (%" PRIu64 " compared, %" PRIu64
	       " differences), %" PRIu64 " left to libdw\n",
	       cached, checked, diff, libdw);
	if (diff || checked < min)
		fail_msg("unwind check: %" PRIu64 " differences in %" PRIu64
			 " records (want 0 in at least %" PRIu64 "); stderr: %s",
			 diff, checked, min, err_path);
	free(err);
	return libdw;
}

#endif /* FSP_ITEST_UNWIND_CHECK_H */
