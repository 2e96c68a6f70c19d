// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The plug-ins --plugin names (plugin.h): the built-in ones, shared objects
 * loaded with dlopen() and checked (entry point, ABI version, members), and
 * the set of them a rendering runs.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pathwalk.h"
#include "plugin.h"
#include "plugin_builtin.h"
#include "plugin_int.h"
#include "safeopen.h"
#include "util.h"

static const struct fsp_plugin *const builtins[] = {
	&plugin_backtrack,
	&plugin_boundary,
	&plugin_tasks,
};

#define NR_BUILTINS (sizeof(builtins) / sizeof(builtins[0]))

size_t plugin__nr_builtins(void)
{
	return NR_BUILTINS;
}

const struct fsp_plugin *plugin__builtin(size_t i)
{
	return i < NR_BUILTINS ? builtins[i] : NULL;
}

static bool valid_name(const char *s)
{
	if (!s || !*s)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_' || *s == '-'))
			return false;
	return true;
}

int plugin__check(const struct fsp_plugin *d, const char *where, char *err, size_t errlen)
{
	if (!d) {
		fsp_set_err(err, errlen, "%s is not an fsp-bpf plug-in: its %s() returned NULL",
			    where, FSP_PLUGIN_ENTRY_NAME);
		return -EINVAL;
	}
	if (d->abi_version != FSP_PLUGIN_ABI_VERSION) {
		fsp_set_err(err, errlen,
			    "%s is a plug-in of ABI version %u, this fsp-bpf loads version %d: "
			    "rebuild it against this fsp-bpf's <fsp/fsp-plugin.h>",
			    where, d->abi_version, FSP_PLUGIN_ABI_VERSION);
		return -EINVAL;
	}
	if (d->size < sizeof(struct fsp_plugin)) {
		fsp_set_err(err, errlen,
			    "%s: its struct fsp_plugin has %u bytes, ABI version %d has %zu: "
			    "rebuild it against this fsp-bpf's <fsp/fsp-plugin.h>",
			    where, d->size, FSP_PLUGIN_ABI_VERSION, sizeof(struct fsp_plugin));
		return -EINVAL;
	}
	if (!valid_name(d->name)) {
		fsp_set_err(err, errlen,
			    "%s: the plug-in's name must be letters, digits, '_' or '-' (got '%s')",
			    where, d->name ? d->name : "(null)");
		return -EINVAL;
	}
	if (!d->analyze || !d->render_text || !d->release) {
		fsp_set_err(err, errlen,
			    "%s: plug-in %s lacks analyze, render_text or release (every plug-in "
			    "has them)",
			    where, d->name);
		return -EINVAL;
	}
	return 0;
}

/* ---- the set ---- */

struct plugin_spec {
	const struct fsp_plugin *desc;
	char *feature; /* --plugin NAME=FEATURE, else NULL */
	void *handle; /* dlopen() handle of a shared object */
	char *where; /* the path given, for messages */
};

struct plugin_set {
	struct plugin_spec *specs;
	size_t nr, cap;
};

static void spec_fini(struct plugin_spec *sp)
{
	free(sp->feature);
	free(sp->where);
	if (sp->handle)
		dlclose(sp->handle);
}

void plugin_set__free(struct plugin_set *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nr; i++)
		spec_fini(&s->specs[i]);
	free(s->specs);
	free(s);
}

size_t plugin_set__nr(const struct plugin_set *s)
{
	return s ? s->nr : 0;
}

size_t plugin_set__nr_dot(const struct plugin_set *s)
{
	size_t n = 0;

	for (size_t i = 0; s && i < s->nr; i++)
		n += s->specs[i].desc->render_dot != NULL;
	return n;
}

/* The names of the built-in plug-ins, "a, b or c", for messages. */
static void builtin_names(char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = 0;
	for (size_t i = 0; i < NR_BUILTINS && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%s",
					!i		       ? ""
					: i + 1 == NR_BUILTINS ? " or "
							       : ", ",
					builtins[i]->name);
}

/*
 * Loading a shared object runs its code with fsp-bpf's rights: root's. As a
 * careful shell treats a PATH entry others can write, a plug-in is refused
 * when anyone but root and you (pathwalk.h's trusted users) could change it:
 * the file, or one of its directories (not sticky), or a link on the way.
 * 0, -EPERM with the reason in err, or -ENOENT and such (dlopen says it).
 */
static int check_object(const char *path, char *err, size_t errlen)
{
	struct pathwalk w;
	struct stat st;
	char who[96];
	int ret, fd;

	ret = pathwalk__resolve(
		path, PATHWALK_TRUSTED_DIRS | PATHWALK_TRUSTED_LINKS | PATHWALK_FOLLOW, &w);
	if (!ret) {
		fd = safeopen__read(w.dirfd, w.name, SAFEOPEN_NOFOLLOW, NULL, &st);
		ret = fd < 0 ? fd : 0;
		if (fd >= 0)
			close(fd);
	}
	pathwalk__fini(&w);
	if (!ret && pathwalk__others_write(&st)) {
		if (!pathwalk__trusted_uid(st.st_uid))
			pathwalk__user_name(st.st_uid, who, sizeof(who));
		else
			snprintf(who, sizeof(who), "%s (mode %04o)",
				 st.st_mode & S_IWOTH ? "every user" : "its group",
				 (unsigned int)(st.st_mode & 07777));
		snprintf(w.why, sizeof(w.why), "it can be written by %s", who);
		ret = -EPERM;
	}
	if (ret == -EPERM)
		fsp_set_err(err, errlen,
			    "refusing plug-in %s: %s, and loading it runs its code as %s: make it "
			    "and its directories writable by root or you only",
			    path, w.why, geteuid() ? "you" : "root");
	return ret;
}

/* The shared object at path: loaded, its entry point called and checked. */
static int load_object(struct plugin_spec *sp, const char *path, char *err, size_t errlen)
{
	fsp_plugin_entry_fn entry;
	const char *msg;
	int ret;

	if (check_object(path, err, errlen) == -EPERM)
		return -EINVAL;
	sp->handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!sp->handle) {
		msg = dlerror();
		fsp_set_err(err, errlen, "cannot load plug-in %s: %s", path,
			    msg ? msg : "dlopen failed");
		return -EINVAL;
	}
	dlerror();
	*(void **)&entry = dlsym(sp->handle, FSP_PLUGIN_ENTRY_NAME);
	if (!entry) {
		fsp_set_err(err, errlen,
			    "%s is not an fsp-bpf plug-in: it exports no %s() (see "
			    "docs/plugins.md)",
			    path, FSP_PLUGIN_ENTRY_NAME);
		return -EINVAL;
	}
	sp->desc = entry();
	ret = plugin__check(sp->desc, path, err, errlen);
	if (ret)
		sp->desc = NULL;
	return ret;
}

/* The path to suggest for a plug-in named name that is no built-in: the file
 * itself in the current directory when the name is a file name (libx.so,
 * libx.so.1), else the conventional file name of shared object name. */
static void suggest_path(const char *name, char *buf, size_t size)
{
	const char *so = strstr(name, ".so");

	if (so && (!so[3] || so[3] == '.'))
		snprintf(buf, size, "./%s", name);
	else
		snprintf(buf, size, "./%s%s.so", strncmp(name, "lib", 3) ? "lib" : "", name);
}

/* One "NAME[=FEATURE]" (len bytes at s) into sp. */
static int parse_spec(struct plugin_spec *sp, const char *s, size_t len, char *err, size_t errlen)
{
	const char *eq = memchr(s, '=', len);
	size_t nlen = eq ? (size_t)(eq - s) : len;
	char *name = strndup(s, nlen), names[256], path[256];
	int ret = 0;

	if (!name)
		return -ENOMEM;
	if (eq && eq + 1 == s + len) {
		fsp_set_err(err, errlen, "--plugin %s: the feature after '=' is empty", name);
		ret = -EINVAL;
	} else if (eq && !(sp->feature = strndup(eq + 1, len - nlen - 1))) {
		ret = -ENOMEM;
	} else if (strchr(name, '/')) {
		sp->where = name;
		name = NULL;
		ret = load_object(sp, sp->where, err, errlen);
	} else {
		for (size_t i = 0; i < NR_BUILTINS && !sp->desc; i++)
			if (!strcmp(name, builtins[i]->name))
				sp->desc = builtins[i];
		if (!sp->desc) {
			builtin_names(names, sizeof(names));
			suggest_path(name, path, sizeof(path));
			fsp_set_err(err, errlen,
				    "unknown plug-in '%s': the built-in ones are %s (fsp-bpf list "
				    "--plugins); name a shared object by its path (%s)",
				    name, names, path);
			ret = -EINVAL;
		}
	}
	if (!ret && !sp->feature && !sp->desc->feature) {
		fsp_set_err(err, errlen,
			    "plug-in %s reads the feature you name: --plugin %.*s=FEATURE",
			    sp->desc->name, (int)nlen, s);
		ret = -EINVAL;
	}
	free(name);
	return ret;
}

/* Whether s already holds a spec of the same plug-in and feature. */
static bool has_spec(const struct plugin_set *s, const struct plugin_spec *sp)
{
	for (size_t i = 0; i < s->nr; i++) {
		const struct plugin_spec *o = &s->specs[i];

		if (o->desc == sp->desc && !o->feature == !sp->feature &&
		    (!o->feature || !strcmp(o->feature, sp->feature)))
			return true;
	}
	return false;
}

int plugin_set__new(const char *list, struct plugin_set **out, char *err, size_t errlen)
{
	struct plugin_set *s = calloc(1, sizeof(*s));
	const char *p = list ? list : "";
	int ret = s ? 0 : -ENOMEM;

	while (!ret && *p) {
		size_t len = strcspn(p, ",");
		struct plugin_spec sp = {0};

		if (len) {
			bool dup = false;

			ret = parse_spec(&sp, p, len, err, errlen);
			if (!ret)
				dup = has_spec(s, &sp);
			if (!ret && !dup)
				ret = fsp_grow((void **)&s->specs, &s->cap, s->nr + 1,
					       sizeof(*s->specs));
			if (!ret && !dup)
				s->specs[s->nr++] = sp;
			else
				spec_fini(&sp);
		}
		p += len + (p[len] == ',');
	}
	if (ret == -ENOMEM)
		fsp_set_err(err, errlen, "--plugin: out of memory");
	if (ret || !s->nr) {
		plugin_set__free(s);
		s = NULL;
	}
	*out = s;
	return ret;
}

/* For plugin_run.c: the i-th plug-in of s and the feature it was given. */
const struct fsp_plugin *plugin_set__plugin(const struct plugin_set *s, size_t i,
					    const char **feature, const char **spec)
{
	if (!s || i >= s->nr)
		return NULL;
	*feature = s->specs[i].feature;
	*spec = s->specs[i].where ? s->specs[i].where : s->specs[i].desc->name;
	return s->specs[i].desc;
}
