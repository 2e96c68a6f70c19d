/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Stack families: the mark stacks of one process (source, pid) whose frames
 * are equal but for their payloads — the same kinds, features and instances,
 * bottom to top. The recorder stores a stack whose samples carried payloads
 * once per payload vector it kept (and once more, flagged, for the samples
 * whose vector it did not keep) beside the stack without payloads
 * (docs/kernel-side.md, "Payloads are not part of a stack's identity"):
 * those are one family. Attribution never looks at payloads, so every stack
 * of a family is charged alike.
 *
 * A native sample (native.h) is joined to its core sample's family, not to
 * one stack of it: the recorder unwinds each sample once and names the
 * family's stack without payloads, whichever payload vector the core sample
 * went to (docs/profile-format.md, "native_samples[]"). So the native
 * samples of (thread, family) add up to at most the core samples of
 * (thread, family), and a view takes the samples without a native stack per
 * family too.
 */
#ifndef FSP_ANALYSIS_STACK_FAMILY_H
#define FSP_ANALYSIS_STACK_FAMILY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct profile;
struct stack_families;
struct family_groups;

/* The families of p's stacks as they are now (later stacks are not in
 * them). NULL on allocation failure. */
struct stack_families *stack_families__new(const struct profile *p);
void stack_families__free(struct stack_families *f); /* NULL-safe */

/* The family of stack id `stack`: the id of its first stack (the lowest id
 * of equal frames in that process). PROFILE_NO_STACK and ids the families
 * do not know (added later) are their own family. */
size_t stack_families__of(const struct stack_families *f, size_t stack);

/*
 * The unit native samples are counted in: a thread (source, pid, tid) and the
 * family of a stored stack, or the key of the empty stack and of an unknown
 * one. Groups are numbered densely from 0 in order of first addition.
 */
struct family_groups *family_groups__new(const struct profile *p); /* NULL: no memory */
void family_groups__free(struct family_groups *g); /* NULL-safe */
/* The group of a sample of thread (source, pid, tid) with stack id `stack`
 * (PROFILE_NO_STACK: the empty or an unknown stack, by key) in *out, added
 * when new if add. 0, -ENOENT (absent, !add) or -ENOMEM. */
int family_groups__of(struct family_groups *g, uint32_t source, uint32_t pid, uint32_t tid,
		      size_t stack, uint64_t key, bool add, size_t *out);
/* How many groups there are. */
size_t family_groups__nr(const struct family_groups *g);

#endif /* FSP_ANALYSIS_STACK_FAMILY_H */
