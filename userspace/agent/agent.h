/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The agent (record --listen, docs/fleet.md): an HTTP server beside a
 * profiling session, on libmicrohttpd (TLS through GnuTLS), for the
 * engines fleets already run:
 *
 *	GET /metrics			Prometheus text 0.0.4, or OpenMetrics when
 *					Accept asks (analysis/metrics/)
 *	GET /debug/pprof/profile?seconds=N	a gzipped pprof of the next N
 *					seconds, as Go's net/http/pprof serves it
 *	GET /profile?seconds=N&format=json	the same window as fsp-bpf's
 *					profile file (report, diff work on it)
 *	GET /healthz			"ok"
 *
 * The server's threads never touch the session: a request asks the
 * session's event loop (session_opts.on_wake, through agent__fd) for a
 * snapshot, waits suspended, and renders it when the loop hands it over.
 * A window is the difference of a snapshot at its start and one at its
 * end (analysis/model/window.h).
 */
#ifndef FSP_AGENT_H
#define FSP_AGENT_H

#include <argp.h>
#include <stdbool.h>

#include "metrics.h"

struct profile;
struct session;

/* Bounds of the server (docs/fleet.md "Limits"). */
#define AGENT_MAX_CONNECTIONS 64
#define AGENT_MAX_PER_IP 16
#define AGENT_TIMEOUT_S 10 /* a connection idle this long is closed */
#define AGENT_CONNECTION_MEMORY (16 * 1024) /* request line and headers */
#define AGENT_MAX_WINDOW_S 600
#define AGENT_DEFAULT_WINDOW_S 30 /* seconds= absent, as Go's pprof */
#define AGENT_MAX_WINDOWS 16 /* windows under way at once */
#define AGENT_THREADS 2
/* /metrics takes a snapshot at most this often (requests meanwhile wait). */
#define AGENT_SNAPSHOT_S 0.2
/* The authorization file and TLS files: at most this many bytes. */
#define AGENT_MAX_FILE (1 << 20)
/* At the end, how long the requests still waiting get to receive their 503. */
#define AGENT_STOP_WAIT_S 2

/* What record's command line sets (agent_options.c parses it). */
struct agent_opts {
	const char *listen; /* [ADDR:]PORT, NULL: no agent */
	bool insecure; /* --listen-insecure */
	const char *tls_cert, *tls_key;
	const char *auth_file;
	struct metrics_opts metrics;
	bool offcpu; /* the session has --off-cpu: the off-CPU counters */
};

/* The report options' parser's child: --listen and the agent's options;
 * its input is the struct agent_opts. */
extern const struct argp agent_argp;

/* Fills in a snapshot's metadata (record's, for the profile file). */
typedef int (*agent_meta_fn)(struct profile *p, struct session *s, void *ctx);
/* Charges a profile's function features (its metadata's rules), as report
 * does: the snapshots of /metrics and the pprof windows. */
typedef int (*agent_charge_fn)(struct profile *p);

struct agent;

/*
 * Reads the TLS and authorization files and starts serving (the threads
 * ask for snapshots through agent__fd; requests wait until the session's
 * loop runs). Says where it listens. NULL with *err and a message on error
 * (the address in use, a file that cannot be read or is readable by others).
 */
struct agent *agent__new(const struct agent_opts *o, agent_meta_fn meta, void *meta_ctx, int *err);
/* With function features (the session's rules, in each snapshot's metadata
 * by meta): /metrics snapshots carry the native stacks, symbolized, and the
 * metrics and pprof windows are charged by charge. */
void agent__set_charge(struct agent *a, agent_charge_fn charge);
/* The fd for session_opts.wake_fd; agent__on_wake is its on_wake. */
int agent__fd(const struct agent *a);
void agent__on_wake(struct session *s, void *ctx);
/* Ends the requests under way (503: the session ended) and the server.
 * Idempotent; the session must not be running. */
void agent__stop(struct agent *a);
void agent__free(struct agent *a); /* NULL-safe; stops first */

#endif /* FSP_AGENT_H */
