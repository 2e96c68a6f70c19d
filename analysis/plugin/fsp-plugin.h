/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * fsp-plugin.h - the interface of fsp-bpf analysis plug-ins.
 *
 * Installed by `make install` as <fsp/fsp-plugin.h>; the plug-in author's
 * guide is docs/plugins.md. A plug-in turns a feature's core samples (every
 * mark stack sampled, with each frame's feature, instance label and 64-bit
 * payload) into a report of its own: a section of the text report, a record
 * of the "plugins" member of the JSON profile, a Graphviz DOT graph.
 *
 * A plug-in is a struct fsp_plugin. Built-in ones are compiled into fsp-bpf;
 * any other is a shared object that exports the function
 *
 *     const struct fsp_plugin *fsp_plugin_entry(void);
 *
 * (FSP_PLUGIN_DEFINE below writes it) and is named by its path:
 * `fsp-bpf report --plugin ./libmine.so prof.json`. The object links
 * nothing of fsp-bpf: everything it reads and writes goes through the
 * function table struct fsp_plugin_host that fsp-bpf passes to each call.
 *
 * Lifecycle, for each rendering of a profile:
 *   1. analyze(host, profile, args, &state): read the profile, keep what the
 *      renderers need in *state (the plug-in's own allocation);
 *   2. render_text / render_json / render_dot: zero or more, in any order,
 *      each writing one format (a NULL member: the format is not offered;
 *      render_text is required);
 *   3. release(state).
 * The profile and every string it hands out stay valid from analyze to
 * release. Calls come from one thread; a plug-in needs no locking.
 *
 * Versioning. abi_version is the first member of struct fsp_plugin and of
 * struct fsp_plugin_host in every version. fsp-bpf loads a plug-in whose
 * abi_version it supports (this header: exactly FSP_PLUGIN_ABI_VERSION) and
 * refuses any other with a message. Later versions only append members to
 * the structures; `size` says how much of a structure the other side knows:
 * a plug-in calls a host function appended after the first release only when
 * FSP_PLUGIN_HOST_HAS(host, member) says the host has it (an older fsp-bpf
 * has not).
 *
 * C99 and C++, libc headers only.
 */
#ifndef FSP_PLUGIN_H
#define FSP_PLUGIN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FSP_PLUGIN_ABI_VERSION 1

/* The symbol a plug-in shared object exports (dlsym name). */
#define FSP_PLUGIN_ENTRY_NAME "fsp_plugin_entry"

enum fsp_plugin_frame_kind {
	FSP_PLUGIN_MARK = 1,
	FSP_PLUGIN_ANTIMARK = 2,
};

/*
 * One frame of a mark stack (frames are bottom..top). Strings are interned
 * per profile: two frames with equal feature names have the same feature
 * pointer, and equal instance labels the same instance pointer, so plug-ins
 * compare and hash them as pointers. A mark that another thread of the
 * process had open (a probe map's "charge threads": it charges this
 * thread's samples too) is a FSP_PLUGIN_MARK frame at the top of the stack;
 * host->charges tells it apart.
 */
struct fsp_plugin_frame {
	int kind; /* enum fsp_plugin_frame_kind */
	const char *feature; /* never NULL */
	const char *instance; /* NULL: the mark passed none (antimarks: always) */
	uint64_t payload; /* the mark's payload; 0 for antimarks */
};

/* No stack: the sample's mark stack was empty or could not be recorded. */
#define FSP_PLUGIN_NO_STACK SIZE_MAX

/* A distinct mark stack of a process. */
struct fsp_plugin_stack {
	uint32_t source; /* the recording it comes from (merged profiles), else 0 */
	uint32_t pid;
	const struct fsp_plugin_frame *frames; /* NULL when depth is 0 */
	size_t depth;
};

/*
 * A core sample: the samples one thread took with one mark stack. A profile
 * holds one record per distinct (source, pid, tid, stack).
 */
struct fsp_plugin_sample {
	uint32_t source;
	uint32_t pid;
	uint32_t tid;
	uint64_t count; /* on-CPU samples, each info.period_ns of CPU time */
	uint64_t offcpu_ns; /* off-CPU time with this stack (fsp-bpf --off-cpu), else 0 */
	size_t stack; /* the stack's id (< info.nr_stacks) or FSP_PLUGIN_NO_STACK */
	const struct fsp_plugin_frame *frames; /* the stack's frames, NULL when depth is 0 */
	size_t depth;
};

/* Why a frame charges its feature (struct fsp_plugin_charge). */
enum fsp_plugin_charge_why {
	FSP_PLUGIN_CHARGE_MARK = 1, /* a mark of the sampled thread */
	FSP_PLUGIN_CHARGE_OTHER_THREAD = 2, /* a mark another thread had open ("charge threads") */
};

/*
 * A feature that a mark stack charges, by the attribution rule the reports
 * apply (docs/plugins.md): for every feature with a frame in the stack, its
 * top-most frame decides; a mark (of this thread or another) charges the
 * feature and the mark's instance, an antimark charges nothing.
 */
struct fsp_plugin_charge {
	const char *feature; /* interned, as frame.feature */
	const char *instance; /* the charged frame's instance (NULL: none) */
	size_t frame; /* the charged frame, the feature's top-most: frames[frame] */
	int why; /* enum fsp_plugin_charge_why */
};

/* The event view: exact counts and durations of one (process, feature,
 * instance), when the session recorded them. */
struct fsp_plugin_events {
	uint32_t source;
	uint32_t pid;
	const char *feature;
	const char *instance; /* NULL: marks entered without an instance */
	uint64_t enters; /* marks entered */
	uint64_t leaves; /* marks left normally; total_ns and max_ns are theirs */
	uint64_t total_ns; /* time inside the marks, less the feature's antimarks */
	uint64_t max_ns;
};

/* The profile as a whole. */
struct fsp_plugin_info {
	uint64_t period_ns; /* CPU time one sample stands for; 0: unknown */
	uint64_t total_samples; /* every sample of the profile: the running time */
	uint64_t total_offcpu_ns; /* 0 when the session did not measure off-CPU time */
	size_t nr_stacks;
	size_t nr_processes;
	size_t nr_sources; /* recordings a merged profile was made of; 0: one recording */
};

/* What the user asked of the plug-in. */
struct fsp_plugin_args {
	/* The feature to read: the plug-in's own default or --plugin NAME=FEATURE.
	 * It is the profile's interned pointer: compare frame.feature with it. */
	const char *feature;
	/* --min-pct: rows and nodes under this share of running time may be
	 * folded in text and DOT (JSON keeps everything). */
	double min_pct;
};

struct fsp_plugin_profile; /* the profile being analysed: opaque */
struct fsp_plugin_json; /* a JSON writer: opaque */

/*
 * What fsp-bpf offers a plug-in. Accessors take the profile handle; index
 * arguments run from 0 to the count; out-of-range indexes return -EINVAL
 * (a negative errno) and leave *out alone.
 */
struct fsp_plugin_host {
	uint32_t abi_version; /* FSP_PLUGIN_ABI_VERSION of the host */
	uint32_t size; /* sizeof(struct fsp_plugin_host) of the host */

	void (*info)(const struct fsp_plugin_profile *p, struct fsp_plugin_info *out);
	int (*stack)(const struct fsp_plugin_profile *p, size_t i, struct fsp_plugin_stack *out);
	size_t (*nr_samples)(const struct fsp_plugin_profile *p);
	int (*sample)(const struct fsp_plugin_profile *p, size_t i, struct fsp_plugin_sample *out);
	size_t (*nr_events)(const struct fsp_plugin_profile *p);
	int (*event)(const struct fsp_plugin_profile *p, size_t i, struct fsp_plugin_events *out);
	/* The thread's name (its comm), "" when unknown; never NULL. */
	const char *(*thread_name)(const struct fsp_plugin_profile *p, uint32_t source,
				   uint32_t pid, uint32_t tid);
	/* How reports name a process: "PID", or "SOURCE:PID" in a merged profile. */
	void (*process_name)(const struct fsp_plugin_profile *p, uint32_t source, uint32_t pid,
			     char *buf, size_t size);
	/*
	 * Records the message a failing call (analyze, render_*) returns with;
	 * fsp-bpf prints it as "fsp-bpf: plug-in NAME: MESSAGE". One line, no
	 * trailing newline; the first message of a call is kept.
	 */
	void (*error)(const struct fsp_plugin_profile *p, const char *fmt, ...)
		__attribute__((format(printf, 2, 3)));

	/* ---- output helpers ---- */

	/*
	 * A label (feature, instance, comm: text the profiled program chose) as
	 * the text report shows it: control characters, invalid UTF-8 and
	 * backslashes escaped, so that no label can move the cursor or break a
	 * line. Into buf (NUL-terminated when size > 0, cut before an escape that
	 * does not fit); returns the escaped length (cut when >= size).
	 */
	size_t (*text_escape)(char *buf, size_t size, const char *s);
	/*
	 * A label inside a DOT double-quoted string (the plug-in writes the
	 * quotes): escaped as text_escape does, then its quotes and backslashes
	 * escaped for DOT, so that a label cannot end the string or add a line.
	 */
	void (*dot_escape)(FILE *out, const char *s);

	/*
	 * The JSON writer of render_json: a value is a scalar, or an object or
	 * array opened, filled and closed. In an object each value follows a
	 * json_key. The writer adds commas and escapes strings (made valid
	 * UTF-8); a misuse (a value without a key in an object, a close that
	 * does not match) fails the rendering with a message.
	 */
	void (*json_object_begin)(struct fsp_plugin_json *j);
	void (*json_object_end)(struct fsp_plugin_json *j);
	void (*json_array_begin)(struct fsp_plugin_json *j);
	void (*json_array_end)(struct fsp_plugin_json *j);
	void (*json_key)(struct fsp_plugin_json *j, const char *key);
	void (*json_string)(struct fsp_plugin_json *j, const char *s); /* NULL writes null */
	void (*json_u64)(struct fsp_plugin_json *j, uint64_t v);
	void (*json_i64)(struct fsp_plugin_json *j, int64_t v);
	void (*json_real)(struct fsp_plugin_json *j, double v); /* not finite: null */
	void (*json_bool)(struct fsp_plugin_json *j, int v);
	void (*json_null)(struct fsp_plugin_json *j);

	/* ---- appended after the first release: FSP_PLUGIN_HOST_HAS(host, NAME) ---- */

	/*
	 * The charges of stack i (< info.nr_stacks, or a sample's stack): one
	 * per feature whose top-most frame in the stack is a mark, the
	 * top-most charged frame first; *n of them, NULL when the stack charges
	 * nothing (or i is out of range). Summing a sample's count for the
	 * charge of a feature gives that feature's samples in the text report.
	 */
	const struct fsp_plugin_charge *(*charges)(const struct fsp_plugin_profile *p, size_t i,
						   size_t *n);
};

/* Whether host has member `name` (a function appended after the first
 * release): its size covers it. */
#define FSP_PLUGIN_HOST_HAS(host, name)                                                            \
	((host)->size >= offsetof(struct fsp_plugin_host, name) + sizeof((host)->name))

/* A plug-in. Return values: 0, or a negative errno (-ENOMEM, -EIO, ...),
 * with a message (host->error) when the errno alone would not say enough. */
struct fsp_plugin {
	uint32_t abi_version; /* FSP_PLUGIN_ABI_VERSION */
	uint32_t size; /* sizeof(struct fsp_plugin) */
	const char *name; /* letters, digits, '_' and '-' */
	const char *summary; /* one line for fsp-bpf list --plugins */
	/* The feature it reads unless --plugin NAME=FEATURE names another; NULL:
	 * the user must name one. */
	const char *feature;

	/* Reads the profile; *state is passed to the renderers and release.
	 * fsp-bpf calls it only when the profile has samples of args->feature. */
	int (*analyze)(const struct fsp_plugin_host *host, const struct fsp_plugin_profile *p,
		       const struct fsp_plugin_args *args, void **state);
	/* The body of the plug-in's section of the text report (fsp-bpf prints
	 * its heading); lines start with two spaces. */
	int (*render_text)(const struct fsp_plugin_host *host, const struct fsp_plugin_profile *p,
			   void *state, FILE *out);
	/* One JSON value (usually an object), the "result" of the plug-in's
	 * record in the JSON profile's "plugins" member. NULL: none. */
	int (*render_json)(const struct fsp_plugin_host *host, const struct fsp_plugin_profile *p,
			   void *state, struct fsp_plugin_json *j);
	/* A whole Graphviz graph ("digraph NAME { ... }"), --format dot. NULL:
	 * the plug-in draws no graph. */
	int (*render_dot)(const struct fsp_plugin_host *host, const struct fsp_plugin_profile *p,
			  void *state, FILE *out);
	void (*release)(void *state); /* NULL-safe in state */
};

typedef const struct fsp_plugin *(*fsp_plugin_entry_fn)(void);

/* The entry point of a plug-in shared object (FSP_PLUGIN_DEFINE defines it). */
const struct fsp_plugin *fsp_plugin_entry(void);

#ifdef __cplusplus
#define FSP_PLUGIN_EXTERN_C extern "C"
#else
#define FSP_PLUGIN_EXTERN_C
#endif

/*
 * In a plug-in's source, after `static const struct fsp_plugin my_plugin =
 * {...};`: FSP_PLUGIN_DEFINE(my_plugin) defines the exported entry point
 * (default visibility, also under -fvisibility=hidden).
 */
#define FSP_PLUGIN_DEFINE(desc)                                                                    \
	FSP_PLUGIN_EXTERN_C __attribute__((visibility("default"))) const struct fsp_plugin *       \
	fsp_plugin_entry(void)                                                                     \
	{                                                                                          \
		return &(desc);                                                                    \
	}

#ifdef __cplusplus
}
#endif

#endif /* FSP_PLUGIN_H */
