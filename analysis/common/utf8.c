// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* UTF-8 validation and repair (utf8.h). */
#include <stdint.h>
#include <string.h>

#include "utf8.h"

size_t utf8__seq(const unsigned char *s, size_t n)
{
	unsigned int c = s[0];
	size_t len, i;
	uint32_t cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		cp = c & 0x07;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

size_t utf8__valid_len(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i, len;

	for (i = 0; i < n; i += len) {
		len = utf8__seq(u + i, n - i);
		if (!len)
			break;
	}
	return i;
}

size_t utf8__repair(char *dst, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	char *d = dst;
	size_t i, len;

	for (i = 0; i < n; i += len) {
		len = utf8__seq(u + i, n - i);
		if (len) {
			memcpy(d, u + i, len);
			d += len;
		} else {
			memcpy(d, "\xef\xbf\xbd", 3);
			d += 3;
			len = 1;
		}
	}
	*d = 0;
	return (size_t)(d - dst);
}
