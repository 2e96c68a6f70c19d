/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Inside the agent (agent.h): what its files share.
 *
 *	agent.c		lifecycle, the requests' snapshots (the session's side)
 *	agent_http.c	the HTTP server: routing, authorization, responses
 *	agent_render.c	turning snapshots into bodies: metrics, windows
 *	agent_addr.c	--listen's address, loopback or not
 *	agent_auth.c	the authorization file and checking a request
 *	agent_options.c	the command line
 *
 * Threads: the session's (agent__on_wake: snapshots) and the server's
 * (agent_http.c, agent_render.c). a->lock guards the requests' states and
 * the snapshots' references; a->metrics_lock the metrics.
 */
#ifndef FSP_AGENT_INT_H
#define FSP_AGENT_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "agent.h"
#include "metrics.h"

struct MHD_Connection;
struct MHD_Daemon;

/* A snapshot of the session, shared by the requests that use it. */
struct agent_snap {
	int refs;
	struct profile *p;
	double mono; /* CLOCK_MONOTONIC when taken */
	bool native; /* with the native stacks (--stacks) */
	uint32_t *alive; /* the targets alive then, sorted */
	size_t nr_alive;
	char marks[64];
};

enum agent_req_kind {
	REQ_METRICS,
	REQ_PPROF,
	REQ_JSON,
};

enum agent_req_state {
	REQ_QUEUED, /* waits for the session's loop */
	REQ_WINDOW, /* has its start, waits for its end */
	REQ_READY, /* has what it needs: rendered by the server */
	REQ_FAILED, /* the session ended first */
};

struct agent_req {
	struct agent *a;
	struct MHD_Connection *conn;
	enum agent_req_kind kind;
	enum metrics_format format; /* REQ_METRICS */
	unsigned int seconds; /* windows */
	enum agent_req_state state;
	bool suspended;
	bool at_stop; /* failed by agent__stop, which waits for its answer */
	double due; /* CLOCK_MONOTONIC: a window's end */
	struct agent_snap *start, *end;
	struct agent_req *next; /* in a->pending */
};

struct agent_cred; /* agent_auth.c */

struct agent {
	struct agent_opts o;
	agent_meta_fn meta;
	void *meta_ctx;
	agent_charge_fn charge; /* function features: NULL without */
	struct MHD_Daemon *daemon;
	int efd; /* eventfd: requests for the session's loop */
	int tfd; /* timerfd: the next window's end */
	int epfd; /* both: agent__fd */
	char *cert, *key; /* TLS, PEM */
	struct agent_cred *creds;
	size_t nr_creds;
	pthread_mutex_t lock;
	struct agent_req *pending; /* queued or windows under way */
	size_t nr_windows;
	double metrics_mono; /* when /metrics last had a snapshot */
	double metrics_due; /* when the next may be taken (0: now) */
	bool stopping;
	size_t nr_failing; /* requests resumed at the end to be answered 503 */
	pthread_cond_t answered; /* nr_failing went down */
	pthread_mutex_t metrics_lock;
	struct metrics *metrics;
	double metrics_at; /* the snapshot the metrics were last updated from */
	double session_start; /* unix seconds */
	uint64_t period_ns;
};

/* agent.c */
void agent_snap__put(struct agent *a, struct agent_snap *s); /* NULL-safe */
/* Queues r for the session's loop (a->lock held): 0, or -ESHUTDOWN. */
int agent__queue(struct agent *a, struct agent_req *r);

/* agent_http.c */
int agent_http__start(struct agent *a, const struct sockaddr *sa, socklen_t len);
void agent_http__stop(struct agent *a);
/* The port the server listens on (the one asked for, or the one chosen for 0). */
unsigned int agent_http__port(const struct agent *a);
/* Lets a suspended request's connection go on (any thread). */
void agent_http__resume(struct agent_req *r);

/* agent_render.c */
/* The body of a ready request: *body (malloc'ed) of *len bytes and its
 * content type; 0 or -errno. */
int agent_render(struct agent *a, struct agent_req *r, char **body, size_t *len, const char **type);

/* agent_addr.c */
/* "[ADDR:]PORT" (a bare port: 127.0.0.1) into *ss. ADDR is a numeric IPv4
 * address, a bracketed IPv6 one ("[::1]") or localhost. 0 or -EINVAL. */
int agent_addr__parse(const char *s, struct sockaddr_storage *ss, socklen_t *len);
/* Is the address a loopback one (127.0.0.0/8, ::1, ::ffff:127.0.0.0/104)? */
bool agent_addr__loopback(const struct sockaddr_storage *ss);
/* "127.0.0.1:9464", "[::1]:9464" */
void agent_addr__format(const struct sockaddr_storage *ss, unsigned int port, char *buf,
			size_t size);

/* agent_auth.c */
/* The credentials of an authorization file: lines "Bearer TOKEN" or
 * "Basic USER:PASSWORD" (as the Authorization header carries them; '#'
 * comments and blank lines ignored). 0, or -errno with a message printed
 * (a file others may read, a line of neither kind, no credential). */
int agent_auth__load(const char *path, struct agent_cred **out, size_t *nr);
/* From a file's text (for the tests): 0 or -EINVAL, with the line number
 * of the first bad line in *bad_line. */
int agent_auth__parse(const char *text, struct agent_cred **out, size_t *nr, int *bad_line);
void agent_auth__free(struct agent_cred *c, size_t nr);
/* Does an Authorization header's value match a credential? (Basic: the
 * decoded user and password.) Constant time in the secrets' bytes. */
bool agent_auth__check(const struct agent_cred *c, size_t nr, const char *header);
/* Reads a whole file of at most AGENT_MAX_FILE bytes that only its owner
 * may read (what names it: "--tls-key"); NULL with a message. */
char *agent_auth__read_private(const char *path, const char *what, bool private_only);

#endif /* FSP_AGENT_INT_H */
