/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A window of a recording: what a session added between two of its
 * snapshots (session__snapshot), as a profile of its own, so that every view
 * of a profile (text, JSON, pprof, ...) works on "the last N seconds" (the
 * agent's /debug/pprof/profile?seconds=N, docs/fleet.md).
 *
 * Snapshots of one session only grow: a core sample's count, its off-CPU
 * time, an event record's counts and a native sample's count in the later
 * snapshot are at least those in the earlier one. The window holds their
 * differences, and of the processes, threads, stacks and native stacks only
 * those its samples and events use. A record whose value went down (a
 * process folded into another by -a's retirement between the snapshots) is
 * left out rather than counted negative.
 */
#ifndef FSP_ANALYSIS_WINDOW_H
#define FSP_ANALYSIS_WINDOW_H

#include "profile.h"

/*
 * The profile of what end has that start had not. Both are single
 * recordings (no source records) of one session, start taken first. Its
 * metadata is end's, with start_time start's end_time, end_time end's and
 * duration_s the difference; its diagnostics the differences of theirs. An
 * event record's max_ns is end's: the longest call up to the window's end
 * (the longest call of the window alone is not known). Returns the new
 * profile (the caller frees it), or NULL with *err -EINVAL (a merged
 * profile) or -ENOMEM.
 */
struct profile *profile__window(const struct profile *start, const struct profile *end, int *err);

#endif /* FSP_ANALYSIS_WINDOW_H */
