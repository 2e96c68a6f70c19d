// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The tasks plug-in (docs/plugins.md): the cost of each task of a task or
 * actor runtime, like the Marketplace plug-in of the FSP paper (section
 * 5.2): self and inclusive, over the tree of tasks.
 *
 * Convention (usdt/README.md): the runtime marks a task's run with the
 * task's id as payload (unique within its process) and its kind or name
 * as instance label, and runs a task's children inside the parent's run,
 * so that a core sample holds the task and all its ancestors. Per core
 * sample charged to the feature (its top-most frame of the feature is a
 * mark):
 *   - self: the top-most task;
 *   - inclusive: every task of the sample's ancestry, each once however
 *     often it appears (a task that re-enters itself is not counted twice);
 *   - edges (parent -> child, consecutive tasks of the ancestry), each once:
 *     edge profiling, which splits a task's inclusive time among its
 *     children;
 *   - kinds (labels): self by the top-most task's kind, inclusive once per
 *     kind (a recursive kind counts once).
 * Antimarks of the feature between tasks are skipped in the ancestry.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hashmap.h"
#include "plugin_builtin.h"
#include "rowtab.h"
#include "util.h"

#define TK_LABEL_LEN 256
#define TK_MAX_LEVEL 64 /* deeper levels of the text tree are not shown */
#define TK_MAX_DOT_NODES 300 /* nodes a graph draws at most, the costliest */

struct tk_node {
	uint32_t source, pid;
	uint64_t id;
	const char *label; /* the instance of its first frame seen; NULL: none */
	size_t kind;
	struct pl_cost self, total;
	size_t nr_parents;
	size_t first_child, nr_children; /* into tk_state.children */
	size_t rank; /* position in tk_state.order */
	uint64_t stamp; /* the last stack counted (id + 1) */
	bool printed, on_path; /* text rendering */
};

struct tk_edge {
	size_t parent, child;
	struct pl_cost cost;
	uint64_t stamp;
};

struct tk_kind {
	const char *label;
	size_t tasks;
	struct pl_cost self, total;
	uint64_t stamp;
};

struct tk_state {
	struct fsp_plugin_info info;
	double min_pct;
	struct pl_cost charged;
	struct tk_node *nodes;
	size_t nr_nodes, cap_nodes;
	struct hashmap node_map; /* ((source, pid) key, id) */
	struct tk_edge *edges;
	size_t nr_edges, cap_edges;
	struct hashmap edge_map; /* (parent, child) */
	struct tk_kind *kinds;
	size_t nr_kinds, cap_kinds;
	struct hashmap kind_map; /* (label, 0) */
	size_t *order; /* nodes by descending inclusive cost */
	size_t *children; /* edge indices by parent, each parent's by descending cost */
	size_t *kind_order;
	size_t *chain; /* scratch: the nodes of one ancestry */
	size_t cap_chain;
};

static void tk_release(void *state)
{
	struct tk_state *st = state;

	if (!st)
		return;
	free(st->nodes);
	free(st->edges);
	free(st->kinds);
	free(st->order);
	free(st->children);
	free(st->kind_order);
	free(st->chain);
	hashmap__fini(&st->node_map);
	hashmap__fini(&st->edge_map);
	hashmap__fini(&st->kind_map);
	free(st);
}

static int kind_of(struct tk_state *st, const char *label, size_t *out)
{
	struct rowtab t = ROWTAB(&st->kind_map, st->kinds, st->nr_kinds, st->cap_kinds);
	int r = rowtab__find_or_add(&t, (uintptr_t)label, 0, out);

	if (r < 0)
		return r;
	if (!r)
		st->kinds[*out].label = label;
	return 0;
}

/* The node of task `id` of process (source, pid), created when new. */
static int node_of(struct tk_state *st, uint32_t source, uint32_t pid,
		   const struct fsp_plugin_frame *f, size_t *out)
{
	struct rowtab t = ROWTAB(&st->node_map, st->nodes, st->nr_nodes, st->cap_nodes);
	uint64_t pkey = (uint64_t)source << 32 | pid;
	struct tk_node *n;
	int r = rowtab__find_or_add(&t, pkey, f->payload, out);

	if (r < 0 || r == 1)
		return r < 0 ? r : 0;
	n = &st->nodes[*out];
	n->source = source;
	n->pid = pid;
	n->id = f->payload;
	n->label = f->instance;
	r = kind_of(st, f->instance, &n->kind);
	if (!r)
		st->kinds[n->kind].tasks++;
	return r;
}

static int edge_of(struct tk_state *st, size_t parent, size_t child, size_t *out)
{
	struct rowtab t = ROWTAB(&st->edge_map, st->edges, st->nr_edges, st->cap_edges);
	int r = rowtab__find_or_add(&t, parent, child, out);

	if (r < 0)
		return r;
	if (!r) {
		st->edges[*out].parent = parent;
		st->edges[*out].child = child;
		st->nodes[parent].nr_children++;
		st->nodes[child].nr_parents++;
	}
	return 0;
}

/* The ancestry of stack s (its marks of the feature, bottom..top) into
 * st->chain; returns its length. */
static int chain_of(struct tk_state *st, const struct fsp_plugin_stack *s, const char *feature,
		    size_t *n)
{
	int err = fsp_grow((void **)&st->chain, &st->cap_chain, s->depth, sizeof(*st->chain));

	*n = 0;
	for (size_t k = 0; k < s->depth && !err; k++)
		if (s->frames[k].feature == feature && s->frames[k].kind == FSP_PLUGIN_MARK)
			err = node_of(st, s->source, s->pid, &s->frames[k], &st->chain[(*n)++]);
	return err;
}

/* Charges stack s (its id + 1: stamp) of cost c along its ancestry. */
static int charge_stack(struct tk_state *st, const struct fsp_plugin_stack *s, uint64_t stamp,
			const struct pl_cost *c, const char *feature)
{
	size_t n, e;
	int err = chain_of(st, s, feature, &n);

	for (size_t k = 0; k < n && !err; k++) {
		struct tk_node *node = &st->nodes[st->chain[k]];

		if (node->stamp != stamp) {
			node->stamp = stamp;
			pl_cost_add(&node->total, c->samples, c->offcpu_ns);
		}
		if (st->kinds[node->kind].stamp != stamp) {
			st->kinds[node->kind].stamp = stamp;
			pl_cost_add(&st->kinds[node->kind].total, c->samples, c->offcpu_ns);
		}
		if (!k || st->chain[k - 1] == st->chain[k])
			continue; /* a task directly inside itself is no edge */
		err = edge_of(st, st->chain[k - 1], st->chain[k], &e);
		if (!err && st->edges[e].stamp != stamp) {
			st->edges[e].stamp = stamp;
			pl_cost_add(&st->edges[e].cost, c->samples, c->offcpu_ns);
		}
	}
	if (!err && n) {
		struct tk_node *top = &st->nodes[st->chain[n - 1]];

		pl_cost_add(&top->self, c->samples, c->offcpu_ns);
		pl_cost_add(&st->kinds[top->kind].self, c->samples, c->offcpu_ns);
		pl_cost_add(&st->charged, c->samples, c->offcpu_ns);
	}
	return err;
}

/* The orders (qsort_r's context: the state). */
static int cmp_node(const void *x, const void *y, void *ctx)
{
	const struct tk_state *st = ctx;
	const struct tk_node *a = &st->nodes[*(const size_t *)x];
	const struct tk_node *b = &st->nodes[*(const size_t *)y];
	int c = pl_cost_cmp(&a->total, &b->total, st->info.period_ns);

	if (!c)
		c = pl_cost_cmp(&a->self, &b->self, st->info.period_ns);
	if (!c)
		c = fsp_cmp_u64((uint64_t)a->source << 32 | a->pid,
				(uint64_t)b->source << 32 | b->pid);
	return c ? c : fsp_cmp_u64(a->id, b->id);
}

/* Edges grouped by parent (in node order), each group by descending cost. */
static int cmp_child(const void *x, const void *y, void *ctx)
{
	const struct tk_state *st = ctx;
	const struct tk_edge *a = &st->edges[*(const size_t *)x];
	const struct tk_edge *b = &st->edges[*(const size_t *)y];
	int c = fsp_cmp_u64(st->nodes[a->parent].rank, st->nodes[b->parent].rank);

	if (!c)
		c = pl_cost_cmp(&a->cost, &b->cost, st->info.period_ns);
	return c ? c : fsp_cmp_u64(st->nodes[a->child].rank, st->nodes[b->child].rank);
}

static int cmp_kind(const void *x, const void *y, void *ctx)
{
	const struct tk_state *st = ctx;
	const struct tk_kind *a = &st->kinds[*(const size_t *)x];
	const struct tk_kind *b = &st->kinds[*(const size_t *)y];
	int c = pl_cost_cmp(&a->total, &b->total, st->info.period_ns);

	return c ? c : strcmp(a->label ? a->label : "", b->label ? b->label : "");
}

static int sort_all(struct tk_state *st)
{
	size_t i, n = 0;

	st->order = calloc(st->nr_nodes + 1, sizeof(*st->order));
	st->children = calloc(st->nr_edges + 1, sizeof(*st->children));
	st->kind_order = calloc(st->nr_kinds + 1, sizeof(*st->kind_order));
	if (!st->order || !st->children || !st->kind_order)
		return -ENOMEM;
	for (i = 0; i < st->nr_nodes; i++)
		st->order[i] = i;
	pl_sort(st->order, st->nr_nodes, sizeof(*st->order), cmp_node, st);
	for (i = 0; i < st->nr_nodes; i++)
		st->nodes[st->order[i]].rank = i;
	for (i = 0; i < st->nr_edges; i++)
		st->children[i] = i;
	pl_sort(st->children, st->nr_edges, sizeof(*st->children), cmp_child, st);
	for (i = 0; i < st->nr_edges; i++) {
		struct tk_node *par = &st->nodes[st->edges[st->children[i]].parent];

		if (!i ||
		    st->edges[st->children[i - 1]].parent != st->edges[st->children[i]].parent)
			par->first_child = i;
	}
	for (i = 0; i < st->nr_kinds; i++)
		st->kind_order[n++] = i;
	pl_sort(st->kind_order, n, sizeof(*st->kind_order), cmp_kind, st);
	return 0;
}

static int tk_analyze(const struct fsp_plugin_host *h, const struct fsp_plugin_profile *p,
		      const struct fsp_plugin_args *args, void **state)
{
	struct tk_state *st = calloc(1, sizeof(*st));
	struct pl_cost *costs = NULL;
	struct fsp_plugin_stack s;
	int err = st ? 0 : -ENOMEM;

	if (!err) {
		st->node_map = st->edge_map = st->kind_map = (struct hashmap)HASHMAP_INIT;
		h->info(p, &st->info);
		st->min_pct = args->min_pct;
		costs = pl_stack_costs(h, p, &st->info);
		err = costs ? 0 : -ENOMEM;
	}
	for (size_t i = 0; !err && i < st->info.nr_stacks; i++) {
		if ((!costs[i].samples && !costs[i].offcpu_ns) ||
		    !pl_charge(h, p, i, args->feature) || h->stack(p, i, &s))
			continue;
		err = charge_stack(st, &s, i + 1, &costs[i], args->feature);
	}
	free(costs);
	if (!err)
		err = sort_all(st);
	if (err) {
		tk_release(st);
		return err;
	}
	*state = st;
	return 0;
}

/* ---- text ---- */

/* "kind#id" (escaped), prefixed by the process in a profile of several. */
static void task_name(const struct fsp_plugin_host *h, const struct fsp_plugin_profile *p,
		      const struct tk_state *st, const struct tk_node *n, char *buf, size_t size)
{
	char label[TK_LABEL_LEN], proc[64] = "";

	h->text_escape(label, sizeof(label), n->label ? n->label : "");
	if (st->info.nr_processes > 1) {
		char pname[48];

		h->process_name(p, n->source, n->pid, pname, sizeof(pname));
		h->text_escape(proc, sizeof(proc) - 3, pname);
		strcat(proc, ": ");
	}
	snprintf(buf, size, "%s%s#%llu", proc, label, (unsigned long long)n->id);
}

struct tk_text {
	const struct fsp_plugin_host *h;
	const struct fsp_plugin_profile *p;
	struct tk_state *st;
	FILE *out;
};

static void print_line(const struct tk_text *t, const struct tk_node *n, const struct tk_edge *via,
		       int level, const char *note)
{
	char name[TK_LABEL_LEN + 96];

	task_name(t->h, t->p, t->st, n, name, sizeof(name));
	pl_text_cost(t->out, "  ", n->total.samples, &t->st->info);
	pl_text_cost(t->out, " ", n->self.samples, &t->st->info);
	fprintf(t->out, "   %*s%s%s", 2 * (level < TK_MAX_LEVEL ? level : TK_MAX_LEVEL), "", name,
		note);
	/* a task with several parents: what it cost under this one */
	if (via && via->cost.samples != n->total.samples)
		fprintf(t->out, " [%.1f ms under this parent]",
			report_ms(via->cost.samples, t->st->info.period_ns));
	fputc('\n', t->out);
}

static void print_folded(const struct tk_text *t, size_t n, int level)
{
	if (n)
		fprintf(t->out, "  %37s   %*s(%zu more task%s below %g%%)\n", "",
			2 * (level < TK_MAX_LEVEL ? level : TK_MAX_LEVEL), "", n, n == 1 ? "" : "s",
			t->st->min_pct);
}

static void print_tree(const struct tk_text *t, size_t node, const struct tk_edge *via, int level)
{
	struct tk_node *n = &t->st->nodes[node];
	size_t folded = 0;

	if (n->printed || n->on_path) {
		print_line(t, n, via, level,
			   n->on_path ? " (recursive: see above)" : " (see above)");
		return;
	}
	print_line(t, n, via, level, "");
	n->printed = n->on_path = true;
	for (size_t i = 0; i < n->nr_children; i++) {
		const struct tk_edge *e = &t->st->edges[t->st->children[n->first_child + i]];

		if (pl_below(e->cost.samples, t->st->info.total_samples, t->st->min_pct))
			folded++;
		else if (level + 1 > 4 * TK_MAX_LEVEL)
			folded++; /* a pathological depth: the lines would be unreadable */
		else
			print_tree(t, e->child, e, level + 1);
	}
	print_folded(t, folded, level + 1);
	n->on_path = false;
}

static void print_kinds(const struct tk_text *t)
{
	const struct tk_state *st = t->st;
	char label[TK_LABEL_LEN];

	fprintf(t->out, "\n  By kind (the label; inclusive counts a sample once per kind, "
			"however deep a kind recurses):\n");
	fprintf(t->out, "  %10s %7s %10s %7s %8s   %s\n", "total ms", "%", "self ms", "%", "tasks",
		"kind");
	for (size_t i = 0; i < st->nr_kinds; i++) {
		const struct tk_kind *k = &st->kinds[st->kind_order[i]];

		if (pl_below(k->total.samples, st->info.total_samples, st->min_pct))
			continue;
		t->h->text_escape(label, sizeof(label), k->label ? k->label : "(no label)");
		pl_text_cost(t->out, "  ", k->total.samples, &st->info);
		pl_text_cost(t->out, " ", k->self.samples, &st->info);
		fprintf(t->out, " %8zu   %s\n", k->tasks, label);
	}
}

static int tk_text(const struct fsp_plugin_host *h, const struct fsp_plugin_profile *p, void *state,
		   FILE *out)
{
	struct tk_state *st = state;
	struct tk_text t = {h, p, st, out};
	size_t folded = 0;

	fprintf(out, "  Tasks take %.2f%% of running time (%.1f ms, %llu samples): %zu tasks\n",
		report_pct(st->charged.samples, st->info.total_samples),
		report_ms(st->charged.samples, st->info.period_ns),
		(unsigned long long)st->charged.samples, st->nr_nodes);
	fprintf(out, "  %10s %7s %10s %7s   %s\n", "total ms", "%", "self ms", "%",
		"task (kind#id), its children below it");
	for (size_t i = 0; i < st->nr_nodes; i++)
		st->nodes[i].printed = st->nodes[i].on_path = false;
	/* roots first, then what only a cycle reaches */
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < st->nr_nodes; i++) {
			size_t id = st->order[i];
			const struct tk_node *n = &st->nodes[id];

			if (n->printed || (!pass && n->nr_parents))
				continue;
			if (pl_below(n->total.samples, st->info.total_samples, st->min_pct))
				folded += !pass;
			else
				print_tree(&t, id, NULL, 0);
		}
	}
	print_folded(&t, folded, 0);
	print_kinds(&t);
	return 0;
}

/* ---- JSON ---- */

static int tk_json(const struct fsp_plugin_host *h, const struct fsp_plugin_profile *p, void *state,
		   struct fsp_plugin_json *j)
{
	const struct tk_state *st = state;

	(void)p;
	h->json_object_begin(j);
	pl_json_cost(h, j, "", &st->charged, &st->info);
	h->json_key(j, "tasks");
	h->json_array_begin(j);
	for (size_t i = 0; i < st->nr_nodes; i++) {
		const struct tk_node *n = &st->nodes[st->order[i]];

		h->json_object_begin(j);
		h->json_key(j, "source");
		h->json_u64(j, n->source);
		h->json_key(j, "pid");
		h->json_u64(j, n->pid);
		h->json_key(j, "id");
		h->json_u64(j, n->id);
		h->json_key(j, "label");
		h->json_string(j, n->label);
		pl_json_cost(h, j, "", &n->total, &st->info);
		pl_json_cost(h, j, "self_", &n->self, &st->info);
		h->json_object_end(j);
	}
	h->json_array_end(j);
	h->json_key(j, "edges"); /* parent and child: indexes into tasks */
	h->json_array_begin(j);
	for (size_t i = 0; i < st->nr_edges; i++) {
		const struct tk_edge *e = &st->edges[st->children[i]];

		h->json_object_begin(j);
		h->json_key(j, "parent");
		h->json_u64(j, st->nodes[e->parent].rank);
		h->json_key(j, "child");
		h->json_u64(j, st->nodes[e->child].rank);
		pl_json_cost(h, j, "", &e->cost, &st->info);
		h->json_object_end(j);
	}
	h->json_array_end(j);
	h->json_key(j, "kinds");
	h->json_array_begin(j);
	for (size_t i = 0; i < st->nr_kinds; i++) {
		const struct tk_kind *k = &st->kinds[st->kind_order[i]];

		h->json_object_begin(j);
		h->json_key(j, "label");
		h->json_string(j, k->label);
		h->json_key(j, "tasks");
		h->json_u64(j, k->tasks);
		pl_json_cost(h, j, "", &k->total, &st->info);
		pl_json_cost(h, j, "self_", &k->self, &st->info);
		h->json_object_end(j);
	}
	h->json_array_end(j);
	h->json_object_end(j);
	return 0;
}

/* ---- DOT ---- */

/* Whether node n is drawn: among the costliest, not below --min-pct. */
static bool drawn(const struct tk_state *st, const struct tk_node *n)
{
	return n->rank < TK_MAX_DOT_NODES &&
	       !pl_below(n->total.samples, st->info.total_samples, st->min_pct);
}

static int tk_dot(const struct fsp_plugin_host *h, const struct fsp_plugin_profile *p, void *state,
		  FILE *out)
{
	const struct tk_state *st = state;
	size_t nodes = 0;

	fprintf(out,
		"digraph tasks {\n"
		"  graph [labelloc=t, fontname=\"Helvetica\", label=\"tasks: %.2f%% of "
		"running time (%.1f ms)\"];\n"
		"  node [shape=box, style=\"rounded,filled\", fillcolor=\"#eef7e8\", "
		"fontname=\"Helvetica\"];\n"
		"  edge [fontname=\"Helvetica\", fontsize=10];\n",
		report_pct(st->charged.samples, st->info.total_samples),
		report_ms(st->charged.samples, st->info.period_ns));
	for (size_t i = 0; i < st->nr_nodes; i++) {
		const struct tk_node *n = &st->nodes[st->order[i]];
		char pname[48];

		if (!drawn(st, n))
			continue;
		nodes++;
		fprintf(out, "  t%zu [label=\"", i);
		if (st->info.nr_processes > 1) {
			h->process_name(p, n->source, n->pid, pname, sizeof(pname));
			h->dot_escape(out, pname);
			fputs(": ", out);
		}
		h->dot_escape(out, n->label ? n->label : "");
		fprintf(out, "#%llu\\ntotal %.1f ms (%.2f%%)\\nself %.1f ms (%.2f%%)\"];\n",
			(unsigned long long)n->id, report_ms(n->total.samples, st->info.period_ns),
			report_pct(n->total.samples, st->info.total_samples),
			report_ms(n->self.samples, st->info.period_ns),
			report_pct(n->self.samples, st->info.total_samples));
	}
	for (size_t i = 0; i < st->nr_edges; i++) {
		const struct tk_edge *e = &st->edges[st->children[i]];

		if (!drawn(st, &st->nodes[e->parent]) || !drawn(st, &st->nodes[e->child]))
			continue;
		fprintf(out, "  t%zu -> t%zu [label=\"%.1f ms\"];\n", st->nodes[e->parent].rank,
			st->nodes[e->child].rank, report_ms(e->cost.samples, st->info.period_ns));
	}
	if (nodes < st->nr_nodes)
		fprintf(out,
			"  folded [shape=plaintext, style=\"\", label=\"%zu tasks below %g%% "
			"or beyond the %d costliest not drawn\"];\n",
			st->nr_nodes - nodes, st->min_pct, TK_MAX_DOT_NODES);
	fprintf(out, "}\n");
	return 0;
}

const struct fsp_plugin plugin_tasks = {
	.abi_version = FSP_PLUGIN_ABI_VERSION,
	.size = sizeof(struct fsp_plugin),
	.name = "tasks",
	.summary = "self and inclusive cost of each task over the tree of tasks (payload: the "
		   "task id)",
	.feature = "task",
	.analyze = tk_analyze,
	.render_text = tk_text,
	.render_json = tk_json,
	.render_dot = tk_dot,
	.release = tk_release,
};
