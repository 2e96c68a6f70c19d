// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The layering of the analysis library, checked on the source tree: which
 * folders of analysis/ each folder's files may include headers of. Every
 * folder is on the include path (the Makefile), so nothing but this test
 * keeps an include from running the wrong way: common/ below everything
 * and including nothing of the others; the model above it; the profile
 * file (io/) above the model; the renderers (render/: the API in report.h,
 * the shared views in view/, one folder per format) above those, never
 * below; the plug-ins and the metrics (metrics/) above the renderers. Also: header names are unique
 * (an include names a file by its name alone), no quoted include names a
 * header outside analysis/ (but the generated profile.pb-c.h), and nothing
 * includes libbpf.
 */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "unit_helpers.h"

#ifndef FSP_SRC_DIR
#error "FSP_SRC_DIR: the source tree (Makefile)"
#endif

#define MAX_FILES 1024
#define MAX_MAY 8

/* The folders (below analysis/) a folder's files may include headers of. */
struct layer {
	const char *dir;
	const char *may[MAX_MAY];
};

#define RENDER_FORMAT(d)                                                                           \
	{                                                                                          \
		d,                                                                                 \
		{                                                                                  \
			"common", "model", "render", "render/view", d                              \
		}                                                                                  \
	}

static const struct layer layers[] = {
	{"common", {"common"}},
	{"model", {"common", "model"}},
	{"io", {"common", "model", "io"}},
	{"symbol", {"common", "model", "symbol"}},
	{"probemap", {"common", "probemap"}},
	{"render", {"common", "model", "render"}},
	{"render/view", {"common", "model", "render", "render/view"}},
	RENDER_FORMAT("render/text"),
	RENDER_FORMAT("render/folded"),
	RENDER_FORMAT("render/pprof"),
	RENDER_FORMAT("render/html"),
	RENDER_FORMAT("render/diff"),
	{"plugin", {"common", "model", "render", "render/view", "plugin"}},
	/* The agent's exposition: charges from the model, process names from
	 * the shared views. */
	{"metrics", {"common", "model", "render", "render/view", "metrics"}},
};

/* Headers generated at build time from a folder of analysis/. */
static const char *const generated[] = {"profile.pb-c.h"};

struct file {
	char dir[256]; /* below analysis/: "render/text" */
	char name[256];
};

struct tree {
	const char *root; /* the folder holding analysis/ */
	struct file files[MAX_FILES];
	size_t nr;
	char *problems; /* one line each */
	size_t len;
	FILE *out;
};

static bool has_suffix(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && !strcmp(s + a - b, suffix);
}

/* The .c and .h files below analysis/DIR (dir "" for analysis itself). */
static void walk(struct tree *t, const char *dir)
{
	char path[PATH_MAX + 512], sub[PATH_MAX];
	struct dirent *e;
	struct stat sb;
	DIR *d;

	snprintf(path, sizeof(path), "%s/analysis%s%s", t->root, *dir ? "/" : "", dir);
	d = opendir(path);
	if (!d)
		fail_msg("cannot read %s: %s", path, strerror(errno));
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' || !strcmp(e->d_name, "node_modules"))
			continue;
		snprintf(sub, sizeof(sub), "%s%s%s", dir, *dir ? "/" : "", e->d_name);
		snprintf(path, sizeof(path), "%s/analysis/%s", t->root, sub);
		if (stat(path, &sb))
			continue;
		if (S_ISDIR(sb.st_mode)) {
			walk(t, sub);
		} else if (has_suffix(e->d_name, ".c") || has_suffix(e->d_name, ".h")) {
			assert_true(t->nr < MAX_FILES);
			snprintf(t->files[t->nr].dir, sizeof(t->files[t->nr].dir), "%.255s", dir);
			snprintf(t->files[t->nr].name, sizeof(t->files[t->nr].name), "%.255s",
				 e->d_name);
			t->nr++;
		}
	}
	closedir(d);
}

static const struct layer *layer_of(const char *dir)
{
	for (size_t i = 0; i < sizeof(layers) / sizeof(layers[0]); i++)
		if (!strcmp(layers[i].dir, dir))
			return &layers[i];
	return NULL;
}

static bool may_include(const struct layer *l, const char *dir)
{
	for (size_t i = 0; i < MAX_MAY && l->may[i]; i++)
		if (!strcmp(l->may[i], dir))
			return true;
	return false;
}

/* The folder of header `name`, NULL when analysis/ has none. */
static const char *header_dir(const struct tree *t, const char *name)
{
	for (size_t i = 0; i < t->nr; i++)
		if (!strcmp(t->files[i].name, name))
			return t->files[i].dir;
	return NULL;
}

static bool is_generated(const char *name)
{
	for (size_t i = 0; i < sizeof(generated) / sizeof(generated[0]); i++)
		if (!strcmp(generated[i], name))
			return true;
	return false;
}

/* The includes of file f against its layer. */
static void check_file(struct tree *t, const struct file *f, const struct layer *l)
{
	char path[PATH_MAX], line[1024], name[256];
	FILE *in;

	snprintf(path, sizeof(path), "%s/analysis/%s/%s", t->root, f->dir, f->name);
	in = fopen(path, "r");
	if (!in)
		fail_msg("cannot read %s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), in)) {
		const char *dir;

		if (sscanf(line, " # include <bpf/%255[^>]>", name) == 1)
			fprintf(t->out, "analysis/%s/%s includes libbpf's <bpf/%s>\n", f->dir,
				f->name, name);
		if (sscanf(line, " # include \"%255[^\"]\"", name) != 1)
			continue;
		dir = header_dir(t, name);
		if (!dir && !is_generated(name))
			fprintf(t->out, "analysis/%s/%s includes %s, which is not in analysis/\n",
				f->dir, f->name, name);
		else if (dir && l && !may_include(l, dir))
			fprintf(t->out,
				"analysis/%s/%s includes %s of analysis/%s: analysis/%s may not "
				"include headers of analysis/%s\n",
				f->dir, f->name, name, dir, f->dir, dir);
	}
	fclose(in);
}

/* The problems of the tree at root, one line each ("" when none; free it). */
static char *check_tree(const char *root)
{
	struct tree *t = calloc(1, sizeof(*t));
	char *problems;

	assert_non_null(t);
	t->root = root;
	t->out = open_memstream(&t->problems, &t->len);
	assert_non_null(t->out);
	walk(t, "");
	for (size_t i = 0; i < t->nr; i++) {
		const struct file *f = &t->files[i];
		const struct layer *l = layer_of(f->dir);

		if (!l)
			fprintf(t->out,
				"analysis/%s/%s: analysis/%s has no layer in test_layers.c\n",
				f->dir, f->name, f->dir);
		for (size_t j = 0; j < i; j++)
			if (has_suffix(f->name, ".h") && !strcmp(f->name, t->files[j].name))
				fprintf(t->out, "header %s is in analysis/%s and analysis/%s\n",
					f->name, t->files[j].dir, f->dir);
		check_file(t, f, l);
	}
	assert_int_equal(fclose(t->out), 0);
	problems = t->problems;
	free(t);
	return problems;
}

/* The tree: no include runs the wrong way. */
static void test_source_tree(void **state)
{
	char *problems = check_tree(FSP_SRC_DIR);

	(void)state;
	if (*problems)
		fail_msg("the analysis library's layering:\n%s", problems);
	free(problems);
}

/* A file of a small tree under dir: analysis/REL with text. */
static void put(const char *dir, const char *rel, const char *text)
{
	char path[PATH_MAX], *slash;
	FILE *f;

	snprintf(path, sizeof(path), "%s/analysis/%s", dir, rel);
	for (slash = strchr(path + strlen(dir) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = 0;
		mkdir(path, 0700);
		*slash = '/';
	}
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* The check finds what it is for, in a tree made to break each rule. */
static void test_finds_violations(void **state)
{
	char dir[] = "/tmp/fsp-layers-XXXXXX", cmd[PATH_MAX + 16];
	char *problems;

	(void)state;
	assert_non_null(mkdtemp(dir));
	put(dir, "render/view/report_view.h", "#include \"profile.h\"\n");
	put(dir, "render/text/report_text.c",
	    "#include \"report_view.h\"\n#include \"output.h\"\n");
	put(dir, "model/profile.h", "#include <stdio.h>\n#include \"output.h\"\n");
	put(dir, "common/output.h", "#include <errno.h>\n");
	problems = check_tree(dir);
	assert_string_equal(problems, ""); /* what is allowed passes */
	free(problems);
	/* the model including a renderer's header; common the model's */
	put(dir, "model/diff.c", "#include \"profile.h\"\n#  include \"report_view.h\"\n");
	put(dir, "common/util.h", "#include \"profile.h\"\n");
	/* a format including another's; a header outside analysis/; libbpf */
	put(dir, "render/folded/report_folded.c", "#include \"report_text.c\"\n");
	put(dir, "io/profile_read.c", "#include \"profiler.h\"\n#include <bpf/libbpf.h>\n");
	/* a folder no rule names; a header name twice */
	put(dir, "extra/x.c", "\n");
	put(dir, "io/output.h", "\n");
	problems = check_tree(dir);
	assert_non_null(strstr(problems, "analysis/model/diff.c includes report_view.h of "
					 "analysis/render/view: analysis/model may not include "
					 "headers of analysis/render/view\n"));
	assert_non_null(strstr(problems, "analysis/common/util.h includes profile.h of "
					 "analysis/model: analysis/common may not include "
					 "headers of analysis/model\n"));
	assert_non_null(strstr(problems, "analysis/render/folded/report_folded.c includes "
					 "report_text.c of analysis/render/text: "
					 "analysis/render/folded may not include headers of "
					 "analysis/render/text\n"));
	assert_non_null(strstr(problems, "analysis/io/profile_read.c includes profiler.h, which "
					 "is not in analysis/\n"));
	assert_non_null(strstr(problems, "analysis/io/profile_read.c includes libbpf's "
					 "<bpf/libbpf.h>\n"));
	assert_non_null(strstr(problems, "analysis/extra/x.c: analysis/extra has no layer"));
	assert_non_null(strstr(problems, "header output.h is in analysis/"));
	free(problems);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_source_tree),
		cmocka_unit_test(test_finds_violations),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
