// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The agent's HTTP server, libmicrohttpd's: a pool of AGENT_THREADS
 * threads (epoll), TLS through GnuTLS, bounded connections (in all and per
 * client address), request headers (AGENT_CONNECTION_MEMORY: larger ones
 * are refused by the library) and idle time (AGENT_TIMEOUT_S: a client that
 * stops sending or reading is disconnected). A request for data is queued
 * for the session's loop and its connection suspended until the loop hands
 * the snapshot over; the rendering happens here, in the server's threads.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <malloc.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <microhttpd.h>

#include "agent_int.h"
#include "log.h"

#define TEXT "text/plain; charset=utf-8"
#define STR_(x) #x
#define STR(x) STR_(x)

static const char index_text[] =
	"fsp-bpf agent (docs/fleet.md)\n"
	"  /metrics                          Prometheus text 0.0.4, or OpenMetrics (Accept)\n"
	"  /debug/pprof/profile?seconds=N    a gzipped pprof of the next N seconds\n"
	"  /profile?seconds=N&format=json    the same window as a profile file\n"
	"  /healthz                          ok\n";

static enum MHD_Result reply(struct MHD_Connection *c, unsigned int status, const char *type,
			     char *body, size_t len, bool owned)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = MHD_create_response_from_buffer(len, body,
					    owned ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
	if (!r) {
		if (owned)
			free(body);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	if (status == MHD_HTTP_SERVICE_UNAVAILABLE)
		MHD_add_response_header(r, MHD_HTTP_HEADER_RETRY_AFTER, "10");
	if (!strncmp(type, "application/octet-stream", 24))
		MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_DISPOSITION,
					"attachment; filename=\"profile\"");
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result text(struct MHD_Connection *c, unsigned int status, const char *msg)
{
	return reply(c, status, TEXT, (char *)msg, strlen(msg), false);
}

static enum MHD_Result unauthorized(const struct agent *a, struct MHD_Connection *c)
{
	static const char msg[] = "unauthorized: this agent needs the credentials of its "
				  "--auth-file\n";
	struct MHD_Response *r = MHD_create_response_from_buffer(sizeof(msg) - 1, (void *)msg,
								 MHD_RESPMEM_PERSISTENT);
	enum MHD_Result ret;

	(void)a;
	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, TEXT);
	MHD_add_response_header(r, MHD_HTTP_HEADER_WWW_AUTHENTICATE,
				"Bearer realm=\"fsp-bpf\", Basic realm=\"fsp-bpf\"");
	ret = MHD_queue_response(c, MHD_HTTP_UNAUTHORIZED, r);
	MHD_destroy_response(r);
	return ret;
}

/* seconds= of a window: digits only, 1 to AGENT_MAX_WINDOW_S (absent: 30). */
static int parse_seconds(struct MHD_Connection *c, unsigned int *out)
{
	const char *s = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "seconds");
	unsigned long v = 0;

	if (!s) {
		*out = AGENT_DEFAULT_WINDOW_S;
		return 0;
	}
	if (!*s || strlen(s) > 6 || strspn(s, "0123456789") != strlen(s))
		return -EINVAL;
	v = strtoul(s, NULL, 10);
	if (v < 1 || v > AGENT_MAX_WINDOW_S)
		return -EINVAL;
	*out = (unsigned int)v;
	return 0;
}

/* The request url names, or an error response (*done). */
static struct agent_req *route(struct agent *a, struct MHD_Connection *c, const char *url,
			       enum MHD_Result *done)
{
	static const char bad_seconds[] =
		"seconds must be an integer from 1 to " STR(AGENT_MAX_WINDOW_S) "\n";
	struct agent_req *r;
	enum agent_req_kind kind;
	unsigned int seconds = 0;
	const char *fmt;

	if (!strcmp(url, "/metrics")) {
		kind = REQ_METRICS;
	} else if (!strcmp(url, "/debug/pprof/profile") || !strcmp(url, "/profile")) {
		fmt = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "format");
		kind = !strcmp(url, "/profile") && (!fmt || !strcmp(fmt, "json")) ? REQ_JSON
										  : REQ_PPROF;
		if (fmt && strcmp(fmt, "json") && strcmp(fmt, "pprof")) {
			*done = text(c, MHD_HTTP_BAD_REQUEST, "format must be json or pprof\n");
			return NULL;
		}
		if (parse_seconds(c, &seconds)) {
			*done = text(c, MHD_HTTP_BAD_REQUEST, bad_seconds);
			return NULL;
		}
	} else if (!strcmp(url, "/")) {
		*done = text(c, MHD_HTTP_OK, index_text);
		return NULL;
	} else {
		*done = text(c, MHD_HTTP_NOT_FOUND, "not found (see /)\n");
		return NULL;
	}
	r = calloc(1, sizeof(*r));
	if (!r) {
		*done = MHD_NO;
		return NULL;
	}
	r->a = a;
	r->conn = c;
	r->kind = kind;
	r->seconds = seconds;
	r->format = metrics__negotiate(
		MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT));
	return r;
}

/* A resumed request: its body, or why there is none. */
static enum MHD_Result respond(struct agent *a, struct agent_req *r)
{
	const char *type = TEXT;
	char *body = NULL;
	size_t len = 0;
	int err;

	if (r->state != REQ_READY)
		return text(r->conn, MHD_HTTP_SERVICE_UNAVAILABLE,
			    "the profiling session ended before the request could be served\n");
	err = agent_render(a, r, &body, &len, &type);
	if (err) {
		log__verbose("agent: cannot render a response: %s", strerror(-err));
		return text(r->conn, MHD_HTTP_INTERNAL_SERVER_ERROR,
			    "cannot render the response\n");
	}
	return reply(r->conn, MHD_HTTP_OK, type, body, len, true);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version, const char *upload,
				  size_t *upload_size, void **con_cls)
{
	struct agent *a = cls;
	struct agent_req *r = *con_cls;
	enum MHD_Result done = MHD_YES;
	int err;

	(void)version;
	(void)upload;
	if (r)
		return r->suspended ? (r->suspended = false, respond(a, r)) : MHD_YES;
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return text(c, MHD_HTTP_METHOD_NOT_ALLOWED, "only GET and HEAD\n");
	if (*upload_size)
		return text(c, MHD_HTTP_BAD_REQUEST, "a GET request has no body\n");
	if (!strcmp(url, "/healthz"))
		return text(c, MHD_HTTP_OK, "ok\n");
	if (a->nr_creds &&
	    !agent_auth__check(
		    a->creds, a->nr_creds,
		    MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION)))
		return unauthorized(a, c);
	r = route(a, c, url, &done);
	if (!r)
		return done;
	pthread_mutex_lock(&a->lock);
	err = agent__queue(a, r);
	if (!err) {
		/* Before the session's loop can resume it: under the lock. */
		MHD_suspend_connection(c);
		r->suspended = true;
		*con_cls = r;
	}
	pthread_mutex_unlock(&a->lock);
	if (!err)
		return MHD_YES;
	free(r);
	if (err == -EBUSY)
		return text(c, MHD_HTTP_SERVICE_UNAVAILABLE,
			    "too many profile windows under way: try again later\n");
	return text(c, MHD_HTTP_SERVICE_UNAVAILABLE, "the profiling session has ended\n");
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
			 enum MHD_RequestTerminationCode toe)
{
	struct agent *a = cls;
	struct agent_req *r = *con_cls;

	(void)c;
	(void)toe;
	if (!r)
		return;
	if (r->at_stop) {
		pthread_mutex_lock(&a->lock);
		if (!--a->nr_failing)
			pthread_cond_broadcast(&a->answered);
		pthread_mutex_unlock(&a->lock);
	}
	agent_snap__put(a, r->start);
	agent_snap__put(a, r->end);
	free(r);
	*con_cls = NULL;
	/* A response and a snapshot are megabytes with thousands of series:
	 * given back now, not kept by the allocator's arenas until the next
	 * (each server thread has its own). */
	malloc_trim(0);
}

void agent_http__resume(struct agent_req *r)
{
	MHD_resume_connection(r->conn);
}

/* The library's messages (a client's bad request, a failed handshake) are
 * not the session's business: verbose only. */
static void on_log(void *cls, const char *fmt, va_list ap)
{
	char msg[512];
	size_t n;

	(void)cls;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	n = strlen(msg);
	while (n && msg[n - 1] == '\n')
		msg[--n] = 0;
	log__verbose("agent: %s", msg);
}

int agent_http__start(struct agent *a, const struct sockaddr *sa, socklen_t len)
{
	unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL |
			     MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG;
	struct MHD_OptionItem ops[] = {
		{MHD_OPTION_SOCK_ADDR, 0, (void *)sa},
		{MHD_OPTION_CONNECTION_LIMIT, AGENT_MAX_CONNECTIONS, NULL},
		{MHD_OPTION_PER_IP_CONNECTION_LIMIT, AGENT_MAX_PER_IP, NULL},
		{MHD_OPTION_CONNECTION_TIMEOUT, AGENT_TIMEOUT_S, NULL},
		{MHD_OPTION_CONNECTION_MEMORY_LIMIT, AGENT_CONNECTION_MEMORY, NULL},
		{MHD_OPTION_THREAD_POOL_SIZE, AGENT_THREADS, NULL},
		{MHD_OPTION_STRICT_FOR_CLIENT, 1, NULL},
		{a->cert ? MHD_OPTION_HTTPS_MEM_CERT : MHD_OPTION_END, 0, a->cert},
		{a->cert ? MHD_OPTION_HTTPS_MEM_KEY : MHD_OPTION_END, 0, a->key},
		{MHD_OPTION_END, 0, NULL},
	};
	char where[80];
	sigset_t all, old;
	int err = 0;

	(void)len;
	if (sa->sa_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	if (a->cert)
		flags |= MHD_USE_TLS;
	/* The server's threads take no signal: the session's signalfd reads
	 * SIGINT, SIGTERM and SIGCHLD, which a thread not blocking them
	 * would take instead. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	errno = 0;
	/* The logger first: libmicrohttpd complains (through its own logger,
	 * to stderr) about any option before it. */
	a->daemon =
		MHD_start_daemon(flags, 0, NULL, NULL, on_request, a, MHD_OPTION_EXTERNAL_LOGGER,
				 on_log, a, MHD_OPTION_NOTIFY_COMPLETED, on_completed, a,
				 MHD_OPTION_ARRAY, ops, MHD_OPTION_END);
	err = errno;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!a->daemon) {
		/* the port asked for (0: any) */
		unsigned int port = ntohs(sa->sa_family == AF_INET6
						  ? ((const struct sockaddr_in6 *)sa)->sin6_port
						  : ((const struct sockaddr_in *)sa)->sin_port);

		agent_addr__format((const struct sockaddr_storage *)sa, port, where, sizeof(where));
		log__err("agent: cannot listen on %s: %s%s", where,
			 err ? strerror(err) : "the HTTP server did not start",
			 err == EADDRINUSE ? " (another program holds the port: choose another "
					     "--listen port, or 0 for any free one)"
			 : a->cert ? " (or the TLS certificate and key are not a valid PEM pair)"
				   : "");
		return err ? -err : -EINVAL;
	}
	agent_addr__format((const struct sockaddr_storage *)sa, agent_http__port(a), where,
			   sizeof(where));
	log__info("agent: serving %s://%s: /metrics, /debug/pprof/profile?seconds=N, "
		  "/profile?seconds=N&format=json, /healthz%s",
		  a->cert ? "https" : "http", where, a->nr_creds ? " (with authorization)" : "");
	return 0;
}

unsigned int agent_http__port(const struct agent *a)
{
	const union MHD_DaemonInfo *i;

	if (!a->daemon)
		return 0;
	i = MHD_get_daemon_info(a->daemon, MHD_DAEMON_INFO_BIND_PORT);
	return i ? i->port : 0;
}

void agent_http__stop(struct agent *a)
{
	if (!a->daemon)
		return;
	MHD_stop_daemon(a->daemon);
	a->daemon = NULL;
}
