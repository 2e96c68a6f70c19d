/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Internal string interning: each distinct string is copied once and every
 * later intern of an equal string returns the same pointer, so that equal
 * labels compare equal as pointers. Strings live as long as the table.
 */
#ifndef FSP_ANALYSIS_STRTAB_H
#define FSP_ANALYSIS_STRTAB_H

#include <stddef.h>

struct strtab;

struct strtab *strtab__new(void);
void strtab__free(struct strtab *t); /* NULL-safe */

/* The canonical copy of s; NULL when s is NULL or on allocation failure. */
const char *strtab__intern(struct strtab *t, const char *s);

#endif /* FSP_ANALYSIS_STRTAB_H */
