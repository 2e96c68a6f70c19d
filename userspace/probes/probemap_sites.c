// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "probemap_sites.h"

_Static_assert(FSP_MAP_MAX_PARTS == PROBEMAP_MAX_PARTS, "profiler.h and probemap.h disagree");
_Static_assert(PROBEMAP_LIT_LEN < FSP_MAP_LIT_LEN, "a literal part must fit the BPF side");
_Static_assert(PROBEMAP_MAX_ARG < FSP_USDT_MAX_ARGS, "argument numbers must fit the BPF side");

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
		       const struct probemap_part *p, struct fsp_map_part *q, char *why,
		       size_t why_size)
{
	uint64_t vaddr;

	if (usdt__symbol(path, p->sym, &vaddr)) {
		snprintf(why, why_size,
			 "%s:%u: feature %s reads the global %s, which %s does not define",
			 m->path ? m->path : m->name, f->line, f->name, p->sym, path);
		return -EINVAL;
	}
	q->type = FSP_PART_GLOBAL;
	q->addr = vaddr;
	return 0;
}

int probemap_sites__build(const struct probemap *m, const struct probemap_feature *f, bool leave,
			  const char *path, const struct usdt_site *site, uint64_t feature_id,
			  uint64_t outer_id, struct fsp_map_site *out, char *why, size_t why_size)
{
	/* A leave reads the template only to match instances. */
	bool template = f->outer < 0 && (!leave || f->match_instance);
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
			const struct probemap_part *p = &f->parts[i];
			struct fsp_map_part *q = &out->parts[i];

			switch (p->type) {
			case PROBEMAP_PART_LIT:
				q->type = FSP_PART_LIT;
				q->len = p->len < PROBEMAP_LIT_LEN ? p->len : PROBEMAP_LIT_LEN;
				memcpy(q->lit, p->lit, q->len);
				break;
			case PROBEMAP_PART_STR:
			case PROBEMAP_PART_INT:
				err = need_arg(m, f, site, p->arg, why, why_size);
				if (err)
					return err;
				q->type =
					p->type == PROBEMAP_PART_STR ? FSP_PART_STR : FSP_PART_INT;
				q->arg = p->arg;
				break;
			case PROBEMAP_PART_GLOBAL:
				err = global_part(m, f, path, p, q, why, why_size);
				if (err)
					return err;
				/* The load bias: where the site is now minus here. */
				out->site_vaddr = site->vaddr;
				break;
			}
			out->nr_parts++;
		}
		if (leave && f->match_instance)
			out->flags |= FSP_MAP_MATCH_INSTANCE;
	}
	if (f->frame_caller && !leave) {
		int64_t off;

		if (usdt__cfa_offset(path, site->vaddr, &off) || off < 8) {
			snprintf(why, why_size,
				 "%s:%u: feature %s has \"frame caller\", but the call frame of "
				 "%s:%s at 0x%llx in %s is unknown (no rsp-based .eh_frame entry)",
				 m->path ? m->path : m->name, f->line, f->name, site->provider,
				 site->name, (unsigned long long)site->vaddr, path);
			return -EINVAL;
		}
		out->sp_off = off;
	}
	if (f->payload_arg >= 0 && !leave) {
		err = need_arg(m, f, site, f->payload_arg, why, why_size);
		if (err)
			return err;
		out->flags |= FSP_MAP_PAYLOAD;
		out->payload_arg = f->payload_arg;
	}
	return 0;
}
