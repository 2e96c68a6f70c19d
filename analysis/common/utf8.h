/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * UTF-8 validation and repair, for the writers of JSON (whose strings are
 * UTF-8) and the checks of text files (probe maps). Overlong forms,
 * surrogates and code points above U+10FFFF are invalid.
 */
#ifndef FSP_ANALYSIS_UTF8_H
#define FSP_ANALYSIS_UTF8_H

#include <stddef.h>

/* Length (1 to 4) of the valid UTF-8 sequence at s[0..n), n >= 1; 0 when it
 * is invalid or cut short by the end at n. */
size_t utf8__seq(const unsigned char *s, size_t n);

/* Length of the longest valid UTF-8 prefix of s[0..n): n when all is valid. */
size_t utf8__valid_len(const char *s, size_t n);

/* The bytes at s[0..n) with each byte that starts no valid sequence replaced
 * by U+FFFD, into dst (room for UTF8_REPAIR_SIZE(n) bytes), NUL-terminated.
 * Returns the length written (without the NUL). */
size_t utf8__repair(char *dst, const char *s, size_t n);

/* Bytes utf8__repair may write for n input bytes: each becomes at most 3. */
#define UTF8_REPAIR_SIZE(n) (3 * (n) + 1)

#endif /* FSP_ANALYSIS_UTF8_H */
