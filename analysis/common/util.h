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

/* FNV-1a (64-bit): the hash to start from, and one step of it (v: a byte,
 * or a whole word where a caller hashes words). The BPF side's label hash
 * (bpf/labels.bpf.h) is the same function; userspace computes it for labels
 * the BPF side could not read. */
#define FSP_FNV_OFFSET 0xcbf29ce484222325ULL

static inline uint64_t fsp_fnv1a_step(uint64_t h, uint64_t v)
{
	return (h ^ v) * 0x100000001b3ULL;
}

/* FNV-1a over len bytes of data, continuing from h (FSP_FNV_OFFSET to start). */
static inline uint64_t fsp_fnv1a(const void *data, size_t len, uint64_t h)
{
	const unsigned char *p = data;

	for (size_t i = 0; i < len; i++)
		h = fsp_fnv1a_step(h, p[i]);
	return h;
}

/* FNV-1a over the bytes of s, then mixed. */
static inline uint64_t fsp_hash_str(const char *s)
{
	uint64_t h = FSP_FNV_OFFSET;

	for (; *s; s++)
		h = fsp_fnv1a_step(h, (unsigned char)*s);
	return fsp_hash_u64(h);
}

/* The sampling period of frequency_hz samples per second: 1e9 / frequency_hz
 * nanoseconds, rounded (0 for 0 Hz). The session samples with it; a profile
 * without its period_ns gets it from its frequency. */
static inline uint64_t fsp_period_ns(uint64_t frequency_hz)
{
	return frequency_hz ? (1000000000ULL + frequency_hz / 2) / frequency_hz : 0;
}

/* a + b, or UINT64_MAX when that overflows (counts and times saturate). */
static inline uint64_t fsp_sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static inline int fsp_cmp_u64(uint64_t a, uint64_t b)
{
	return (a > b) - (a < b);
}

/*
 * Makes room for `need` elements of `size` bytes in the array *arr of
 * capacity *cap (doubling, from `first` elements). Returns 0 or -ENOMEM
 * (the array is unchanged).
 */
static inline int fsp_grow_from(void **arr, size_t *cap, size_t need, size_t size, size_t first)
{
	size_t n = *cap ? *cap : first;
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

/* fsp_grow_from with room for 16 elements at first. */
static inline int fsp_grow(void **arr, size_t *cap, size_t need, size_t size)
{
	return fsp_grow_from(arr, cap, need, size, 16);
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
