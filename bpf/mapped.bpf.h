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

/* The value of a part's argument, its "[OFF]" pointer reads followed: the
 * 8-byte word at value + off, nr_deref times. 0 or -1 (counted). */
static __always_inline int part_value(struct pt_regs *ctx, const struct fsp_usdt_spec *spec,
				      const struct fsp_map_part *p, __u64 *v)
{
	__u64 n = p->nr_deref;
	__u32 i;

	if (usdt_arg(ctx, spec, p->arg, v)) {
		stat_inc(FSP_STAT_ARG_ERRORS);
		return -1;
	}
#pragma unroll
	for (i = 0; i < FSP_MAP_MAX_DEREF; i++) {
		if (i >= n)
			break;
		if (!*v || bpf_probe_read_user(v, sizeof(*v), (const void *)(*v + p->deref[i]))) {
			stat_inc(FSP_STAT_LABEL_DROPS);
			return -1;
		}
	}
	return 0;
}

/* A string part that could not be read: NULL, or not readable now (a page
 * the process never touched: a probe cannot fault it in): a visible
 * placeholder, counted unless the pointer was NULL. Returns its length. */
static __always_inline __u32 put_unread(__u64 ptr, char *dst)
{
	if (ptr)
		stat_inc(FSP_STAT_LABEL_DROPS);
	dst[0] = '?';
	return 1;
}

/* Appends a string argument (at most FSP_LABEL_LEN - 1 bytes, the rest is
 * cut when the label is finished): up to its NUL, or (len_arg) as many
 * bytes as another argument says. Returns the bytes written. */
static __always_inline __u32 put_str(struct pt_regs *ctx, const struct fsp_usdt_spec *spec,
				     const struct fsp_map_part *p, char *dst)
{
	__u64 ptr = 0, len;
	long n = 0;

	if (part_value(ctx, spec, p, &ptr))
		ptr = 0;
	else if (p->len_arg != FSP_MAP_NUL_TERMINATED) {
		if (usdt_arg(ctx, spec, p->len_arg, &len)) {
			stat_inc(FSP_STAT_ARG_ERRORS);
			len = 0;
		}
		if (len > FSP_LABEL_LEN - 1)
			len = FSP_LABEL_LEN - 1;
		/* The verifier wants the size's bounds in the register it gets. */
		asm volatile("%0 &= 255" : "+r"(len));
		if (!ptr)
			n = 0;
		else if (!len)
			return 0;
		else if (!bpf_probe_read_user(dst, len, (const void *)ptr))
			return len;
		return put_unread(ptr, dst);
	} else if (ptr) {
		n = bpf_probe_read_user_str(dst, FSP_LABEL_LEN, (const void *)ptr);
	}
	return n <= 0 ? put_unread(ptr, dst) : n - 1;
}

/* Appends an integer argument (its pointer reads followed) in decimal;
 * returns the bytes written. */
static __noinline __u32 put_int(struct pt_regs *ctx, const struct fsp_usdt_spec *spec,
				const struct fsp_map_part *p, char *dst)
{
	char digits[24];
	__u64 v, u, arg = p->arg;
	__u32 n = 0, i;
	bool neg;

	if (arg >= FSP_USDT_MAX_ARGS || part_value(ctx, spec, p, &v))
		return 0;
	/* A word read from memory has no sign the note could give. */
	neg = !p->nr_deref && spec->args[arg].is_signed && (__s64)v < 0;
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

/* The address of a GLOBAL part's variable in this process: its link-time
 * address plus the file's load bias (the site's address now minus its
 * link-time address), or for a thread-local variable of the executable, the
 * thread's pointer (fsbase) plus its offset. */
static __always_inline __u64 global_addr(struct pt_regs *ctx, const struct fsp_map_site *ms,
					 const struct fsp_map_part *p)
{
	if (p->tls)
		return bpf_get_current_task_btf()->thread.fsbase + p->addr;
	return p->addr + PT_REGS_IP(ctx) - ms->site_vaddr;
}

/* Appends the string a global `char *` of the probed file points to.
 * Returns the bytes written. */
static __always_inline __u32 put_global(struct pt_regs *ctx, const struct fsp_map_site *ms,
					const struct fsp_map_part *p, char *dst)
{
	__u64 ptr = 0;
	long n = 0;

	if (!bpf_probe_read_user(&ptr, sizeof(ptr), (const void *)global_addr(ctx, ms, p)) && ptr)
		n = bpf_probe_read_user_str(dst, FSP_LABEL_LEN, (const void *)ptr);
	return n <= 0 ? put_unread(ptr, dst) : n - 1;
}

/* Appends one part of a template at offset off of b's label; returns the
 * bytes written. A global function: the verifier checks it once, not once
 * per part of each template and condition (which was 80% of its work on
 * map_enter). */
__noinline __u32 put_part(struct pt_regs *ctx, const struct fsp_map_site *ms,
			  const struct fsp_map_part *p, struct label_buf *b, __u64 off)
{
	char *dst;

	if (!ms || !p || !b)
		return 0;
	dst = b->l.str + slot_label(off);
	switch (p->type) {
	case FSP_PART_LIT:
		return put_lit(dst, p);
	case FSP_PART_STR:
		return put_str(ctx, &ms->spec, p, dst);
	case FSP_PART_INT:
		return put_int(ctx, &ms->spec, p, dst);
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
 * to the labels map (under tgid 0: shared by all processes). parts (nr of
 * them) are the site's template, or a condition's operand. Userspace
 * computes the same identifier for the texts "when" compares with
 * (probemap_sites__label_id).
 */
static __noinline __u64 map_label(struct pt_regs *ctx, const struct fsp_map_site *ms,
				  const struct fsp_map_part *parts, __u64 nr, bool store)
{
	struct label_buf *b = scratch_get(SCRATCH_PROBE);
	__u64 off = 0;
	__u32 i;

	if (!b || !parts)
		return 0;
#pragma unroll
	for (i = 0; i < FSP_MAP_MAX_PARTS; i++) {
		if (i >= nr || off >= FSP_LABEL_LEN - 1)
			break;
		off += put_part(ctx, ms, &parts[i], b, off);
	}
	return label_intern(b, off, store);
}

/* "label sample": the frame's instance stands for the variable of the
 * site's template (its one {global:S} part) in this process, whose string the
 * sampler reads at each sample (samplelabel.bpf.h): the variable's address
 * here (a thread-local one's in this thread, whose frame it is). */
static __always_inline __u64 sampled_instance(struct pt_regs *ctx, const struct fsp_map_site *ms)
{
	return FSP_ID_SAMPLED | (global_addr(ctx, ms, &ms->parts[0]) & FSP_ID_ADDR_MASK);
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

/* A point event ("event PROBE") fired: one more call of its instance in the
 * event view; nothing is pushed. */
static __always_inline int map_point(struct pt_regs *ctx, const struct fsp_map_site *ms)
{
	__u64 instance = ms->nr_parts ? map_label(ctx, ms, ms->parts, ms->nr_parts, true) : 0;
	struct tstack *st;

	stat_inc(FSP_STAT_PROBE_HITS);
	if (!events_enabled)
		return 0;
	st = tstack_get(true);
	if (!st) {
		stat_inc(FSP_STAT_NO_STORAGE);
		return 0;
	}
	count_enter(st, ms->feature, instance);
	return 0;
}

/* ---- "when": conditions on an enter ---------------------------------------- */

static __always_inline bool cmp_holds(__u64 op, __u64 a, __u64 b, bool is_signed)
{
	bool lt = is_signed ? (__s64)a < (__s64)b : a < b;

	switch (op) {
	case FSP_COND_EQ:
		return a == b;
	case FSP_COND_NE:
		return a != b;
	case FSP_COND_LT:
		return lt;
	case FSP_COND_LE:
		return lt || a == b;
	case FSP_COND_GT:
		return !lt && a != b;
	case FSP_COND_GE:
		return !lt;
	}
	return false;
}

/* Does condition c of site ms hold now? A subprogram: each kind of operand
 * is verified once. An operand that cannot be read fails the condition. */
static __noinline bool cond_holds(struct pt_regs *ctx, const struct fsp_map_site *ms,
				  const struct fsp_map_cond *c)
{
	__u64 v = 0;

	if (!c)
		return false;
	switch (c->type) {
	case FSP_COND_INT:
		if (part_value(ctx, &ms->spec, &c->part, &v))
			return false;
		return cmp_holds(c->op, v, c->value, c->is_signed);
	case FSP_COND_LABEL:
		v = map_label(ctx, ms, &c->part, 1, false);
		return cmp_holds(c->op, v, c->value, false);
	case FSP_COND_OUTER:
		v = outer_instance(ctx, c->outer);
		return cmp_holds(c->op, v, c->value, false);
	}
	return false;
}

/* Do all the conditions of site ms hold ("when", all of them)? */
static __always_inline bool map_conds(struct pt_regs *ctx, const struct fsp_map_site *ms)
{
	__u64 nr = ms->nr_conds;
	__u32 i;

#pragma unroll
	for (i = 0; i < FSP_MAP_MAX_CONDS; i++) {
		if (i >= nr)
			break;
		if (!cond_holds(ctx, ms, &ms->conds[i]))
			return false;
	}
	return true;
}

#endif /* FSP_MAPPED_BPF_H */
