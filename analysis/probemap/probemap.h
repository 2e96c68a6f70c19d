/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Probe maps: how an existing USDT provider's probes (PostgreSQL's
 * query__plan__start/done, CPython's gc__start/done, ...) become fsp features.
 * A map file is a small line-oriented text format (docs/probe-maps.md):
 *
 *	map postgresql
 *	provider postgresql
 *	description PostgreSQL 15 query phases
 *
 *	feature query
 *		enter query__start
 *		leave query__done
 *		instance {str:0}
 *	feature plan
 *		enter query__plan__start
 *		leave query__plan__done
 *		instance {outer:query}
 *
 * Pure C, no libbpf: parsed here, turned into BPF site descriptions by
 * userspace/.
 */
#ifndef FSP_ANALYSIS_PROBEMAP_H
#define FSP_ANALYSIS_PROBEMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PROBEMAP_NAME_LEN 64 /* map, provider, feature and probe names, NUL included */
#define PROBEMAP_DESC_LEN 256
#define PROBEMAP_MAX_PARTS 6 /* parts of an instance template */
#define PROBEMAP_LIT_LEN 31 /* bytes of one literal part, NUL excluded */
#define PROBEMAP_MAX_ARG 11 /* USDT arguments are numbered 0..11 */
#define PROBEMAP_MAX_FEATURES 64
#define PROBEMAP_MAX_PROVIDERS 4 /* "provider A B ...": providers of one map */
#define PROBEMAP_MAX_DEREF 2 /* "[OFF]" pointer reads after an argument */
#define PROBEMAP_MAX_DEREF_OFF 65535 /* largest OFF of "[OFF]" */
#define PROBEMAP_MAX_WHEN 4 /* "when" conditions of a feature (all must hold) */
#define PROBEMAP_WHEN_TEXT 256 /* a string a "when" compares with, NUL included */
#define PROBEMAP_PATTERN_LEN 17 /* "charge threads P": 15 bytes of a thread name, '*', NUL */
#define PROBEMAP_MAX_FUNCTIONS 8 /* "function" and "antimark" lines of a function feature */
#define PROBEMAP_FUNCTION_LEN 256 /* one such line's FILE:PATTERN,..., NUL included */

enum probemap_part_type {
	PROBEMAP_PART_LIT = 1, /* literal text */
	PROBEMAP_PART_STR = 2, /* {str:N}: NUL-terminated string argument, copied at the probe */
	PROBEMAP_PART_INT = 3, /* {int:N}: integer argument, in decimal (sign from the note) */
	/* {global:SYMBOL}: the string a global `char *` variable of the probed
	 * file points to when the probe fires (e.g. PostgreSQL's
	 * debug_query_string, the statement being run in either protocol). */
	PROBEMAP_PART_GLOBAL = 4,
};

struct probemap_part {
	enum probemap_part_type type;
	unsigned int arg; /* STR, INT: argument number */
	/* STR, INT: "N[OFF]...": the value is read from memory nr_deref times,
	 * each time the 8-byte word at (value + deref[i]) (a pointer to follow,
	 * e.g. libstdc++'s type_info name at *(arg + 8)). */
	unsigned int nr_deref;
	unsigned int deref[PROBEMAP_MAX_DEREF];
	/* STR: "{str:N,len:L}": argument L is the string's length in bytes (a
	 * pointer and a length, not NUL-terminated: HotSpot's names); -1: the
	 * string ends at its NUL. */
	int len_arg;
	unsigned int len; /* LIT: bytes in lit */
	char lit[PROBEMAP_LIT_LEN + 1];
	char sym[PROBEMAP_NAME_LEN]; /* GLOBAL: the variable's symbol */
};

enum probemap_kind {
	PROBEMAP_MARK = 1,
	PROBEMAP_ANTIMARK = 2,
};

enum probemap_cmp {
	PROBEMAP_EQ = 1,
	PROBEMAP_NE,
	PROBEMAP_LT,
	PROBEMAP_LE,
	PROBEMAP_GT,
	PROBEMAP_GE,
};

/*
 * "when OPERAND OP VALUE": a condition on the enter (or event) probe; an
 * enter whose conditions do not all hold is muted (docs/probe-maps.md).
 * OPERAND is an integer (argN, {int:N}: any OP, VALUE an integer) or a
 * string ({str:N}, {global:S}, {outer:F}: == or !=, VALUE a text).
 */
struct probemap_when {
	struct probemap_part operand; /* INT, STR or GLOBAL when outer < 0 */
	int outer; /* {outer:F}: F's index in features, else -1 */
	enum probemap_cmp op;
	bool is_string; /* compares text (value_text), else integers (value) */
	int64_t value; /* integer operands: as two's complement */
	char value_text[PROBEMAP_WHEN_TEXT]; /* string operands */
};

struct probemap_feature {
	char name[PROBEMAP_NAME_LEN]; /* [a-z0-9_-], unique within the map */
	char enter[PROBEMAP_NAME_LEN]; /* probe name of the enter, e.g. query__plan__start */
	char leave[PROBEMAP_NAME_LEN]; /* "" for a point event */
	/* The providers of enter and leave: indexes in the map's providers
	 * ("enter PROVIDER:PROBE"; 0, the first, without a prefix). */
	unsigned int enter_provider, leave_provider;
	/* "event PROBE": a point event. Each hit of the probe (enter) counts one
	 * call of its instance, without an extent: no frame, no leave. */
	bool point;
	enum probemap_kind kind; /* "kind mark|antimark", default mark */
	int payload_arg; /* "payload N": the payload argument, -1 for none */
	/* "instance {outer:F}": the instance of the innermost live frame of
	 * feature F of the same map (index in features), else -1. */
	int outer;
	/* "instance TEMPLATE" (when outer < 0): literal text and {str:N}/{int:N}
	 * parts joined; nr_parts 0: no instance. */
	struct probemap_part parts[PROBEMAP_MAX_PARTS];
	unsigned int nr_parts;
	/* "match instance": a leave closes the innermost frame whose instance,
	 * computed from the leave's own arguments with the same template, is
	 * equal (frames of the feature above it missed their leave: dropped).
	 * Without it, a leave closes the innermost frame of the feature. */
	bool match_instance;
	/* "default off": attached only when named in --feature (expensive
	 * probes such as one per function call). */
	bool default_off;
	/* "frame caller": the probes fire in a helper function called from the
	 * feature's code (CPython's dtrace_function_entry): a mark belongs to the
	 * helper's caller's frame, not to the probe's. Default "frame probe". */
	bool frame_caller;
	/* "frame none": the mark is bound to no stack frame: it lives until its
	 * leave (or the thread exits or execs), for pairs that fire in
	 * different functions (libstdc++'s throw and catch). */
	bool unframed;
	/* "label sample": the instance, a template of one {global:SYMBOL}
	 * part, is read when each sample is taken, not at the enter: it
	 * follows the variable while the mark is open (the event view counts
	 * the call under the enter's value). */
	bool label_sample;
	/* "when ...": conditions on the enter, all of which must hold. */
	struct probemap_when when[PROBEMAP_MAX_WHEN];
	unsigned int nr_when;
	/* "charge threads PATTERN": while a mark of the feature is open, the
	 * samples of the process's other threads whose name matches PATTERN
	 * ("*", "PREFIX*" or a whole name) are charged to it too. "": none. */
	char charge[PROBEMAP_PATTERN_LEN];
	unsigned int line; /* where the feature block starts, for messages */
	/* A function feature (docs/function-features.md): "function
	 * FILE:PATTERN,..." lines (and "antimark FILE:PATTERN,..." lines,
	 * function_antimark[i]) instead of probes. Its instance is the call
	 * site ("instance caller", the default, nr_parts 0), none ("instance
	 * none": instance_none) or a template of literal and {global:SYMBOL}
	 * parts (a label read at sample time). */
	bool function;
	unsigned int nr_functions;
	char functions[PROBEMAP_MAX_FUNCTIONS][PROBEMAP_FUNCTION_LEN];
	bool function_antimark[PROBEMAP_MAX_FUNCTIONS];
	bool instance_none;
};

struct probemap {
	char name[PROBEMAP_NAME_LEN]; /* "map NAME": prefix of feature names in reports */
	char provider[PROBEMAP_NAME_LEN]; /* "provider NAME ...": the first (main) provider */
	/* Every provider of "provider A B ...", providers[0] == provider. */
	char providers[PROBEMAP_MAX_PROVIDERS][PROBEMAP_NAME_LEN];
	unsigned int nr_providers;
	char description[PROBEMAP_DESC_LEN]; /* optional */
	char *path; /* the file it was read from ("<string>" if parsed from memory) */
	struct probemap_feature *features; /* features of probes */
	size_t nr_features;
	/* Function features ("function" lines): no probes, found on native
	 * stacks (funcfeat.h); a map of only these needs no provider. */
	struct probemap_feature *functions;
	size_t nr_functions;
};

/*
 * Parses a map from text[0..len). On error returns -EINVAL and writes one
 * line "PATH:LINE: what is wrong" to err (path is used for messages only);
 * it quotes the file's text as it is: escape it to print it (escape.h).
 * Every feature has an enter and a leave; names are checked; {outer:F} must
 * name another feature of the map; argument numbers are at most
 * PROBEMAP_MAX_ARG; a literal longer than PROBEMAP_LIT_LEN is split into
 * several parts, and a template over PROBEMAP_MAX_PARTS parts is an error.
 */
int probemap__parse(const char *text, size_t len, const char *path, struct probemap **out,
		    char *err, size_t err_size);

/* Reads and parses a file (at most 1 MiB). -errno/-EINVAL with err set. */
int probemap__load(const char *path, struct probemap **out, char *err, size_t err_size);

void probemap__free(struct probemap *m); /* NULL-safe */

/* The feature named name, or NULL. */
const struct probemap_feature *probemap__feature(const struct probemap *m, const char *name);

/* Its index in m->features, or -1. */
int probemap__feature_index(const struct probemap *m, const char *name);

/*
 * The feature name reports use: "MAP:FEATURE" (e.g. "postgresql:plan").
 * Returns the length snprintf would, like snprintf.
 */
int probemap__full_name(const struct probemap *m, const struct probemap_feature *f, char *buf,
			size_t size);

/*
 * Selects features from a comma-separated list of names (plain "plan" or
 * full "postgresql:plan"; NULL or "" selects every feature not "default
 * off"). enabled[i] is set for features[i]. Returns the number enabled;
 * names that are not in this map are skipped and counted in *unknown (may
 * be NULL): the list may name features of several maps.
 */
int probemap__select(const struct probemap *m, const char *list, bool *enabled, int *unknown);

/* Formats an instance template back as text ("{str:1} ({str:0})"). */
int probemap__format_template(const struct probemap *m, const struct probemap_feature *f, char *buf,
			      size_t size);

/* Formats condition w of f back as text ("arg0 == 1", "{outer:vm-op} != \"X\""). */
int probemap__format_when(const struct probemap *m, const struct probemap_when *w, char *buf,
			  size_t size);

/*
 * The selected function features of m (list as probemap__select's; names
 * "MAP:FEATURE") as rules of ff (struct funcfeat, funcfeat.h). Returns how
 * many, or -EINVAL/-ENOMEM with err ("PATH:LINE: ..."); a template with
 * {global:SYMBOL} parts is -ENOTSUP (labels read at sample time are not
 * supported here yet).
 */
struct funcfeat;
int probemap__function_rules(const struct probemap *m, const char *list, struct funcfeat *ff,
			     char *err, size_t err_size);

/* Does the map use provider (one of "provider A B ...")? */
bool probemap__has_provider(const struct probemap *m, const char *provider);

/*
 * Does a thread named comm match the pattern of "charge threads": "*"
 * (every thread), "PREFIX*" or the whole name. The kernel side applies the
 * same rule (bpf/charge.bpf.h).
 */
bool probemap__pattern_match(const char *pattern, const char *comm);

#endif /* FSP_ANALYSIS_PROBEMAP_H */
