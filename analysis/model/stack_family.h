/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Stack families: the mark stacks of one process (source, pid) whose frames
 * are equal but for their payloads — the same kinds, features and instances,
 * bottom to top. The recorder stores a stack whose samples carried payloads
 * once per payload vector it kept (and once more, flagged, for the samples
 * whose vector it did not keep) beside the stack without payloads
 * (docs/architecture.md, "Payloads are not part of a stack's identity"):
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

#include <stddef.h>

struct profile;
struct stack_families;

/* The families of p's stacks as they are now (later stacks are not in
 * them). NULL on allocation failure. */
struct stack_families *stack_families__new(const struct profile *p);
void stack_families__free(struct stack_families *f); /* NULL-safe */

/* The family of stack id `stack`: the id of its first stack (the lowest id
 * of equal frames in that process). PROFILE_NO_STACK and ids the families
 * do not know (added later) are their own family. */
size_t stack_families__of(const struct stack_families *f, size_t stack);

#endif /* FSP_ANALYSIS_STACK_FAMILY_H */
