// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Locating probe map files along the search path (probemap_dir.h). */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "probemap_dir.h"
#include "util.h"

#define MAP_SUFFIX ".map"

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

static int copy_path(char *dst, size_t size, const char *src)
{
	if (strlen(src) >= size)
		return -ENAMETOOLONG;
	strcpy(dst, src);
	return 0;
}

static bool is_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

int probemap_dir__for_each_dir(int (*cb)(void *ctx, const char *dir), void *ctx)
{
	char exe[PATH_MAX], dir[PATH_MAX + 64];
	const char *env = getenv("FSP_MAP_PATH");
	ssize_t n;
	int ret;

	while (env && *env) {
		const char *colon = strchr(env, ':');
		size_t len = colon ? (size_t)(colon - env) : strlen(env);

		if (len && len < sizeof(dir)) {
			memcpy(dir, env, len);
			dir[len] = 0;
			ret = cb(ctx, dir);
			if (ret)
				return ret;
		}
		env = colon ? colon + 1 : NULL;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		char *slash;

		exe[n] = 0;
		slash = strrchr(exe, '/');
		if (slash) {
			*slash = 0;
			snprintf(dir, sizeof(dir), "%s/maps", exe);
			ret = cb(ctx, dir);
			if (ret)
				return ret;
			snprintf(dir, sizeof(dir), "%s/../share/fsp-bpf/maps", exe);
			ret = cb(ctx, dir);
			if (ret)
				return ret;
		}
	}
	return cb(ctx, FSP_MAP_DIR);
}

struct find_ctx {
	const char *name;
	char *path;
	size_t size;
	int err; /* -ENAMETOOLONG if a match did not fit */
};

static int find_in(void *ctx, const char *dir)
{
	struct find_ctx *c = ctx;
	char path[PATH_MAX + 128];

	if ((size_t)snprintf(path, sizeof(path), "%s/%s" MAP_SUFFIX, dir, c->name) >= sizeof(path))
		return 0;
	if (!is_file(path))
		return 0;
	c->err = copy_path(c->path, c->size, path);
	return 1;
}

int probemap_dir__find(const char *name, char *path, size_t size)
{
	struct find_ctx c = {name, path, size, -ENOENT};
	struct stat st;

	if (!name || !*name)
		return -EINVAL;
	if (strchr(name, '/') || ends_with(name, MAP_SUFFIX)) {
		if (stat(name, &st))
			return -errno;
		return copy_path(path, size, name);
	}
	probemap_dir__for_each_dir(find_in, &c);
	return c.err;
}

struct map_entry {
	char *name; /* without .map */
	char *path;
};

struct list_ctx {
	struct map_entry *v;
	size_t n, cap;
	int err;
};

static int list_in(void *ctx, const char *dir)
{
	struct list_ctx *c = ctx;
	struct dirent *de;
	DIR *d = opendir(dir);

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name), i;
		char path[PATH_MAX + 256];
		struct map_entry *e;
		bool seen = false;

		if (len <= strlen(MAP_SUFFIX) || !ends_with(de->d_name, MAP_SUFFIX) ||
		    de->d_name[0] == '.')
			continue;
		len -= strlen(MAP_SUFFIX);
		for (i = 0; i < c->n && !seen; i++)
			seen = strlen(c->v[i].name) == len &&
			       !strncmp(c->v[i].name, de->d_name, len);
		if (seen)
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >=
			    sizeof(path) ||
		    !is_file(path))
			continue;
		if (fsp_grow((void **)&c->v, &c->cap, c->n + 1, sizeof(*c->v))) {
			c->err = -ENOMEM;
			break;
		}
		e = &c->v[c->n];
		e->name = strndup(de->d_name, len);
		e->path = strdup(path);
		if (!e->name || !e->path) {
			free(e->name);
			free(e->path);
			c->err = -ENOMEM;
			break;
		}
		c->n++;
	}
	closedir(d);
	return c->err;
}

static int cmp_entry(const void *a, const void *b)
{
	const struct map_entry *x = a, *y = b;

	return strcmp(x->name, y->name);
}

int probemap_dir__list(int (*cb)(void *ctx, const char *path), void *ctx)
{
	struct list_ctx c = {0};
	size_t i;
	int ret;

	ret = probemap_dir__for_each_dir(list_in, &c);
	if (!ret && c.n)
		qsort(c.v, c.n, sizeof(*c.v), cmp_entry);
	for (i = 0; !ret && i < c.n; i++)
		ret = cb(ctx, c.v[i].path);
	for (i = 0; i < c.n; i++) {
		free(c.v[i].name);
		free(c.v[i].path);
	}
	free(c.v);
	return ret;
}
