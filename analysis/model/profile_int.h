/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Internal accessors of the profile model for its other implementation files
 * (native.c): the profile's string table, its current source, a mark stack
 * lookup by source and the native tables the profile owns. Not for callers
 * outside analysis/model.
 */
#ifndef FSP_ANALYSIS_PROFILE_INT_H
#define FSP_ANALYSIS_PROFILE_INT_H

#include <stddef.h>
#include <stdint.h>

struct profile;
struct strtab;
struct profile_native;

struct strtab *profile__strtab(struct profile *p);
uint32_t profile__cur_source(const struct profile *p);
/* The id of mark stack key of (source, pid), or PROFILE_NO_STACK. */
size_t profile__stack_of(const struct profile *p, uint32_t source, uint32_t pid, uint64_t key);

/* The native tables (NULL until the first native record); the profile owns
 * them and frees them with profile_native__free in profile__free. */
struct profile_native *profile__native(const struct profile *p);
void profile__set_native(struct profile *p, struct profile_native *n);
void profile_native__free(struct profile_native *n); /* NULL-safe; native.c */

#endif /* FSP_ANALYSIS_PROFILE_INT_H */
