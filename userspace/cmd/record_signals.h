/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * SIGINT and SIGTERM while record makes a report. During the session they
 * are blocked and read from a signalfd by the session's loop, which ends the
 * session with its report; but a report runs analysis plug-ins, and one
 * that never returns would keep the loop from ever reading them. While a
 * report is made they are delivered instead:
 *
 *   the final report (the profile is saved by then): SIGTERM quits at once;
 *   a first Ctrl-C says that the report is being made, a second one quits;
 *
 *   a live report (--interval): a first signal ends the session after that
 *   report (it is sent again to the loop), a second one quits at once,
 *   nothing saved.
 */
#ifndef FSP_RECORD_SIGNALS_H
#define FSP_RECORD_SIGNALS_H

#include <signal.h>
#include <stdbool.h>

struct record_signals {
	bool live;
	sigset_t old_mask;
	struct sigaction old_int, old_term;
};

/* From here SIGINT and SIGTERM are delivered as above. */
void record_signals__report(struct record_signals *rs, bool live);
/* Back to the session's rule (blocked); a live report's signal, if one came,
 * is pending again for the loop. */
void record_signals__done(struct record_signals *rs);

#endif /* FSP_RECORD_SIGNALS_H */
