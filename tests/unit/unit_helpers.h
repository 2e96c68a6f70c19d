/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Helpers shared by the analysis unit tests (each test_*.c is its own program). */
#ifndef FSP_UNIT_HELPERS_H
#define FSP_UNIT_HELPERS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "profile.h"

/* Frame constructors: MARK(feature, instance), MARKP(.., payload), ANTI(feature),
 * OTHER(feature, instance): a mark of another thread that charges this one's
 * samples (a probe map's "charge threads"). */
#define MARK(f, i) ((struct profile_frame){PROFILE_MARK, (f), (i), 0})
#define MARKP(f, i, pl) ((struct profile_frame){PROFILE_MARK, (f), (i), (pl)})
#define ANTI(f) ((struct profile_frame){PROFILE_ANTIMARK, (f), NULL, 0})
#define OTHER(f, i) ((struct profile_frame){PROFILE_CHARGED, (f), (i), 0})

/* Registers stack `key` of `pid` from a compound literal array of frames. */
#define ADD_STACK(p, pid, key, ...)                                                                \
	do {                                                                                       \
		const struct profile_frame fr_[] = {__VA_ARGS__};                                  \
		assert_int_equal(                                                                  \
			profile__add_stack((p), (pid), (key), fr_, sizeof(fr_) / sizeof(fr_[0])),  \
			0);                                                                        \
	} while (0)

#define ADD_SAMPLES(p, pid, tid, key, n)                                                           \
	assert_int_equal(profile__add_samples((p), (pid), (tid), (key), (n)), 0)

/* A heap copy of s, so that tests can use equal strings at distinct addresses. */
static inline char *test_strdup(const char *s)
{
	char *d = strdup(s);

	assert_non_null(d);
	return d;
}

#endif /* FSP_UNIT_HELPERS_H */
