/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Mapped probes (--map): the site that fired (map_sites, by cookie), and the
 * instance it names: a label assembled from its template's parts, or the
 * instance of an outer live mark.
 */
#ifndef FSP_MAPPED_BPF_H
#define FSP_MAPPED_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "profiler.h"
#include "maps.bpf.h"
#include "util.bpf.h"
#include "usdt_arg.bpf.h"
#include "markstack.bpf.h"

/* The mapped site that fired (its cookie), NULL if unknown. */
static __always_inline const struct fsp_map_site *map_site(struct pt_regs *ctx)
{
	__u32 id = bpf_get_attach_cookie(ctx);

	return bpf_map_lookup_elem(&map_sites, &id);
}

/* Appends a literal part at off; returns the bytes written. */
static __always_inline __u32 put_lit(char *dst, const struct fsp_map_part *p)
{
	__u64 n = p->len;

	/* The verifier wants the size's bounds in the register it gets. */
	asm volatile("%0 &= 31" : "+r"(n));
	_Static_assert(FSP_MAP_LIT_LEN == 32, "put_lit() masks with 31");
	if (p->len >= FSP_MAP_LIT_LEN)
		return 0;
	if (bpf_probe_read_kernel(dst, n, p->lit))
		return 0;
	return n;
}

/* Appends a string argument (at most FSP_LABEL_LEN - 1 bytes, the rest is
 * cut when the label is finished); returns the bytes written. */
static __always_inline __u32 put_str(struct pt_regs *ctx, const struct fsp_usdt_spec *spec,
				     __u32 arg, char *dst)
{
	__u64 ptr;
	long n;

	if (usdt_arg(ctx, spec, arg, &ptr)) {
		stat_inc(FSP_STAT_ARG_ERRORS);
		return 0;
	}
	n = ptr ? bpf_probe_read_user_str(dst, FSP_LABEL_LEN, (const void *)ptr) : 0;
	if (n <= 0) {
		/* NULL, or not readable now (a page the process never touched:
		 * a probe cannot fault it in): a visible placeholder, counted. */
		if (ptr)
			stat_inc(FSP_STAT_LABEL_DROPS);
		dst[0] = '?';
		return 1;
	}
	return n - 1;
}

/* Appends an integer argument in decimal; returns the bytes written. */
static __noinline __u32 put_int(struct pt_regs *ctx, const struct fsp_usdt_spec *spec, __u32 arg,
				char *dst)
{
	char digits[24];
	__u64 v, u;
	__u32 n = 0, i;
	bool neg;

	if (usdt_arg(ctx, spec, arg, &v) || arg >= FSP_USDT_MAX_ARGS) {
		stat_inc(FSP_STAT_ARG_ERRORS);
		return 0;
	}
	neg = spec->args[arg].is_signed && (__s64)v < 0;
	u = neg ? -v : v;
	for (i = 0; i < 20; i++) {
		digits[23 - i] = '0' + u % 10;
		u /= 10;
		n = i + 1;
		if (!u)
			break;
	}
	if (neg) {
		digits[23 - n] = '-';
		n++;
	}
	if (n > 21 || bpf_probe_read_kernel(dst, n, &digits[24 - n]))
		return 0;
	return n;
}

/* Appends the string a global `char *` of the probed file points to: its
 * address there plus the file's load bias (the site's address now minus its
 * link-time address). Returns the bytes written. */
static __always_inline __u32 put_global(struct pt_regs *ctx, const struct fsp_map_site *ms,
					const struct fsp_map_part *p, char *dst)
{
	__u64 bias = PT_REGS_IP(ctx) - ms->site_vaddr, ptr = 0;
	long n = 0;

	if (!bpf_probe_read_user(&ptr, sizeof(ptr), (const void *)(p->addr + bias)) && ptr)
		n = bpf_probe_read_user_str(dst, FSP_LABEL_LEN, (const void *)ptr);
	if (n <= 0) {
		if (ptr)
			stat_inc(FSP_STAT_LABEL_DROPS);
		dst[0] = '?';
		return 1;
	}
	return n - 1;
}

/* Appends one part of a template; returns the bytes written. A subprogram:
 * verified once per part, not once per combination of the parts' types. */
static __noinline __u32 put_part(struct pt_regs *ctx, const struct fsp_map_site *ms,
				 const struct fsp_map_part *p, char *dst)
{
	switch (p->type) {
	case FSP_PART_LIT:
		return put_lit(dst, p);
	case FSP_PART_STR:
		return put_str(ctx, &ms->spec, p->arg, dst);
	case FSP_PART_INT:
		return put_int(ctx, &ms->spec, p->arg, dst);
	case FSP_PART_GLOBAL:
		return put_global(ctx, ms, p, dst);
	}
	return 0;
}

/*
 * The instance of a mapped probe: its template's parts (literals, string and
 * integer arguments) joined into a label of at most FSP_LABEL_LEN - 1 bytes,
 * identified by a hash of its bytes so that equal labels are one instance,
 * whatever buffer the strings came from. With store, a new label is copied
 * to the labels map (under tgid 0: shared by all processes).
 */
static __noinline __u64 map_label(struct pt_regs *ctx, const struct fsp_map_site *ms, bool store)
{
	struct fsp_label_key key = {};
	struct label_buf *b = scratch_get(SCRATCH_PROBE);
	__u64 h = 0xcbf29ce484222325ULL, off = 0, nr;
	__u32 i;

	if (!b)
		return 0;
	nr = ms->nr_parts;
#pragma unroll
	for (i = 0; i < FSP_MAP_MAX_PARTS; i++) {
		if (i >= nr || off >= FSP_LABEL_LEN - 1)
			break;
		off += put_part(ctx, ms, &ms->parts[i], b->l.str + slot_label(off));
	}
	if (off > FSP_LABEL_LEN - 1)
		off = FSP_LABEL_LEN - 1;
	/* Zero the bytes after the label up to the next word: the hash reads words. */
	*(__u64 *)(b->l.str + slot_label(off)) = 0;
#pragma unroll
	for (i = 0; i < FSP_LABEL_LEN / 8; i++) {
		if (i * 8 >= off)
			break;
		h = mix64(h ^ *(__u64 *)(b->l.str + i * 8));
	}
	key.addr = FSP_ID_SYNTH | (mix64(h ^ off) & FSP_ID_HASH_MASK);
	if (!store || bpf_map_lookup_elem(&labels, &key))
		return key.addr;
	b->l.len = off;
	b->l.hash = key.addr;
	if (bpf_map_update_elem(&labels, &key, &b->l, BPF_NOEXIST) &&
	    !bpf_map_lookup_elem(&labels, &key))
		stat_inc(FSP_STAT_LABEL_DROPS);
	return key.addr;
}

struct outer_ctx {
	const struct tstack *st;
	__u64 feature;
	__u32 depth;
	__u64 instance;
};

static long outer_cb(__u64 n, void *data)
{
	struct outer_ctx *c = data;
	__u32 i = c->depth - 1 - (__u32)n;
	const struct tframe *f;

	if (i >= FSP_MAX_DEPTH)
		return 1;
	f = &c->st->f[slot(i)];
	if (f->feature == c->feature && f->kind == FSP_FRAME_MARK) {
		c->instance = f->instance;
		return 1;
	}
	return 0;
}

/* The instance of the innermost live mark of feature (0 when none): e.g.
 * PostgreSQL's planning takes the text of the query being planned. */
static __always_inline __u64 outer_instance(struct pt_regs *ctx, __u64 feature)
{
	struct outer_ctx c = {.feature = feature};
	struct tstack *st = tstack_get(false);

	if (!st)
		return 0;
	c.st = st;
	c.depth = live_depth(st, PT_REGS_SP(ctx));
	if (c.depth > FSP_MAX_DEPTH)
		return 0;
	bpf_loop(c.depth, outer_cb, &c, 0);
	return c.instance;
}

#endif /* FSP_MAPPED_BPF_H */
