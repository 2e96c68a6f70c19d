// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The profile file's reader, the fast path of the native rows (profile_read.h):
 * "native_stacks" and "native_samples" rows, most of a profile with native
 * stacks, read straight from the input buffer when they have exactly the form
 * the writer gives them (no blanks, integers without sign or leading zeros,
 * lower-case keys) and every check passes. Anything else -- another form, a
 * row cut by the end of a chunk, a value out of range, a duplicate -- is left
 * untouched for the json-c path (profile_read_native.c), which reads it
 * whole and names the problem: the fast path only ever accepts what that path
 * accepts, to the same profile, and never fails. The fuzzer (make fuzz)
 * compares the two: it reads every input whole (this path) and in small
 * chunks (mostly the other).
 */
#include <stdbool.h>
#include <string.h>

#include "native.h"
#include "profile_read.h"
#include "util.h"

/* A cursor over the row's bytes. */
struct fcur {
	const char *s, *e;
};

static bool f_ch(struct fcur *c, char ch)
{
	if (c->s >= c->e || *c->s != ch)
		return false;
	c->s++;
	return true;
}

static bool f_lit(struct fcur *c, const char *lit, size_t len)
{
	if ((size_t)(c->e - c->s) < len || memcmp(c->s, lit, len))
		return false;
	c->s += len;
	return true;
}

/* An integer of at most maxdig digits (<= 19: fits 64 bits), no leading zero. */
static bool f_u64(struct fcur *c, unsigned int maxdig, uint64_t *v)
{
	unsigned int nd = 0;

	*v = 0;
	while (c->s < c->e && *c->s >= '0' && *c->s <= '9') {
		if (++nd > maxdig || (nd == 2 && *v == 0))
			return false;
		*v = *v * 10 + (uint64_t)(*c->s++ - '0');
	}
	return nd > 0;
}

static bool f_u32(struct fcur *c, uint32_t *v)
{
	uint64_t x;

	if (!f_u64(c, 10, &x) || x > UINT32_MAX)
		return false;
	*v = (uint32_t)x;
	return true;
}

/* A key as the writer writes it: "0x" and 1 to 16 lower-case hex digits. */
static bool f_key(struct fcur *c, uint64_t *v)
{
	unsigned int nd = 0;

	*v = 0;
	if (!f_lit(c, "\"0x", 3))
		return false;
	for (; c->s < c->e && *c->s != '"'; c->s++, nd++) {
		char ch = *c->s;

		if (nd == 16 || !((ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f')))
			return false;
		*v = *v << 4 | (uint64_t)(ch <= '9' ? ch - '0' : ch - 'a' + 10);
	}
	return nd && f_ch(c, '"');
}

/* [method, [loc, ...], kernel, flags] with the last two optional. */
static bool f_native_stack(struct rd *rd, struct fcur *c, struct profile_native_stack *s)
{
	size_t nr_locs = profile__nr_locations(rd->p);
	uint64_t v, kernel = 0, flags = 0;

	if (!f_ch(c, '['))
		return false;
	if (f_lit(c, "\"dwarf\"", 7))
		s->method = PROFILE_UNWIND_DWARF;
	else if (f_lit(c, "\"fp\"", 4))
		s->method = PROFILE_UNWIND_FP;
	else if (f_lit(c, "null", 4))
		s->method = 0;
	else
		return false;
	if (!f_lit(c, ",[", 2))
		return false;
	for (s->depth = 0; !s->depth || f_ch(c, ','); s->depth++) {
		if (s->depth == PROFILE_IO_MAX_NATIVE_FRAMES || !f_u64(c, 10, &v) || v >= nr_locs)
			return false;
		rd->nlocs[s->depth] = (uint32_t)v;
	}
	if (!f_ch(c, ']'))
		return false;
	if (f_ch(c, ',') && (!f_u64(c, 19, &kernel) || (f_ch(c, ',') && !f_u64(c, 19, &flags))))
		return false;
	if (!f_ch(c, ']') || kernel > s->depth || (!s->method && kernel < s->depth))
		return false;
	s->locs = rd->nlocs;
	s->nr_kernel = (size_t)kernel;
	s->flags = (unsigned int)(flags & PROFILE_NATIVE_TRUNCATED);
	return true;
}

int rd__fast_native_stack(struct rd *rd, size_t i)
{
	struct profile_native_stack s = {};
	struct fcur c;
	size_t n;

	if (json_in__view(&rd->js, &c.s, &n))
		return -1;
	c.e = c.s + n;
	if (fsp_grow((void **)&rd->nlocs, &rd->cap_nlocs, PROFILE_IO_MAX_NATIVE_FRAMES,
		     sizeof(*rd->nlocs)))
		return 0;
	if (!f_native_stack(rd, &c, &s) || profile__add_native_stack(rd->p, &s) != (int)i)
		return 0; /* a duplicate: the json-c path says so */
	json_in__consume(&rd->js, (size_t)(c.s - (c.e - n)));
	return 1;
}

/* [source, pid, tid, stack, native_stack, count]; the stack an id, null or a key. */
static bool f_native_sample(struct rd *rd, struct fcur *c, uint32_t *src, uint32_t *pid,
			    uint32_t *tid, uint64_t *key, uint64_t *nstack, uint64_t *count)
{
	struct profile_stack st;
	uint64_t id;

	if (!f_ch(c, '[') || !f_u32(c, src) || !f_ch(c, ',') || !f_u32(c, pid) || !f_ch(c, ',') ||
	    !f_u32(c, tid) || !f_ch(c, ','))
		return false;
	if (*src && *src >= profile__nr_sources(rd->p))
		return false;
	*key = 0;
	if (f_u64(c, 19, &id)) {
		if (id >= profile__nr_stacks(rd->p) || profile__stack(rd->p, id, &st) ||
		    st.source != *src || st.pid != *pid)
			return false;
		*key = st.key;
	} else if (!f_lit(c, "null", 4) && !f_key(c, key)) {
		return false;
	}
	return f_ch(c, ',') && f_u64(c, 10, nstack) && *nstack < profile__nr_native_stacks(rd->p) &&
	       f_ch(c, ',') && f_u64(c, 19, count) && f_ch(c, ']');
}

int rd__fast_native_sample(struct rd *rd, size_t i)
{
	uint64_t key, nstack, count;
	uint32_t src, pid, tid;
	struct fcur c;
	size_t n;

	(void)i;
	if (json_in__view(&rd->js, &c.s, &n))
		return -1;
	c.e = c.s + n;
	if (!f_native_sample(rd, &c, &src, &pid, &tid, &key, &nstack, &count) ||
	    profile__use_source(rd->p, src) ||
	    profile__add_native_samples(rd->p, pid, tid, key, (size_t)nstack, count))
		return 0;
	json_in__consume(&rd->js, (size_t)(c.s - (c.e - n)));
	return 1;
}
