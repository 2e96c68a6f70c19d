// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The native-stack tables of a profile (native.h): modules, symbolized
 * locations, distinct native stacks and native samples. The profile owns them
 * (profile_int.h); strings are interned in the profile's string table, so
 * equal strings are equal pointers and dedup compares pointers.
 *
 * Validation is strict because the profile reader feeds file data straight
 * in: every index is checked against its table, every flag and enum value
 * against the known ones, and nothing is visible before an add succeeded.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "hashmap.h"
#include "native.h"
#include "profile.h"
#include "profile_int.h"
#include "strtab.h"
#include "util.h"

#define NO_NEXT SIZE_MAX

struct native_loc_rec {
	uint32_t module;
	uint64_t address;
	size_t first_line; /* index in profile_native.lines */
	size_t nr_lines;
	unsigned int flags;
};

struct native_stack_rec {
	size_t first; /* index in profile_native.frames */
	size_t depth;
	size_t first_mark; /* index in profile_native.marks */
	size_t nr_marks;
	size_t nr_kernel;
	int method;
	unsigned int flags;
	size_t next; /* next stack of equal hash, NO_NEXT */
};

struct native_sample_rec {
	uint32_t source;
	uint32_t pid;
	uint32_t tid;
	uint64_t key;
	size_t stack;
	uint64_t count;
	size_t next; /* next sample of equal hash, NO_NEXT */
};

struct profile_native {
	struct profile_module *modules; /* strings interned */
	size_t nr_modules, cap_modules;
	struct hashmap module_map; /* (path pointer, build-id pointer << 1 | kind) -> index */

	struct native_loc_rec *locs;
	size_t nr_locs, cap_locs;
	struct hashmap loc_map; /* (module, address) -> index */
	struct profile_line *lines; /* lines of all locations, back to back */
	size_t nr_lines, cap_lines;

	struct native_stack_rec *stacks;
	size_t nr_stacks, cap_stacks;
	struct hashmap stack_map; /* (hash of content, hash of shape) -> first of chain */
	uint32_t *frames; /* locations of all stacks, back to back */
	size_t nr_frames, cap_frames;
	uint16_t *marks; /* mark positions of all stacks, back to back */
	size_t nr_marks, cap_marks;

	struct native_sample_rec *samples;
	size_t nr_samples, cap_samples;
	struct hashmap sample_map; /* (hash of thread, hash of key and stack) -> first of chain */
};

void profile_native__free(struct profile_native *n)
{
	if (!n)
		return;
	free(n->modules);
	hashmap__fini(&n->module_map);
	free(n->locs);
	hashmap__fini(&n->loc_map);
	free(n->lines);
	free(n->marks);
	free(n->stacks);
	hashmap__fini(&n->stack_map);
	free(n->frames);
	free(n->samples);
	hashmap__fini(&n->sample_map);
	free(n);
}

/* The profile's native tables, created on first use. */
static struct profile_native *native_get(struct profile *p)
{
	if (!p->native)
		p->native = calloc(1, sizeof(*p->native));
	return p->native;
}

/* Whether ptr points into the array base of cap elements of size bytes
 * (a caller passing back what a getter returned: growing would move it). */
static bool aliases(const void *ptr, const void *base, size_t cap, size_t size)
{
	uintptr_t a = (uintptr_t)ptr, b = (uintptr_t)base;

	return base && a >= b && a < b + cap * size;
}

/* ---- modules ------------------------------------------------------------------ */

/* A GNU build-id as stored: non-empty lower-case hex of whole bytes. */
static bool valid_build_id(const char *s)
{
	size_t len = strlen(s);

	if (!len || len % 2)
		return false;
	for (; *s; s++)
		if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f')))
			return false;
	return true;
}

int profile__add_module(struct profile *p, const struct profile_module *m)
{
	struct profile_native *n;
	struct strtab *strs;
	const char *path, *bid = NULL;
	uint64_t b, idx;
	int err;

	if (!p || !m || !m->path ||
	    (m->kind != PROFILE_MODULE_USER && m->kind != PROFILE_MODULE_KERNEL))
		return -EINVAL;
	if (m->build_id && *m->build_id && !valid_build_id(m->build_id))
		return -EINVAL;
	n = native_get(p);
	if (!n)
		return -ENOMEM;
	strs = p->strs;
	path = strtab__intern(strs, m->path);
	if (m->build_id && *m->build_id)
		bid = strtab__intern(strs, m->build_id);
	if (!path || (m->build_id && *m->build_id && !bid))
		return -ENOMEM;
	b = (uint64_t)(uintptr_t)bid << 1 | (uint64_t)m->kind;
	if (hashmap__find(&n->module_map, (uintptr_t)path, b, &idx))
		return (int)idx;
	if (n->nr_modules >= INT32_MAX)
		return -E2BIG;
	err = fsp_grow((void **)&n->modules, &n->cap_modules, n->nr_modules + 1,
		       sizeof(*n->modules));
	if (err)
		return err;
	err = hashmap__find_or_insert(&n->module_map, (uintptr_t)path, b, n->nr_modules, NULL);
	if (err < 0)
		return err;
	n->modules[n->nr_modules].kind = m->kind;
	n->modules[n->nr_modules].path = path;
	n->modules[n->nr_modules].build_id = bid;
	return (int)n->nr_modules++;
}

size_t profile__nr_modules(const struct profile *p)
{
	const struct profile_native *n = p ? p->native : NULL;

	return n ? n->nr_modules : 0;
}

int profile__module(const struct profile *p, size_t i, struct profile_module *out)
{
	const struct profile_native *n = p ? p->native : NULL;

	if (!n || !out || i >= n->nr_modules)
		return -EINVAL;
	*out = n->modules[i];
	return 0;
}

/* ---- locations ---------------------------------------------------------------- */

#define LOC_FLAGS (PROFILE_LOC_DEBUGINFO | PROFILE_LOC_JIT)

static int check_lines(const struct profile_line *lines, size_t nr, unsigned int flags)
{
	if ((nr && !lines) || (flags & ~LOC_FLAGS))
		return -EINVAL;
	return 0;
}

/* Interns nr lines into dst (the spare room of the lines array). */
static int intern_lines(struct strtab *strs, struct profile_line *dst,
			const struct profile_line *src, size_t nr)
{
	for (size_t i = 0; i < nr; i++) {
		dst[i].function = strtab__intern(strs, src[i].function);
		dst[i].file = strtab__intern(strs, src[i].file);
		dst[i].line = src[i].line;
		if ((src[i].function && !dst[i].function) || (src[i].file && !dst[i].file))
			return -ENOMEM;
	}
	return 0;
}

/*
 * Copies nr lines (interned) to the end of the lines array and returns their
 * first index in *first. Lines the caller got from this profile are copied
 * aside first, since growing the array moves them.
 */
static int append_lines(struct profile *p, struct profile_native *n,
			const struct profile_line *lines, size_t nr, size_t *first)
{
	struct profile_line *tmp = NULL;
	int err;

	*first = n->nr_lines;
	if (!nr)
		return 0;
	if (nr > SIZE_MAX / sizeof(*lines) - n->nr_lines)
		return -ENOMEM;
	if (aliases(lines, n->lines, n->cap_lines, sizeof(*lines))) {
		tmp = malloc(nr * sizeof(*tmp));
		if (!tmp)
			return -ENOMEM;
		memcpy(tmp, lines, nr * sizeof(*tmp));
		lines = tmp;
	}
	err = fsp_grow((void **)&n->lines, &n->cap_lines, n->nr_lines + nr, sizeof(*n->lines));
	if (!err)
		err = intern_lines(p->strs, n->lines + n->nr_lines, lines, nr);
	if (!err)
		n->nr_lines += nr;
	free(tmp);
	return err;
}

/* Sets the lines of location rec: in place when they fit, else appended
 * (the old ones stay unused; re-symbolization is rare). */
static int replace_lines(struct profile *p, struct profile_native *n, struct native_loc_rec *rec,
			 const struct profile_line *lines, size_t nr, unsigned int flags)
{
	size_t first;
	size_t idx = (size_t)(rec - n->locs);
	int err;

	if (nr <= rec->nr_lines && !aliases(lines, n->lines, n->cap_lines, sizeof(*lines))) {
		/* intern into the end of the array first: nothing changes on error */
		err = append_lines(p, n, lines, nr, &first);
		if (err)
			return err;
		if (nr) /* no lines yet: n->lines may be NULL */
			memmove(n->lines + n->locs[idx].first_line, n->lines + first,
				nr * sizeof(*lines));
		n->nr_lines = first;
	} else {
		err = append_lines(p, n, lines, nr, &first);
		if (err)
			return err;
		n->locs[idx].first_line = first;
	}
	n->locs[idx].nr_lines = nr;
	n->locs[idx].flags = flags;
	return 0;
}

int profile__add_location(struct profile *p, const struct profile_location *loc)
{
	struct profile_native *n;
	struct native_loc_rec *rec;
	uint64_t idx;
	size_t first;
	int err;

	if (!p || !loc || check_lines(loc->lines, loc->nr_lines, loc->flags))
		return -EINVAL;
	n = native_get(p);
	if (!n)
		return -ENOMEM;
	if (loc->module != PROFILE_NO_MODULE && loc->module >= n->nr_modules)
		return -EINVAL;
	if (hashmap__find(&n->loc_map, loc->module, loc->address, &idx)) {
		if (loc->nr_lines) {
			err = replace_lines(p, n, &n->locs[idx], loc->lines, loc->nr_lines,
					    loc->flags);
			if (err)
				return err;
		}
		return (int)idx;
	}
	if (n->nr_locs >= INT32_MAX)
		return -E2BIG;
	err = fsp_grow((void **)&n->locs, &n->cap_locs, n->nr_locs + 1, sizeof(*n->locs));
	if (err)
		return err;
	err = append_lines(p, n, loc->lines, loc->nr_lines, &first);
	if (err)
		return err;
	err = hashmap__find_or_insert(&n->loc_map, loc->module, loc->address, n->nr_locs, NULL);
	if (err < 0) {
		n->nr_lines = first;
		return err;
	}
	rec = &n->locs[n->nr_locs];
	rec->module = loc->module;
	rec->address = loc->address;
	rec->first_line = first;
	rec->nr_lines = loc->nr_lines;
	rec->flags = loc->flags;
	return (int)n->nr_locs++;
}

size_t profile__nr_locations(const struct profile *p)
{
	const struct profile_native *n = p ? p->native : NULL;

	return n ? n->nr_locs : 0;
}

int profile__location(const struct profile *p, size_t i, struct profile_location *out)
{
	const struct profile_native *n = p ? p->native : NULL;
	const struct native_loc_rec *rec;

	if (!n || !out || i >= n->nr_locs)
		return -EINVAL;
	rec = &n->locs[i];
	out->module = rec->module;
	out->address = rec->address;
	out->lines = rec->nr_lines ? n->lines + rec->first_line : NULL;
	out->nr_lines = rec->nr_lines;
	out->flags = rec->flags;
	return 0;
}

int profile__set_location_lines(struct profile *p, size_t i, const struct profile_line *lines,
				size_t nr_lines, unsigned int flags)
{
	struct profile_native *n = p ? p->native : NULL;

	if (!n || i >= n->nr_locs || check_lines(lines, nr_lines, flags))
		return -EINVAL;
	return replace_lines(p, n, &n->locs[i], lines, nr_lines, flags);
}

/* ---- native stacks ------------------------------------------------------------ */

#define STACK_FLAGS PROFILE_NATIVE_TRUNCATED

static int check_stack(const struct profile_native *n, const struct profile_native_stack *s)
{
	if (!s->depth || !s->locs || s->nr_kernel > s->depth || (s->flags & ~STACK_FLAGS) ||
	    (s->nr_marks && !s->mark_pos) || s->nr_marks > UINT16_MAX)
		return -EINVAL;
	for (size_t j = 0; j < s->nr_marks; j++)
		if (s->mark_pos[j] != PROFILE_MARK_BELOW && s->mark_pos[j] >= s->depth)
			return -EINVAL;
	/* the method of the user part; a kernel-only stack may have none */
	if (s->method != PROFILE_UNWIND_FP && s->method != PROFILE_UNWIND_DWARF &&
	    !(s->method == 0 && s->nr_kernel == s->depth))
		return -EINVAL;
	for (size_t i = 0; i < s->depth; i++)
		if (!n || s->locs[i] >= n->nr_locs)
			return -EINVAL;
	return 0;
}

static void stack_hash(const struct profile_native_stack *s, uint64_t *a, uint64_t *b)
{
	uint64_t h = fsp_hash_u64(s->depth);

	for (size_t i = 0; i < s->depth; i++)
		h = fsp_hash_pair(h, s->locs[i]);
	for (size_t j = 0; j < s->nr_marks; j++)
		h = fsp_hash_pair(h, (uint64_t)s->mark_pos[j] << 32 | j);
	*a = h;
	*b = fsp_hash_pair(h ^ 0x5bd1e995ULL, (uint64_t)s->nr_kernel << 32 |
						      (uint64_t)(s->method & 0xff) << 8 |
						      (s->flags & 0xff));
}

static bool stack_equal(const struct profile_native *n, const struct native_stack_rec *r,
			const struct profile_native_stack *s)
{
	return r->depth == s->depth && r->nr_kernel == s->nr_kernel && r->method == s->method &&
	       r->flags == s->flags && r->nr_marks == s->nr_marks &&
	       !memcmp(n->frames + r->first, s->locs, s->depth * sizeof(*s->locs)) &&
	       (!s->nr_marks ||
		!memcmp(n->marks + r->first_mark, s->mark_pos, s->nr_marks * sizeof(*s->mark_pos)));
}

/* The index of a stack equal to s in the chain from head, or the last of
 * the chain in *last (NO_NEXT when not found). */
static size_t find_stack(const struct profile_native *n, size_t head,
			 const struct profile_native_stack *s, size_t *last)
{
	for (size_t i = head; i != NO_NEXT; i = n->stacks[i].next) {
		if (stack_equal(n, &n->stacks[i], s))
			return i;
		*last = i;
	}
	return NO_NEXT;
}

static int push_stack(struct profile_native *n, const struct profile_native_stack *s)
{
	struct native_stack_rec *r;
	int err;

	if (n->nr_stacks >= INT32_MAX || s->depth > SIZE_MAX / sizeof(*n->frames) - n->nr_frames)
		return -E2BIG;
	err = fsp_grow((void **)&n->stacks, &n->cap_stacks, n->nr_stacks + 1, sizeof(*n->stacks));
	if (!err)
		err = fsp_grow((void **)&n->frames, &n->cap_frames, n->nr_frames + s->depth,
			       sizeof(*n->frames));
	if (!err && s->nr_marks)
		err = fsp_grow((void **)&n->marks, &n->cap_marks, n->nr_marks + s->nr_marks,
			       sizeof(*n->marks));
	if (err)
		return err;
	r = &n->stacks[n->nr_stacks];
	r->first = n->nr_frames;
	r->depth = s->depth;
	r->nr_kernel = s->nr_kernel;
	r->method = s->method;
	r->flags = s->flags;
	r->next = NO_NEXT;
	memcpy(n->frames + n->nr_frames, s->locs, s->depth * sizeof(*s->locs));
	n->nr_frames += s->depth;
	r->first_mark = n->nr_marks;
	r->nr_marks = s->nr_marks;
	if (s->nr_marks)
		memcpy(n->marks + n->nr_marks, s->mark_pos, s->nr_marks * sizeof(*s->mark_pos));
	n->nr_marks += s->nr_marks;
	return (int)n->nr_stacks++;
}

int profile__add_native_stack(struct profile *p, const struct profile_native_stack *s)
{
	struct profile_native_stack copy;
	struct profile_native *n;
	uint64_t a, b, head;
	size_t found, last = NO_NEXT;
	int ret;

	if (!p || !s || check_stack(p->native, s))
		return -EINVAL;
	n = p->native; /* non-NULL: check_stack saw locations */
	stack_hash(s, &a, &b);
	if (hashmap__find(&n->stack_map, a, b, &head)) {
		found = find_stack(n, head, s, &last);
		if (found != NO_NEXT)
			return (int)found;
	}
	copy = *s;
	if (aliases(s->locs, n->frames, n->cap_frames, sizeof(*n->frames))) {
		copy.locs = malloc(s->depth * sizeof(*s->locs));
		if (!copy.locs)
			return -ENOMEM;
		memcpy((uint32_t *)copy.locs, s->locs, s->depth * sizeof(*s->locs));
	}
	if (s->nr_marks && aliases(s->mark_pos, n->marks, n->cap_marks, sizeof(*n->marks))) {
		copy.mark_pos = malloc(s->nr_marks * sizeof(*s->mark_pos));
		if (!copy.mark_pos) {
			if (copy.locs != s->locs)
				free((uint32_t *)copy.locs);
			return -ENOMEM;
		}
		memcpy((uint16_t *)copy.mark_pos, s->mark_pos, s->nr_marks * sizeof(*s->mark_pos));
	}
	ret = push_stack(n, &copy);
	if (ret >= 0 && last == NO_NEXT) {
		int err = hashmap__find_or_insert(&n->stack_map, a, b, (uint64_t)ret, NULL);

		if (err < 0) {
			n->nr_stacks--;
			n->nr_frames -= s->depth;
			n->nr_marks -= s->nr_marks;
			ret = err;
		}
	} else if (ret >= 0) {
		n->stacks[last].next = (size_t)ret;
	}
	if (copy.locs != s->locs)
		free((uint32_t *)copy.locs);
	if (copy.mark_pos != s->mark_pos)
		free((uint16_t *)copy.mark_pos);
	return ret;
}

size_t profile__nr_native_stacks(const struct profile *p)
{
	const struct profile_native *n = p ? p->native : NULL;

	return n ? n->nr_stacks : 0;
}

int profile__native_stack(const struct profile *p, size_t i, struct profile_native_stack *out)
{
	const struct profile_native *n = p ? p->native : NULL;
	const struct native_stack_rec *r;

	if (!n || !out || i >= n->nr_stacks)
		return -EINVAL;
	r = &n->stacks[i];
	out->locs = n->frames + r->first;
	out->depth = r->depth;
	out->nr_kernel = r->nr_kernel;
	out->method = r->method;
	out->flags = r->flags;
	out->mark_pos = r->nr_marks ? n->marks + r->first_mark : NULL;
	out->nr_marks = r->nr_marks;
	return 0;
}

/* ---- native samples ----------------------------------------------------------- */

static bool sample_equal(const struct native_sample_rec *r, uint32_t source, uint32_t pid,
			 uint32_t tid, uint64_t key, size_t stack)
{
	return r->source == source && r->pid == pid && r->tid == tid && r->key == key &&
	       r->stack == stack;
}

static int push_sample(struct profile_native *n, uint32_t source, uint32_t pid, uint32_t tid,
		       uint64_t key, size_t stack)
{
	struct native_sample_rec *r;
	int err;

	err = fsp_grow((void **)&n->samples, &n->cap_samples, n->nr_samples + 1,
		       sizeof(*n->samples));
	if (err)
		return err;
	r = &n->samples[n->nr_samples++];
	r->source = source;
	r->pid = pid;
	r->tid = tid;
	r->key = key;
	r->stack = stack;
	r->count = 0;
	r->next = NO_NEXT;
	return 0;
}

static int add_sample(struct profile_native *n, uint32_t src, uint32_t pid, uint32_t tid,
		      uint64_t key, size_t stack, uint64_t count)
{
	uint64_t a, b, head;
	size_t i, last = NO_NEXT;
	int err;

	a = fsp_hash_pair((uint64_t)src << 32 | pid, tid);
	b = fsp_hash_pair(key, stack);
	if (hashmap__find(&n->sample_map, a, b, &head)) {
		for (i = head; i != NO_NEXT; last = i, i = n->samples[i].next) {
			if (sample_equal(&n->samples[i], src, pid, tid, key, stack)) {
				n->samples[i].count = fsp_sat_add(n->samples[i].count, count);
				return 0;
			}
		}
	}
	err = push_sample(n, src, pid, tid, key, stack);
	if (err)
		return err;
	if (last != NO_NEXT) {
		n->samples[last].next = n->nr_samples - 1;
	} else {
		err = hashmap__find_or_insert(&n->sample_map, a, b, n->nr_samples - 1, NULL);
		if (err < 0) {
			n->nr_samples--;
			return err;
		}
	}
	n->samples[n->nr_samples - 1].count = count;
	return 0;
}

int profile__add_native_samples(struct profile *p, uint32_t pid, uint32_t tid, uint64_t key,
				size_t stack, uint64_t count)
{
	struct profile_native *n = p ? p->native : NULL;

	if (!n || stack >= n->nr_stacks)
		return -EINVAL;
	if (!count)
		return 0;
	return add_sample(n, p->cur, pid, tid, key, stack, count);
}

int profile__native_rekey(struct profile *p, const uint64_t *keys)
{
	struct profile_native *n = p ? p->native : NULL;
	struct native_sample_rec *old;
	size_t nr;
	int err = 0;

	if (!n || !n->nr_samples)
		return 0;
	old = n->samples;
	nr = n->nr_samples;
	n->samples = NULL;
	n->nr_samples = n->cap_samples = 0;
	hashmap__fini(&n->sample_map);
	for (size_t i = 0; i < nr && !err; i++)
		if (old[i].count)
			err = add_sample(n, old[i].source, old[i].pid, old[i].tid, keys[i],
					 old[i].stack, old[i].count);
	free(old);
	return err;
}

size_t profile__nr_native_samples(const struct profile *p)
{
	const struct profile_native *n = p ? p->native : NULL;

	return n ? n->nr_samples : 0;
}

int profile__native_sample(const struct profile *p, size_t i, struct profile_native_sample *out)
{
	const struct profile_native *n = p ? p->native : NULL;
	const struct native_sample_rec *r;

	if (!n || !out || i >= n->nr_samples)
		return -EINVAL;
	r = &n->samples[i];
	out->source = r->source;
	out->pid = r->pid;
	out->tid = r->tid;
	out->key = r->key;
	/* looked up now: a mark stack may be registered after its samples */
	out->mark_stack = profile__stack_of(p, r->source, r->pid, r->key);
	out->stack = r->stack;
	out->count = r->count;
	return 0;
}
