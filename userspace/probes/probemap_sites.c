// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "probemap_sites.h"

_Static_assert(FSP_MAP_MAX_PARTS == PROBEMAP_MAX_PARTS, "profiler.h and probemap.h disagree");
_Static_assert(PROBEMAP_LIT_LEN < FSP_MAP_LIT_LEN, "a literal part must fit the BPF side");
_Static_assert(PROBEMAP_MAX_ARG < FSP_USDT_MAX_ARGS, "argument numbers must fit the BPF side");
_Static_assert(PROBEMAP_MAX_DEREF == FSP_MAP_MAX_DEREF, "profiler.h and probemap.h disagree");
_Static_assert(PROBEMAP_MAX_WHEN == FSP_MAP_MAX_CONDS, "profiler.h and probemap.h disagree");
_Static_assert(PROBEMAP_PATTERN_LEN - 1 == FSP_CHARGE_PAT_LEN, "a pattern's bytes must fit");

/* bpf/util.bpf.h mix64(), which map_label() hashes labels with. */
static uint64_t label_mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

static int need_arg(const struct probemap *m, const struct probemap_feature *f,
		    const struct usdt_site *site, unsigned int arg, char *why, size_t why_size)
{
	if (!site->args_ok) {
		snprintf(why, why_size,
			 "%s:%u: feature %s reads argument %u of %s:%s, whose site at 0x%llx has "
			 "arguments fsp-bpf cannot read",
			 m->path ? m->path : m->name, f->line, f->name, arg, site->provider,
			 site->name, (unsigned long long)site->vaddr);
		return -EINVAL;
	}
	if (arg < site->spec.nr_args)
		return 0;
	snprintf(why, why_size,
		 "%s:%u: feature %s reads argument %u of %s:%s, which has %llu argument%s",
		 m->path ? m->path : m->name, f->line, f->name, arg, site->provider, site->name,
		 (unsigned long long)site->spec.nr_args, site->spec.nr_args == 1 ? "" : "s");
	return -EINVAL;
}

static int global_part(const struct probemap *m, const struct probemap_feature *f, const char *path,
		       const char *kpath, const struct probemap_part *p, struct fsp_map_part *q,
		       char *why, size_t why_size)
{
	uint64_t vaddr;
	int64_t tp_off;
	int err;

	q->type = FSP_PART_GLOBAL;
	if (!usdt__symbol(kpath, p->sym, &vaddr)) {
		q->addr = vaddr;
		return 0;
	}
	/* A thread-local variable: of an executable only (a library's TLS
	 * block is placed by ld.so at run time). */
	err = usdt__tls_symbol(kpath, p->sym, &tp_off);
	if (!err) {
		q->addr = (uint64_t)tp_off;
		q->tls = 1;
		return 0;
	}
	if (err == -ENOTSUP)
		snprintf(why, why_size,
			 "%s:%u: feature %s reads %s, a thread-local variable of the shared "
			 "library %s (only an executable's thread-local variables can be read)",
			 m->path ? m->path : m->name, f->line, f->name, p->sym, path);
	else
		snprintf(why, why_size,
			 "%s:%u: feature %s reads the global %s, which %s does not define",
			 m->path ? m->path : m->name, f->line, f->name, p->sym, path);
	return -EINVAL;
}

uint64_t probemap_sites__label_id(const char *text, size_t len)
{
	uint8_t buf[FSP_LABEL_LEN + 8] = {};
	uint64_t h = 0xcbf29ce484222325ULL, w;

	if (len > FSP_LABEL_LEN - 1)
		len = FSP_LABEL_LEN - 1;
	memcpy(buf, text, len);
	/* as bpf/mapped.bpf.h map_label(): the words up to the label's end,
	 * zero-padded, little-endian (x86-64) */
	for (size_t i = 0; i * 8 < len; i++) {
		memcpy(&w, buf + i * 8, sizeof(w));
		h = label_mix(h ^ w);
	}
	return FSP_ID_SYNTH | (label_mix(h ^ len) & FSP_ID_HASH_MASK);
}

/* A template part (or a condition's operand) for the BPF side. */
static int build_part(const struct probemap *m, const struct probemap_feature *f, const char *path,
		      const char *kpath, const struct usdt_site *site,
		      const struct probemap_part *p, struct fsp_map_site *out,
		      struct fsp_map_part *q, char *why, size_t why_size)
{
	int err;

	switch (p->type) {
	case PROBEMAP_PART_LIT:
		q->type = FSP_PART_LIT;
		q->len = p->len < PROBEMAP_LIT_LEN ? p->len : PROBEMAP_LIT_LEN;
		memcpy(q->lit, p->lit, q->len);
		return 0;
	case PROBEMAP_PART_STR:
	case PROBEMAP_PART_INT:
		err = need_arg(m, f, site, p->arg, why, why_size);
		if (!err && p->type == PROBEMAP_PART_STR && p->len_arg >= 0)
			err = need_arg(m, f, site, p->len_arg, why, why_size);
		if (err)
			return err;
		q->type = p->type == PROBEMAP_PART_STR ? FSP_PART_STR : FSP_PART_INT;
		q->arg = p->arg;
		q->len_arg = p->len_arg >= 0 ? (uint64_t)p->len_arg : FSP_MAP_NUL_TERMINATED;
		q->nr_deref = p->nr_deref;
		for (unsigned int i = 0; i < p->nr_deref && i < FSP_MAP_MAX_DEREF; i++)
			q->deref[i] = p->deref[i];
		return 0;
	case PROBEMAP_PART_GLOBAL:
		err = global_part(m, f, path, kpath, p, q, why, why_size);
		if (err)
			return err;
		/* The load bias: where the site is now minus here. */
		out->site_vaddr = site->vaddr;
		return 0;
	}
	return -EINVAL;
}

static const uint64_t cond_ops[] = {
	[PROBEMAP_EQ] = FSP_COND_EQ, [PROBEMAP_NE] = FSP_COND_NE, [PROBEMAP_LT] = FSP_COND_LT,
	[PROBEMAP_LE] = FSP_COND_LE, [PROBEMAP_GT] = FSP_COND_GT, [PROBEMAP_GE] = FSP_COND_GE,
};

/* The "when" conditions of an enter site. */
static int build_conds(const struct probemap *m, const struct probemap_feature *f, const char *path,
		       const char *kpath, const struct usdt_site *site, uint64_t feature0,
		       struct fsp_map_site *out, char *why, size_t why_size)
{
	for (unsigned int i = 0; i < f->nr_when && i < FSP_MAP_MAX_CONDS; i++) {
		const struct probemap_when *w = &f->when[i];
		struct fsp_map_cond *c = &out->conds[i];
		int err;

		c->op = cond_ops[w->op];
		if (w->outer >= 0) {
			c->type = FSP_COND_OUTER;
			c->outer = probemap_sites__feature_id(feature0 + w->outer);
		} else {
			err = build_part(m, f, path, kpath, site, &w->operand, out, &c->part, why,
					 why_size);
			if (err)
				return err;
			c->type = w->is_string ? FSP_COND_LABEL : FSP_COND_INT;
			c->is_signed = !w->is_string && !w->operand.nr_deref &&
				       site->spec.args[w->operand.arg].is_signed;
		}
		c->value = w->is_string
				   ? probemap_sites__label_id(w->value_text, strlen(w->value_text))
				   : (uint64_t)w->value;
		out->nr_conds++;
	}
	return 0;
}

int probemap_sites__build(const struct probemap *m, const struct probemap_feature *f, bool leave,
			  const char *path, const char *kpath, const struct usdt_site *site,
			  uint64_t feature_id, uint64_t outer_id, struct fsp_map_site *out,
			  char *why, size_t why_size)
{
	/* A leave reads the template only to match instances. */
	bool template = f->outer < 0 && (!leave || f->match_instance);
	/* the session's number of the map's first feature, for {outer:F} */
	uint64_t feature0 = (feature_id & ~(FSP_ID_SYNTH | FSP_ID_FEATURE)) - (f - m->features);
	int err;

	memset(out, 0, sizeof(*out));
	out->spec = site->spec;
	out->feature = feature_id;
	out->kind = f->kind == PROBEMAP_ANTIMARK ? FSP_FRAME_ANTIMARK : FSP_FRAME_MARK;
	if (f->outer >= 0 && !leave) {
		out->flags |= FSP_MAP_OUTER;
		out->outer = outer_id;
	}
	if (template) {
		for (unsigned int i = 0; i < f->nr_parts && i < FSP_MAP_MAX_PARTS; i++) {
			err = build_part(m, f, path, kpath, site, &f->parts[i], out, &out->parts[i],
					 why, why_size);
			if (err)
				return err;
			out->nr_parts++;
		}
		if (leave && f->match_instance)
			out->flags |= FSP_MAP_MATCH_INSTANCE;
	}
	if (leave)
		return 0;
	err = build_conds(m, f, path, kpath, site, feature0, out, why, why_size);
	if (err)
		return err;
	if (f->point)
		out->flags |= FSP_MAP_POINT;
	if (f->unframed)
		out->flags |= FSP_MAP_UNFRAMED;
	if (f->label_sample)
		out->flags |= FSP_MAP_SAMPLE;
	if (f->charge[0]) {
		size_t n = strlen(f->charge);

		out->flags |= FSP_MAP_CHARGE;
		out->charge_prefix = f->charge[n - 1] == '*';
		out->charge_len = n - out->charge_prefix;
		memcpy(out->charge_pat, f->charge, out->charge_len);
	}
	if (f->frame_caller) {
		int64_t off;

		if (usdt__cfa_offset(kpath, site->vaddr, &off) || off < 8) {
			snprintf(why, why_size,
				 "%s:%u: feature %s has \"frame caller\", but the call frame of "
				 "%s:%s at 0x%llx in %s is unknown (no rsp-based .eh_frame entry)",
				 m->path ? m->path : m->name, f->line, f->name, site->provider,
				 site->name, (unsigned long long)site->vaddr, path);
			return -EINVAL;
		}
		out->sp_off = off;
	}
	if (f->payload_arg >= 0) {
		err = need_arg(m, f, site, f->payload_arg, why, why_size);
		if (err)
			return err;
		out->flags |= FSP_MAP_PAYLOAD;
		out->payload_arg = f->payload_arg;
	}
	return 0;
}
