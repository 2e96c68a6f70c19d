/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Small internal helpers of the analysis library: hashing, growth, comparison. */
#ifndef FSP_ANALYSIS_UTIL_H
#define FSP_ANALYSIS_UTIL_H

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* The splitmix64 finalizer: a cheap, well-mixing 64-bit hash. */
static inline uint64_t fsp_hash_u64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

static inline uint64_t fsp_hash_pair(uint64_t a, uint64_t b)
{
	return fsp_hash_u64(a ^ fsp_hash_u64(b + 0x9e3779b97f4a7c15ULL));
}

/* FNV-1a over the bytes of s, then mixed. */
static inline uint64_t fsp_hash_str(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ULL;
	}
	return fsp_hash_u64(h);
}

static inline int fsp_cmp_u64(uint64_t a, uint64_t b)
{
	return (a > b) - (a < b);
}

/*
 * Makes room for `need` elements of `size` bytes in the array *arr of
 * capacity *cap (doubling). Returns 0 or -ENOMEM (the array is unchanged).
 */
static inline int fsp_grow(void **arr, size_t *cap, size_t need, size_t size)
{
	size_t n = *cap ? *cap : 16;
	void *tmp;

	if (need <= *cap)
		return 0;
	while (n < need) {
		if (n > SIZE_MAX / 2)
			return -ENOMEM;
		n *= 2;
	}
	if (n > SIZE_MAX / size)
		return -ENOMEM;
	tmp = realloc(*arr, n * size);
	if (!tmp)
		return -ENOMEM;
	*arr = tmp;
	*cap = n;
	return 0;
}

/* A message into the caller's buffer err (errlen bytes; either may be 0). */
static inline void fsp_set_err(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static inline void fsp_set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

#endif /* FSP_ANALYSIS_UTIL_H */
