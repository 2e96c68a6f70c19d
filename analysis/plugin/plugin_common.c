// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* What the built-in plug-ins share (plugin_builtin.h). */
#include <stdlib.h>
#include <string.h>

#include "plugin_builtin.h"
#include "report_view.h"
#include "util.h"

int pl_cost_cmp(const struct pl_cost *a, const struct pl_cost *b, uint64_t period_ns)
{
	int c = fsp_cmp_u64(report_charged_ns(b->samples, b->offcpu_ns, period_ns),
			    report_charged_ns(a->samples, a->offcpu_ns, period_ns));

	return c ? c : fsp_cmp_u64(b->samples, a->samples);
}

struct pl_cost *pl_stack_costs(const struct fsp_plugin_host *h, const struct fsp_plugin_profile *p,
			       const struct fsp_plugin_info *info)
{
	struct pl_cost *c = calloc(info->nr_stacks ? info->nr_stacks : 1, sizeof(*c));
	struct fsp_plugin_sample s;
	size_t n = h->nr_samples(p);

	if (!c)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (!h->sample(p, i, &s) && s.stack < info->nr_stacks)
			pl_cost_add(&c[s.stack], s.count, s.offcpu_ns);
	return c;
}

void pl_json_cost(const struct fsp_plugin_host *h, struct fsp_plugin_json *j, const char *prefix,
		  const struct pl_cost *c, const struct fsp_plugin_info *info)
{
	static const char *const names[] = {"samples", "time_ms", "pct", "offcpu_ns"};
	char key[4][48];

	for (int i = 0; i < 4; i++)
		snprintf(key[i], sizeof(key[i]), "%s%s", prefix, names[i]);
	h->json_key(j, key[0]);
	h->json_u64(j, c->samples);
	h->json_key(j, key[1]);
	h->json_real(j, report_ms(c->samples, info->period_ns));
	h->json_key(j, key[2]);
	h->json_real(j, report_pct(c->samples, info->total_samples));
	h->json_key(j, key[3]);
	h->json_u64(j, c->offcpu_ns);
}

void pl_text_cost(FILE *out, const char *lead, uint64_t samples, const struct fsp_plugin_info *info)
{
	fprintf(out, "%s%10.1f %6.2f%%", lead, report_ms(samples, info->period_ns),
		report_pct(samples, info->total_samples));
}
