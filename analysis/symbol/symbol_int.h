/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Internals shared by the files of analysis/symbol/ (not an API). */
#ifndef FSP_ANALYSIS_SYMBOL_INT_H
#define FSP_ANALYSIS_SYMBOL_INT_H

#include <libelf.h>
#include <stddef.h>

/* elf__build_id over an open file. 0, -ENOENT (no build-id), -ENOEXEC,
 * -ENOSPC (buf too small). */
int elf__build_id_of(Elf *elf, char *buf, size_t size);

#endif /* FSP_ANALYSIS_SYMBOL_INT_H */
