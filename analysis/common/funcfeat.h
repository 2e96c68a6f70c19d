/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Function features (docs/function-features.md): features whose extent is any
 * call of a set of functions of a named file (the paper's functional latent
 * marks, §6.2), found on the native stacks of record --stacks, at no cost per
 * call. A rule names its feature, the functions that mark it ("function
 * FILE:PATTERN,..."), the functions that charge nothing to it while they run
 * ("antimark FILE:PATTERN,...", a qsort comparator) and its instance (the call
 * site, or none).
 *
 * The rules alone (the probe-map parser checks its "function" lines with
 * them, below the model); applying them to a profile is the model's
 * (funcfeat_apply.h). Pure C, no libbpf.
 */
#ifndef FSP_ANALYSIS_FUNCFEAT_H
#define FSP_ANALYSIS_FUNCFEAT_H

#include <stdbool.h>
#include <stddef.h>

#define FUNCFEAT_MAX_RULES 64 /* function features of one set */
#define FUNCFEAT_MAX_PATTERNS 32 /* function and antimark patterns of one feature */
#define FUNCFEAT_MAX_TEXT 256 /* bytes of one FILE:PATTERN,... list, NUL included */

enum funcfeat_instance {
	FUNCFEAT_INSTANCE_CALLER = 0, /* the call site: caller's function, file and line */
	FUNCFEAT_INSTANCE_NONE = 1, /* one instance for every call */
	/* the string a `char *` variable of the target points to when each
	 * sample is taken ("instance {global:SYMBOL}"; rule->global) */
	FUNCFEAT_INSTANCE_GLOBAL = 2,
};

/*
 * A sample-time instance is read by the sampler into a frame of the
 * sample's mark stack: a mark of the hidden feature "{global:SYMBOL}"
 * (FUNCFEAT_VAR_PREFIX SYMBOL "}") whose instance is the string read ("?"
 * when unreadable). funcfeat__apply takes the rule's instance from it and
 * drops it; a sample without it (a profile recorded without the rule) is
 * charged to FUNCFEAT_NOT_READ.
 */
#define FUNCFEAT_VAR_PREFIX "{global:"
#define FUNCFEAT_NOT_READ "(not read)"
#define FUNCFEAT_SYMBOL_LEN 64 /* bytes of a variable's name, NUL included */

/* One pattern: functions of files whose base name matches file (both
 * fnmatch(3) globs); or, outside ("antimark outside"), every function of a
 * user file none of the rule's function patterns names: the callbacks a
 * library's functions make into other code (qsort's comparator). */
struct funcfeat_pattern {
	char *file;
	char *function;
	bool antimark;
	bool outside;
};

struct funcfeat_rule {
	char *feature;
	enum funcfeat_instance instance;
	char *global; /* FUNCFEAT_INSTANCE_GLOBAL: the variable's symbol */
	struct funcfeat_pattern *patterns;
	size_t nr_patterns;
};

struct funcfeat; /* a set of rules */

struct funcfeat *funcfeat__new(void); /* NULL: no memory */
void funcfeat__free(struct funcfeat *ff); /* NULL-safe */

/*
 * Adds "FILE:PATTERN[,PATTERN...]" (text) to the rule of feature (made when
 * new, with instance inst; an existing rule keeps its instance), as function
 * patterns or, antimark, antimark patterns ("outside" with antimark: the
 * outside pattern). 0, or -EINVAL / -ENOMEM with one line in err.
 */
int funcfeat__add(struct funcfeat *ff, const char *feature, bool antimark, const char *text,
		  enum funcfeat_instance inst, char *err, size_t errlen);

/* Sets the instance of feature's rule. 0 or -ENOENT. */
int funcfeat__set_instance(struct funcfeat *ff, const char *feature, enum funcfeat_instance inst);
/* Makes the instance of feature's rule the variable symbol read at sample
 * time (a C identifier). 0, -ENOENT, or -EINVAL / -ENOMEM with err. */
int funcfeat__set_global(struct funcfeat *ff, const char *feature, const char *symbol, char *err,
			 size_t errlen);

/* The hidden feature of variable symbol's frames ("{global:SYMBOL}") into
 * buf; is feature such a name? */
void funcfeat__var_feature(const char *symbol, char *buf, size_t size);
bool funcfeat__is_var_feature(const char *feature);

/*
 * "--function-feature NAME=FILE:PATTERN[,PATTERN...][@{global:SYMBOL}]": a
 * rule of feature FUNCFEAT_CLI_PREFIX NAME ("fn:NAME"), instance caller, or
 * with the suffix the variable SYMBOL read at sample time. Repeating a NAME
 * adds patterns to it. 0 or -EINVAL/-ENOMEM with err.
 */
#define FUNCFEAT_CLI_PREFIX "fn:"
int funcfeat__parse_option(struct funcfeat *ff, const char *arg, char *err, size_t errlen);

size_t funcfeat__nr(const struct funcfeat *ff); /* 0 for NULL */
const struct funcfeat_rule *funcfeat__rule(const struct funcfeat *ff, size_t i);

/* Adds every rule of src to dst; a feature both have takes src's rule. 0 or -ENOMEM. */
int funcfeat__merge(struct funcfeat *dst, const struct funcfeat *src);

/*
 * The rules as text, one block per feature ("feature NAME", "instance
 * caller|none|{global:SYMBOL}", "function FILE:PATTERN,...", "antimark FILE:PATTERN,..."),
 * what a profile file keeps (docs/profile-format.md) and funcfeat__parse
 * reads back. malloc'd; NULL: no memory. "" for no rules.
 */
char *funcfeat__to_text(const struct funcfeat *ff);
/* Parses funcfeat__to_text's text into ff. 0 or -EINVAL with err. */
int funcfeat__parse(struct funcfeat *ff, const char *text, char *err, size_t errlen);

/* Does a function named fn of a file whose path is path match p (not an
 * outside pattern: see funcfeat__outside)? */
bool funcfeat__match(const struct funcfeat_pattern *p, const char *path, const char *fn);
/* Is a user file whose path is path outside r: named by none of its
 * function patterns, and r has an outside pattern? */
bool funcfeat__outside(const struct funcfeat_rule *r, const char *path);

/* Does a function pattern (not an antimark) of one of ff's rules name the
 * file whose path is path (its base name)? The files whose processes -a
 * profiles for the function features. */
bool funcfeat__names_file(const struct funcfeat *ff, const char *path);

#endif /* FSP_ANALYSIS_FUNCFEAT_H */
