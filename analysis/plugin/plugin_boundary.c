// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The boundary plug-in (docs/plugins.md): the cost of checks at component
 * boundaries, like the contract plug-in of the FSP paper (section 5.2).
 *
 * Convention (usdt/README.md): a check's mark has the instance label
 * "CLIENT->SERVER" or "CLIENT->SERVER:CHECK": the component that calls,
 * the component called, and optionally what is checked; the payload is not
 * read. Each core sample is charged by the attribution rule (the top-most
 * frame of the feature: a mark charges its instance, an antimark nothing),
 * so a check nested in another charges the inner one. The report: each
 * boundary (an edge CLIENT -> SERVER) with the cost of its checks, each
 * check under it, each component with the checking on its boundaries, and
 * a graph of the components (--format dot). The event view's exact counts
 * give the calls and the time per call where the session recorded them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hashmap.h"
#include "plugin_builtin.h"
#include "rowtab.h"
#include "strtab.h"
#include "util.h"

#define BND_LABEL_LEN 512

/* One instance label of the feature. */
struct bnd_inst {
	const char *label; /* the profile's; NULL: marks without an instance */
	struct pl_cost cost;
	uint64_t calls, event_ns; /* the event view */
};

struct bnd_check {
	const char *what; /* interned in names; NULL: none given */
	struct pl_cost cost;
	uint64_t calls, event_ns;
};

struct bnd_edge {
	const char *client, *server; /* interned in names */
	struct pl_cost cost;
	uint64_t calls, event_ns;
	struct bnd_check *checks;
	size_t nr_checks, cap_checks;
};

struct bnd_node {
	const char *name;
	struct pl_cost as_client, as_server;
};

struct bnd_state {
	struct fsp_plugin_info info;
	double min_pct;
	bool has_events;
	struct pl_cost charged; /* charged to the feature */
	struct strtab *names;
	struct bnd_inst *inst;
	size_t nr_inst, cap_inst;
	struct hashmap inst_map; /* (label pointer, 0) */
	struct bnd_edge *edges;
	size_t nr_edges, cap_edges;
	struct hashmap edge_map; /* (client, server) */
	struct hashmap check_map; /* (edge index, what) */
	struct bnd_node *nodes;
	size_t nr_nodes, cap_nodes;
	struct hashmap node_map; /* (name, 0) */
	size_t *other; /* instances whose label is not CLIENT->SERVER */
	size_t nr_other;
};

static void bnd_release(void *state)
{
	struct bnd_state *st = state;

	if (!st)
		return;
	for (size_t i = 0; i < st->nr_edges; i++)
		free(st->edges[i].checks);
	free(st->edges);
	free(st->inst);
	free(st->nodes);
	free(st->other);
	hashmap__fini(&st->inst_map);
	hashmap__fini(&st->edge_map);
	hashmap__fini(&st->check_map);
	hashmap__fini(&st->node_map);
	strtab__free(st->names);
	free(st);
}

static struct bnd_inst *inst_row(struct bnd_state *st, const char *label)
{
	struct rowtab t = ROWTAB(&st->inst_map, st->inst, st->nr_inst, st->cap_inst);
	size_t i;
	int r = rowtab__find_or_add(&t, (uintptr_t)label, 0, &i);

	if (r < 0)
		return NULL;
	if (!r)
		st->inst[i].label = label;
	return &st->inst[i];
}

/* The cost of each instance: core samples by the attribution rule, calls
 * from the event view. */
static int gather_instances(struct bnd_state *st, const struct fsp_plugin_host *h,
			    const struct fsp_plugin_profile *p, const char *feature)
{
	struct pl_cost *costs = pl_stack_costs(h, p, &st->info);
	const struct fsp_plugin_charge *c;
	struct fsp_plugin_events e;
	struct bnd_inst *in;
	int err = 0;

	if (!costs)
		return -ENOMEM;
	for (size_t i = 0; i < st->info.nr_stacks && !err; i++) {
		if (!costs[i].samples && !costs[i].offcpu_ns)
			continue;
		if (!(c = pl_charge(h, p, i, feature)))
			continue;
		if (!(in = inst_row(st, c->instance))) {
			err = -ENOMEM;
			break;
		}
		pl_cost_add(&in->cost, costs[i].samples, costs[i].offcpu_ns);
		pl_cost_add(&st->charged, costs[i].samples, costs[i].offcpu_ns);
	}
	free(costs);
	for (size_t i = 0; i < h->nr_events(p) && !err; i++) {
		if (h->event(p, i, &e) || e.feature != feature)
			continue;
		if (!(in = inst_row(st, e.instance))) {
			err = -ENOMEM;
			break;
		}
		in->calls += e.enters;
		in->event_ns += e.total_ns;
		st->has_events = true;
	}
	return err;
}

/* The len bytes at s without surrounding blanks, interned (NULL if empty). */
static const char *intern_trim(struct bnd_state *st, const char *s, size_t len, int *err)
{
	const char *r;

	while (len && (*s == ' ' || *s == '\t'))
		s++, len--;
	while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
		len--;
	if (!len)
		return NULL;
	r = strtab__intern_len(st->names, s, len, NULL);
	if (!r)
		*err = -ENOMEM;
	return r;
}

static struct bnd_node *node_row(struct bnd_state *st, const char *name, int *err)
{
	struct rowtab t = ROWTAB(&st->node_map, st->nodes, st->nr_nodes, st->cap_nodes);
	size_t i;
	int r = rowtab__find_or_add(&t, (uintptr_t)name, 0, &i);

	if (r < 0) {
		*err = r;
		return NULL;
	}
	if (!r)
		st->nodes[i].name = name;
	return &st->nodes[i];
}

/* Adds instance `in` to edge (client, server) and its check `what`. */
static int add_to_edge(struct bnd_state *st, const char *client, const char *server,
		       const char *what, const struct bnd_inst *in)
{
	struct rowtab t = ROWTAB(&st->edge_map, st->edges, st->nr_edges, st->cap_edges), ct;
	struct bnd_edge *e;
	struct bnd_node *n;
	size_t ei, ci;
	int r = rowtab__find_or_add(&t, (uintptr_t)client, (uintptr_t)server, &ei);

	if (r < 0)
		return r;
	e = &st->edges[ei];
	e->client = client;
	e->server = server;
	ct = (struct rowtab)ROWTAB(&st->check_map, e->checks, e->nr_checks, e->cap_checks);
	r = rowtab__find_or_add(&ct, ei, (uintptr_t)what, &ci);
	if (r < 0)
		return r;
	e->checks[ci].what = what;
	pl_cost_add(&e->checks[ci].cost, in->cost.samples, in->cost.offcpu_ns);
	e->checks[ci].calls += in->calls;
	e->checks[ci].event_ns += in->event_ns;
	pl_cost_add(&e->cost, in->cost.samples, in->cost.offcpu_ns);
	e->calls += in->calls;
	e->event_ns += in->event_ns;
	r = 0;
	if ((n = node_row(st, client, &r)))
		pl_cost_add(&n->as_client, in->cost.samples, in->cost.offcpu_ns);
	if (!r && (n = node_row(st, server, &r)))
		pl_cost_add(&n->as_server, in->cost.samples, in->cost.offcpu_ns);
	return r;
}

/* Splits each label "CLIENT->SERVER[:CHECK]" into its edge and check. */
static int build_edges(struct bnd_state *st)
{
	int err = 0;

	st->other = calloc(st->nr_inst ? st->nr_inst : 1, sizeof(*st->other));
	if (!st->other)
		return -ENOMEM;
	for (size_t i = 0; i < st->nr_inst && !err; i++) {
		const struct bnd_inst *in = &st->inst[i];
		const char *s = in->label, *arrow = s ? strstr(s, "->") : NULL;
		const char *client = NULL, *server = NULL, *what = NULL, *rest, *colon;

		if (arrow) {
			rest = arrow + 2;
			colon = strchr(rest, ':');
			client = intern_trim(st, s, (size_t)(arrow - s), &err);
			server = intern_trim(st, rest,
					     colon ? (size_t)(colon - rest) : strlen(rest), &err);
			if (colon)
				what = intern_trim(st, colon + 1, strlen(colon + 1), &err);
		}
		if (err)
			break;
		if (!client || !server)
			st->other[st->nr_other++] = i;
		else
			err = add_to_edge(st, client, server, what, in);
	}
	return err;
}

/* The orders: descending cost, then by name (qsort_r's context: the state). */
static int cmp_check(const void *x, const void *y, void *ctx)
{
	const struct bnd_check *a = x, *b = y;
	const struct bnd_state *st = ctx;
	int c = pl_cost_cmp(&a->cost, &b->cost, st->info.period_ns);

	return c ? c : strcmp(a->what ? a->what : "", b->what ? b->what : "");
}

static int cmp_edge(const void *x, const void *y, void *ctx)
{
	const struct bnd_edge *a = x, *b = y;
	const struct bnd_state *st = ctx;
	int c = pl_cost_cmp(&a->cost, &b->cost, st->info.period_ns);

	if (!c)
		c = strcmp(a->client, b->client);
	return c ? c : strcmp(a->server, b->server);
}

static int cmp_node(const void *x, const void *y, void *ctx)
{
	const struct bnd_node *a = x, *b = y;
	const struct bnd_state *st = ctx;
	struct pl_cost ca = a->as_client, cb = b->as_client;
	int c;

	pl_cost_add(&ca, a->as_server.samples, a->as_server.offcpu_ns);
	pl_cost_add(&cb, b->as_server.samples, b->as_server.offcpu_ns);
	c = pl_cost_cmp(&ca, &cb, st->info.period_ns);
	return c ? c : strcmp(a->name, b->name);
}

static int cmp_other(const void *x, const void *y, void *ctx)
{
	const struct bnd_state *st = ctx;
	const struct bnd_inst *a = &st->inst[*(const size_t *)x];
	const struct bnd_inst *b = &st->inst[*(const size_t *)y];
	int c = pl_cost_cmp(&a->cost, &b->cost, st->info.period_ns);

	return c ? c : strcmp(a->label ? a->label : "", b->label ? b->label : "");
}

static void sort_all(struct bnd_state *st)
{
	for (size_t i = 0; i < st->nr_edges; i++)
		pl_sort(st->edges[i].checks, st->edges[i].nr_checks, sizeof(struct bnd_check),
			cmp_check, st);
	pl_sort(st->edges, st->nr_edges, sizeof(*st->edges), cmp_edge, st);
	pl_sort(st->nodes, st->nr_nodes, sizeof(*st->nodes), cmp_node, st);
	pl_sort(st->other, st->nr_other, sizeof(*st->other), cmp_other, st);
}

/* The node map again, for the sorted nodes (the graph finds them by name). */
static int remap_nodes(struct bnd_state *st)
{
	hashmap__fini(&st->node_map);
	for (size_t i = 0; i < st->nr_nodes; i++)
		if (hashmap__find_or_insert(&st->node_map, (uintptr_t)st->nodes[i].name, 0, i,
					    NULL) < 0)
			return -ENOMEM;
	return 0;
}

static int bnd_analyze(const struct fsp_plugin_host *h, const struct fsp_plugin_profile *p,
		       const struct fsp_plugin_args *args, void **state)
{
	struct bnd_state *st = calloc(1, sizeof(*st));
	int err;

	if (!st || !(st->names = strtab__new())) {
		free(st);
		return -ENOMEM;
	}
	st->inst_map = st->edge_map = st->check_map = st->node_map = (struct hashmap)HASHMAP_INIT;
	h->info(p, &st->info);
	st->min_pct = args->min_pct;
	err = gather_instances(st, h, p, args->feature);
	if (!err)
		err = build_edges(st);
	if (err) {
		bnd_release(st);
		return err;
	}
	sort_all(st);
	err = remap_nodes(st);
	if (err) {
		bnd_release(st);
		return err;
	}
	*state = st;
	return 0;
}

/* ---- text ---- */

/* The columns of one row, then the label indented. */
static void text_row(FILE *out, const struct bnd_state *st, const struct pl_cost *c, uint64_t calls,
		     uint64_t event_ns, const char *label, int indent)
{
	pl_text_cost(out, "  ", c->samples, &st->info);
	fprintf(out, " %9llu", (unsigned long long)c->samples);
	if (st->info.total_offcpu_ns)
		fprintf(out, " %10.1f", (double)c->offcpu_ns / 1e6);
	if (st->has_events && calls)
		fprintf(out, " %9llu %9.1f", (unsigned long long)calls,
			(double)event_ns / 1e3 / (double)calls);
	else if (st->has_events)
		fprintf(out, " %9s %9s", "", "");
	fprintf(out, "   %*s%s\n", indent, "", label);
}

static void text_header(FILE *out, const struct bnd_state *st, const char *what)
{
	fprintf(out, "  %10s %7s %9s", "ms", "%", "samples");
	if (st->info.total_offcpu_ns)
		fprintf(out, " %10s", "off-CPU ms");
	if (st->has_events)
		fprintf(out, " %9s %9s", "calls", "us/call");
	fprintf(out, "   %s\n", what);
}

/* "(N more X below P%)" where the labels of text_row start. */
static void text_folded(FILE *out, const struct bnd_state *st, size_t n, const char *one,
			const char *many, int indent)
{
	int width = 18 + 10 + (st->info.total_offcpu_ns ? 11 : 0) + (st->has_events ? 20 : 0);

	if (n)
		fprintf(out, "  %*s   %*s(%zu more %s below %g%%)\n", width, "", indent, "", n,
			n == 1 ? one : many, st->min_pct);
}

static void text_edge(FILE *out, const struct fsp_plugin_host *h, const struct bnd_state *st,
		      const struct bnd_edge *e)
{
	char a[BND_LABEL_LEN], b[BND_LABEL_LEN], line[2 * BND_LABEL_LEN + 8];
	size_t folded = 0;

	h->text_escape(a, sizeof(a), e->client);
	h->text_escape(b, sizeof(b), e->server);
	snprintf(line, sizeof(line), "%s -> %s", a, b);
	text_row(out, st, &e->cost, e->calls, e->event_ns, line, 0);
	if (e->nr_checks == 1 && !e->checks[0].what)
		return; /* no checks named: the edge says it all */
	for (size_t k = 0; k < e->nr_checks; k++) {
		const struct bnd_check *c = &e->checks[k];

		if (pl_below(c->cost.samples, st->info.total_samples, st->min_pct) &&
		    (c->cost.samples || !c->calls)) {
			folded++;
			continue;
		}
		h->text_escape(a, sizeof(a), c->what ? c->what : "(no check named)");
		text_row(out, st, &c->cost, c->calls, c->event_ns, a, 4);
	}
	text_folded(out, st, folded, "check", "checks", 4);
}

static void text_components(FILE *out, const struct fsp_plugin_host *h, const struct bnd_state *st)
{
	char name[BND_LABEL_LEN];

	fprintf(out, "\n  Components: checking of calls into each (as server) and out of it "
		     "(as client)\n");
	fprintf(out, "  %10s %7s %10s %7s   %s\n", "server ms", "%", "client ms", "%", "component");
	for (size_t i = 0; i < st->nr_nodes; i++) {
		const struct bnd_node *n = &st->nodes[i];

		h->text_escape(name, sizeof(name), n->name);
		pl_text_cost(out, "  ", n->as_server.samples, &st->info);
		pl_text_cost(out, " ", n->as_client.samples, &st->info);
		fprintf(out, "   %s\n", name);
	}
}

static int bnd_text(const struct fsp_plugin_host *h, const struct fsp_plugin_profile *p,
		    void *state, FILE *out)
{
	const struct bnd_state *st = state;
	char label[BND_LABEL_LEN];
	size_t folded = 0;

	(void)p;
	fprintf(out,
		"  Checks take %.2f%% of running time (%.1f ms, %llu samples) on %zu boundar%s "
		"between %zu components\n",
		report_pct(st->charged.samples, st->info.total_samples),
		report_ms(st->charged.samples, st->info.period_ns),
		(unsigned long long)st->charged.samples, st->nr_edges,
		st->nr_edges == 1 ? "y" : "ies", st->nr_nodes);
	if (st->nr_edges)
		text_header(out, st, "boundary (client -> server), its checks below it");
	for (size_t i = 0; i < st->nr_edges; i++) {
		if (pl_below(st->edges[i].cost.samples, st->info.total_samples, st->min_pct) &&
		    (st->edges[i].cost.samples || !st->edges[i].calls))
			folded++;
		else
			text_edge(out, h, st, &st->edges[i]);
	}
	text_folded(out, st, folded, "boundary", "boundaries", 0);
	if (st->nr_other) {
		fprintf(out,
			"\n  Marks whose label is not CLIENT->SERVER[:CHECK] (usdt/README.md):\n");
		for (size_t i = 0; i < st->nr_other; i++) {
			const struct bnd_inst *in = &st->inst[st->other[i]];

			h->text_escape(label, sizeof(label),
				       in->label ? in->label : "(no instance)");
			text_row(out, st, &in->cost, in->calls, in->event_ns, label, 0);
		}
	}
	if (st->nr_nodes)
		text_components(out, h, st);
	return 0;
}

/* ---- JSON ---- */

static void json_calls(const struct fsp_plugin_host *h, struct fsp_plugin_json *j,
		       const struct bnd_state *st, uint64_t calls, uint64_t event_ns)
{
	h->json_key(j, "calls");
	if (st->has_events)
		h->json_u64(j, calls);
	else
		h->json_null(j);
	h->json_key(j, "event_ns");
	if (st->has_events)
		h->json_u64(j, event_ns);
	else
		h->json_null(j);
}

static void json_edge(const struct fsp_plugin_host *h, struct fsp_plugin_json *j,
		      const struct bnd_state *st, const struct bnd_edge *e)
{
	h->json_object_begin(j);
	h->json_key(j, "client");
	h->json_string(j, e->client);
	h->json_key(j, "server");
	h->json_string(j, e->server);
	pl_json_cost(h, j, "", &e->cost, &st->info);
	json_calls(h, j, st, e->calls, e->event_ns);
	h->json_key(j, "checks");
	h->json_array_begin(j);
	for (size_t k = 0; k < e->nr_checks; k++) {
		h->json_object_begin(j);
		h->json_key(j, "name");
		h->json_string(j, e->checks[k].what);
		pl_json_cost(h, j, "", &e->checks[k].cost, &st->info);
		json_calls(h, j, st, e->checks[k].calls, e->checks[k].event_ns);
		h->json_object_end(j);
	}
	h->json_array_end(j);
	h->json_object_end(j);
}

static int bnd_json(const struct fsp_plugin_host *h, const struct fsp_plugin_profile *p,
		    void *state, struct fsp_plugin_json *j)
{
	const struct bnd_state *st = state;

	(void)p;
	h->json_object_begin(j);
	pl_json_cost(h, j, "", &st->charged, &st->info);
	h->json_key(j, "edges");
	h->json_array_begin(j);
	for (size_t i = 0; i < st->nr_edges; i++)
		json_edge(h, j, st, &st->edges[i]);
	h->json_array_end(j);
	h->json_key(j, "components");
	h->json_array_begin(j);
	for (size_t i = 0; i < st->nr_nodes; i++) {
		h->json_object_begin(j);
		h->json_key(j, "name");
		h->json_string(j, st->nodes[i].name);
		pl_json_cost(h, j, "server_", &st->nodes[i].as_server, &st->info);
		pl_json_cost(h, j, "client_", &st->nodes[i].as_client, &st->info);
		h->json_object_end(j);
	}
	h->json_array_end(j);
	h->json_key(j, "other");
	h->json_array_begin(j);
	for (size_t i = 0; i < st->nr_other; i++) {
		const struct bnd_inst *in = &st->inst[st->other[i]];

		h->json_object_begin(j);
		h->json_key(j, "instance");
		h->json_string(j, in->label);
		pl_json_cost(h, j, "", &in->cost, &st->info);
		json_calls(h, j, st, in->calls, in->event_ns);
		h->json_object_end(j);
	}
	h->json_array_end(j);
	h->json_object_end(j);
	return 0;
}

/* ---- DOT ---- */

static size_t node_index(const struct bnd_state *st, const char *name)
{
	uint64_t i = 0;

	hashmap__find(&st->node_map, (uintptr_t)name, 0, &i);
	return (size_t)i;
}

/* Node `name` of the graph, written the first time an edge draws it. */
static void dot_node(const struct fsp_plugin_host *h, const struct bnd_state *st, FILE *out,
		     const char *name, bool *drawn)
{
	size_t i = node_index(st, name);

	if (drawn[i])
		return;
	drawn[i] = true;
	fprintf(out, "  n%zu [label=\"", i);
	h->dot_escape(out, name);
	fprintf(out, "\"];\n");
}

static int bnd_dot(const struct fsp_plugin_host *h, const struct fsp_plugin_profile *p, void *state,
		   FILE *out)
{
	const struct bnd_state *st = state;
	bool *drawn_nodes = calloc(st->nr_nodes + 1, sizeof(*drawn_nodes));
	uint64_t max = 1;
	size_t drawn = 0;

	(void)p;
	if (!drawn_nodes)
		return -ENOMEM;
	for (size_t i = 0; i < st->nr_edges; i++)
		if (st->edges[i].cost.samples > max)
			max = st->edges[i].cost.samples;
	fprintf(out,
		"digraph boundary {\n"
		"  graph [rankdir=LR, labelloc=t, fontname=\"Helvetica\", label=\"checks at "
		"component boundaries: %.2f%% of running time (%.1f ms)\"];\n"
		"  node [shape=box, style=\"rounded,filled\", fillcolor=\"#e8eef7\", "
		"fontname=\"Helvetica\"];\n"
		"  edge [fontname=\"Helvetica\", fontsize=10];\n",
		report_pct(st->charged.samples, st->info.total_samples),
		report_ms(st->charged.samples, st->info.period_ns));
	for (size_t i = 0; i < st->nr_edges; i++) {
		const struct bnd_edge *e = &st->edges[i];

		if (pl_below(e->cost.samples, st->info.total_samples, st->min_pct))
			continue;
		dot_node(h, st, out, e->client, drawn_nodes);
		dot_node(h, st, out, e->server, drawn_nodes);
		drawn++;
		fprintf(out, "  n%zu -> n%zu [label=\"%.1f ms\\n%.2f%%\", penwidth=%.2f];\n",
			node_index(st, e->client), node_index(st, e->server),
			report_ms(e->cost.samples, st->info.period_ns),
			report_pct(e->cost.samples, st->info.total_samples),
			1.0 + 4.0 * (double)e->cost.samples / (double)max);
	}
	if (drawn < st->nr_edges)
		fprintf(out,
			"  folded [shape=plaintext, style=\"\", label=\"%zu boundar%s below "
			"%g%% not drawn\"];\n",
			st->nr_edges - drawn, st->nr_edges - drawn == 1 ? "y" : "ies", st->min_pct);
	fprintf(out, "}\n");
	free(drawn_nodes);
	return 0;
}

const struct fsp_plugin plugin_boundary = {
	.abi_version = FSP_PLUGIN_ABI_VERSION,
	.size = sizeof(struct fsp_plugin),
	.name = "boundary",
	.summary = "the cost of checks on each boundary between components (labels "
		   "CLIENT->SERVER[:CHECK])",
	.feature = "contract",
	.analyze = bnd_analyze,
	.render_text = bnd_text,
	.render_json = bnd_json,
	.render_dot = bnd_dot,
	.release = bnd_release,
};
