/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The escaping of text fsp-bpf did not write itself (feature and instance
 * labels, comms, command lines, hosts, paths, map file text) in every
 * human-readable output: the text report, the live view, the diff table,
 * fsp-bpf list and the messages on stderr. Any local process chooses its
 * labels and comm, so none of their bytes may reach a terminal raw: no
 * escape sequence (a title, a cleared screen, colours), no line break, no
 * reordering of the line, no invalid UTF-8.
 *
 * The rule, applied to the text byte by byte:
 *
 *  - a byte 0x00-0x1f (C0 controls: tab and newline included) or 0x7f (DEL),
 *    and each byte that starts no valid UTF-8 sequence (a stray continuation
 *    byte, a truncated sequence, an overlong form, a surrogate, a code
 *    point above U+10FFFF: utf8__seq) becomes \xHH;
 *  - a valid UTF-8 character of the set below becomes \uHHHH (\UHHHHHHHH
 *    above U+FFFF), its code point in hex;
 *  - a backslash becomes \\ (so that the escaped text reads back exactly);
 *  - everything else, printable ASCII and valid UTF-8, is kept as is.
 *
 * Hex digits are lowercase. The set of escaped characters:
 *
 *  - U+0080-U+009F, the C1 controls (CSI, OSC, NEL...);
 *  - the bidirectional controls (Unicode's Bidi_Control): U+061C,
 *    U+200E, U+200F, U+202A-U+202E, U+2066-U+2069, which reorder the rest
 *    of the line ("Trojan Source");
 *  - U+2028 and U+2029, the line and paragraph separators;
 *  - invisible characters that have no part in shaping any script, which
 *    would make two different labels look equal: U+200B (zero width
 *    space), U+2060-U+2064 (word joiner, invisible operators), U+2065
 *    (reserved among them), U+206A-U+206F (deprecated format characters),
 *    U+FEFF (zero width no-break space, the BOM), U+FFF9-U+FFFB
 *    (interlinear annotation);
 *  - the noncharacters U+FDD0-U+FDEF and U+xxFFFE, U+xxFFFF of every plane.
 *
 * Kept: U+200C and U+200D (zero width non-joiner and joiner: Persian, Indic
 * scripts and emoji sequences need them), variation selectors, combining
 * marks, tag characters (emoji flags), U+00AD (terminals show the soft
 * hyphen), private use characters. Valid UTF-8 is kept whatever the locale:
 * reports are UTF-8.
 */
#ifndef FSP_ANALYSIS_ESCAPE_H
#define FSP_ANALYSIS_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* What the rule does with the start of a text. */
enum escape_kind {
	ESCAPE_KEEP, /* a character written as is (a backslash: \\) */
	ESCAPE_BYTE, /* one byte written \xHH */
	ESCAPE_CHAR, /* a valid UTF-8 character written \uHHHH or \UHHHHHHHH */
};

/* The unit at s[0..n), n >= 1: what the rule does with it, its length in
 * bytes (*len: 1 for ESCAPE_BYTE) and its code point (*cp; for
 * ESCAPE_BYTE the byte). */
enum escape_kind escape__unit(const char *s, size_t n, size_t *len, uint32_t *cp);

/* The columns the escaped s takes: one per character (escapes are ASCII,
 * a kept UTF-8 character counts one). What aligns escaped text. */
size_t escape__width(const char *s);

/* The escaped s (NULL: "") into buf (size bytes, NUL-terminated when size
 * > 0; cut before an escape that does not fit whole, and never inside a
 * UTF-8 character). Returns the length of the whole escaped text: the
 * output was cut when it is >= size (size 0 measures it). */
size_t escape__str(char *buf, size_t size, const char *s);

/* The escaped s[0..n) to out. */
void escape__fwrite(const char *s, size_t n, FILE *out);

/* The escaped s to out (NULL: nothing). */
void escape__fputs(const char *s, FILE *out);

/* The escaped s to out, then spaces up to width columns (escape__width):
 * the left-aligned cell of a table. */
void escape__fpad(const char *s, size_t width, FILE *out);

#endif /* FSP_ANALYSIS_ESCAPE_H */
