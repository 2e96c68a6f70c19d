/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * USDT argument decoding: an argument of the probe that fired, by the layout
 * userspace parsed from the site's note (usdt_specs, indexed by the cookie).
 */
#ifndef FSP_USDT_ARG_BPF_H
#define FSP_USDT_ARG_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "profiler.h"
#include "config.bpf.h"
#include "maps.bpf.h"
#include "labels.bpf.h"
#include "util.bpf.h"

/* A register of the probed context by its pt_regs offset: direct context
 * loads at constant offsets, much cheaper than bpf_probe_read_kernel(). */
#define CTX_LOAD(off)                                                                              \
	case off:                                                                                  \
		asm volatile("%0 = *(u64 *)(%1 + " #off ")" : "=r"(*val) : "r"(ctx));              \
		return 0

static __always_inline int read_reg(struct pt_regs *ctx, __u64 off, __u64 *val)
{
	/* Inline asm: the compiler would fold the cases into ctx + off, and the
	 * verifier accepts context loads at constant offsets only. */
	switch (off) {
		CTX_LOAD(0);
		CTX_LOAD(8);
		CTX_LOAD(16);
		CTX_LOAD(24);
		CTX_LOAD(32);
		CTX_LOAD(40);
		CTX_LOAD(48);
		CTX_LOAD(56);
		CTX_LOAD(64);
		CTX_LOAD(72);
		CTX_LOAD(80);
		CTX_LOAD(88);
		CTX_LOAD(96);
		CTX_LOAD(104);
		CTX_LOAD(112);
		CTX_LOAD(152);
	}
	return -1;
}

/* Reads argument n of the probe that fired, wherever the compiler put it. */
static __always_inline int usdt_arg(struct pt_regs *ctx, const struct fsp_usdt_spec *spec, __u32 n,
				    __u64 *out)
{
	const struct fsp_usdt_arg *a;
	__u64 val = 0, size, shift;

	if (n >= spec->nr_args || n >= FSP_USDT_MAX_ARGS)
		return -1;
	a = &spec->args[n];
	switch (a->type) {
	case FSP_ARG_CONST:
		val = a->val_off;
		break;
	case FSP_ARG_REG:
		if (read_reg(ctx, a->reg_off, &val))
			return -1;
		break;
	case FSP_ARG_REG_DEREF:
		if (read_reg(ctx, a->reg_off, &val))
			return -1;
		size = a->size;
		if (size == 0 || size > 8)
			return -1;
		if (bpf_probe_read_user(&val, size, (void *)(val + a->val_off)))
			return -1;
		break;
	default:
		return -1;
	}
	/* Keep the low `size` bytes, sign-extended for signed arguments. */
	shift = 64 - 8 * (a->size & 0xf);
	if (shift && shift < 64) {
		if (a->is_signed)
			val = (__u64)((__s64)(val << shift) >> shift);
		else
			val = (val << shift) >> shift;
	}
	*out = val;
	return 0;
}

static __always_inline const struct fsp_usdt_spec *usdt_spec(struct pt_regs *ctx)
{
	__u32 id = bpf_get_attach_cookie(ctx) & ~FSP_COOKIE_SHADOW;

	return bpf_map_lookup_elem(&usdt_specs, &id);
}

/* Is the site that fired an ABI v1 site of an ABI v2 file (FSP_COOKIE_SHADOW)? */
static __always_inline __u32 site_shadow(struct pt_regs *ctx)
{
	return (bpf_get_attach_cookie(ctx) & FSP_COOKIE_SHADOW) != 0;
}

/*
 * --events=FEATURE,...: does this shadow site's hit (of feature, an address)
 * count? Only for a feature asked for; a site that fires for another is
 * noted for userspace to detach (its every hit is a trap for nothing), one
 * that fires for one asked for is kept for good. A feature whose name cannot
 * be read yet counts (userspace leaves it out of the event view).
 */
static __always_inline bool event_wanted(struct pt_regs *ctx, __u64 feature)
{
	__u32 site = bpf_get_attach_cookie(ctx) >> FSP_COOKIE_SITE_SHIFT, i;
	struct fsp_label_key key = {.tgid = bpf_get_current_pid_tgid() >> 32, .addr = feature};
	const struct fsp_label *l;
	__u8 one = 1;
	__u64 h;

	if (!nr_event_features)
		return true;
	h = label_hash(key.tgid, feature, SCRATCH_PROBE);
	for (i = 0; i < FSP_MAX_EVENT_FEATURES; i++) {
		if (i >= nr_event_features)
			break;
		if (event_features[i] == h) {
			if (!bpf_map_lookup_elem(&keep_sites, &site))
				bpf_map_update_elem(&keep_sites, &site, &one, BPF_ANY);
			return true;
		}
	}
	l = bpf_map_lookup_elem(&labels, &key);
	if (!l || !l->len)
		return true;
	/* The first time: userspace detaches it at once. */
	if (!bpf_map_lookup_elem(&skip_sites, &site) &&
	    !bpf_map_update_elem(&skip_sites, &site, &one, BPF_NOEXIST))
		emit_addr(FSP_EVENT_SKIP_SITE, key.tgid, 0, site);
	return false;
}

#endif /* FSP_USDT_ARG_BPF_H */
