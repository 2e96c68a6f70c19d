/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Internal string interning: each distinct string is copied once and every
 * later intern of an equal string returns the same pointer, so that equal
 * labels compare equal as pointers. Strings live as long as the table.
 */
#ifndef FSP_ANALYSIS_STRTAB_H
#define FSP_ANALYSIS_STRTAB_H

#include <stdbool.h>
#include <stddef.h>

struct strtab;

struct strtab *strtab__new(void);
void strtab__free(struct strtab *t); /* NULL-safe */

/*
 * The canonical copy of s; NULL when s is NULL or on allocation failure.
 * Interning a canonical copy of this table again returns it without looking
 * at its bytes (a lookup by address): callers that hold canonical copies
 * (the profile reader, which maps its string table to them) pay no string
 * hashing.
 */
const char *strtab__intern(struct strtab *t, const char *s);

/* As strtab__intern, for the len bytes at s (which must not contain a NUL;
 * s need not be NUL-terminated). *added (may be NULL) is set to whether the
 * string was new to the table. */
const char *strtab__intern_len(struct strtab *t, const char *s, size_t len, bool *added);

#endif /* FSP_ANALYSIS_STRTAB_H */
