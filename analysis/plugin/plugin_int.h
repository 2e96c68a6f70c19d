/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Internal to analysis/plugin: the profile handle and JSON writer behind
 * fsp-plugin.h's opaque types, and the host's function table. */
#ifndef FSP_ANALYSIS_PLUGIN_INT_H
#define FSP_ANALYSIS_PLUGIN_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "charges.h"
#include "fsp-plugin.h"
#include "hashmap.h"
#include "profile.h"

#define PLUGIN_MSG_LEN 512

/* The profile as one plug-in sees it during one run. */
struct fsp_plugin_profile {
	const struct profile *p; /* the (filtered) profile */
	struct hashmap
		threads; /* ((source, pid), tid) -> thread index + 1, built when first asked */
	bool threads_built;
	/* The stacks' frames as plug-ins see them, when the profile has marks
	 * of other threads (PROFILE_CHARGED): those as marks, as fsp-plugin.h
	 * says. NULL: the model's frames are handed out as they are. */
	struct fsp_plugin_frame *frames;
	size_t *frame_first; /* per stack: its frames' offset in frames */
	/* The charges of every stack (charges.h), and the same as plug-ins see
	 * them (pcharges[k] is charges.charges[k]). */
	struct charges charges;
	struct fsp_plugin_charge *pcharges;
	char msg[PLUGIN_MSG_LEN]; /* host->error's message of the current call */
	bool has_msg;
};

/* Nesting the JSON writer allows. */
#define PLUGIN_JSON_MAX_DEPTH 32

struct fsp_plugin_json {
	struct json_out *w;
	struct fsp_plugin_profile *pp; /* misuse is reported through its message */
	int depth;
	char kind[PLUGIN_JSON_MAX_DEPTH]; /* 'o' object, 'a' array */
	bool first[PLUGIN_JSON_MAX_DEPTH]; /* no member or element written yet */
	bool key_pending; /* a key written, its value not yet */
	bool done; /* the top-level value is complete */
	bool failed;
};

extern const struct fsp_plugin_host plugin_host;

struct plugin_set;

/* The i-th plug-in of s, in *feature the feature --plugin gave it (NULL:
 * its own) and in *spec how it was named (its name, or its path). NULL when
 * i is out of range. */
const struct fsp_plugin *plugin_set__plugin(const struct plugin_set *s, size_t i,
					    const char **feature, const char **spec);

/* The profile handle over p (may be NULL: a handle without a profile):
 * the charges of its stacks computed, its threads map built when needed.
 * 0 or -ENOMEM / -errno of the model. */
int plugin_profile__init(struct fsp_plugin_profile *pp, const struct profile *p);
void plugin_profile__fini(struct fsp_plugin_profile *pp); /* NULL-safe, idempotent */

/* A writer into w; plugin_json__finish checks that one whole value was
 * written (0, or -EINVAL with the message in pp). */
void plugin_json__init(struct fsp_plugin_json *j, struct json_out *w,
		       struct fsp_plugin_profile *pp);
int plugin_json__finish(struct fsp_plugin_json *j);

#endif /* FSP_ANALYSIS_PLUGIN_INT_H */
