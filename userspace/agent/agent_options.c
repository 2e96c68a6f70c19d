// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The agent's options of record (--listen ...), a child of its parser; the
 * input is the struct agent_opts of the fsp_options. */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "agent_int.h"
#include "options.h"

/* Keys past the subcommands' OPT_* (options.h). */
enum {
	OPT_LISTEN = 0x200,
	OPT_LISTEN_INSECURE,
	OPT_TLS_CERT,
	OPT_TLS_KEY,
	OPT_AUTH_FILE,
	OPT_MAX_INSTANCES,
	OPT_MAX_PROCESSES,
	OPT_METRICS_BY,
	OPT_METRICS_EXPIRE,
};

#define MAX_BOUND 1000000

/* clang-format off */
static const struct argp_option agent_options[] = {
	{"listen", OPT_LISTEN, "[ADDR:]PORT", 0,
	 "Serve the session over HTTP while it runs (docs/fleet.md): /metrics for Prometheus, "
	 "/debug/pprof/profile?seconds=N (pprof) and /profile?seconds=N&format=json for the "
	 "next N seconds, /healthz. A bare port listens on 127.0.0.1; any other address needs "
	 "--tls-cert/--tls-key or --auth-file, or --listen-insecure. Port 0: any free port "
	 "(said at the start)", 0},
	{"listen-insecure", OPT_LISTEN_INSECURE, NULL, 0,
	 "Serve a non-loopback --listen address without TLS or authorization (the metrics "
	 "carry labels read from the targets, such as statement texts)", 0},
	{"tls-cert", OPT_TLS_CERT, "FILE", 0, "--listen over HTTPS: the server's certificate "
	 "(PEM, the chain after it)", 0},
	{"tls-key", OPT_TLS_KEY, "FILE", 0, "The certificate's private key (PEM; a file only its "
	 "owner may read)", 0},
	{"auth-file", OPT_AUTH_FILE, "FILE", 0,
	 "Accept only requests with one of this file's credentials, one per line: 'Bearer "
	 "TOKEN' or 'Basic USER:PASSWORD', as Prometheus's scrape config sends them (a file "
	 "only its owner may read; /healthz needs none)", 0},
	{"metrics-max-instances", OPT_MAX_INSTANCES, "N", 0,
	 "Instances of a feature with series of their own (default "
	 FSP_STR(METRICS_DEFAULT_MAX_INSTANCES) "); later ones are summed into instance "
	 "\"other\"", 0},
	{"metrics-max-processes", OPT_MAX_PROCESSES, "N", 0,
	 "Process labels with series of their own (default "
	 FSP_STR(METRICS_DEFAULT_MAX_PROCESSES) "); later ones are summed into process "
	 "\"other\"", 0},
	{"metrics-by", OPT_METRICS_BY, "name|pid", 0,
	 "Label the metrics' processes by name (default) or by PID (and name)", 0},
	{"metrics-expire", OPT_METRICS_EXPIRE, "SECONDS", 0,
	 "Series of processes that have exited (and of keys that stopped growing with them) "
	 "leave /metrics this long after (default " FSP_STR(METRICS_DEFAULT_EXPIRE_S) ")", 0},
	{},
};
/* clang-format on */

static int number(struct argp_state *state, const char *opt, const char *arg, size_t *out)
{
	uint64_t v;

	if (options__u64(arg, 1, MAX_BOUND, &v))
		return options__error(state, "invalid %s '%s': expected 1 to %d", opt, arg,
				      MAX_BOUND);
	*out = v;
	return 0;
}

/* What a non-loopback address needs, and the options that need --listen. */
static int check(struct argp_state *state, const struct agent_opts *o)
{
	struct sockaddr_storage ss;
	socklen_t len;

	if (!o->listen) {
		if (o->insecure || o->tls_cert || o->tls_key || o->auth_file ||
		    o->metrics.max_instances || o->metrics.max_processes || o->metrics.by_pid ||
		    o->metrics.expire_s > 0)
			return options__error(state, "--listen-insecure, --tls-cert, --tls-key, "
						     "--auth-file and --metrics-* go with --listen "
						     "[ADDR:]PORT");
		return 0;
	}
	if (agent_addr__parse(o->listen, &ss, &len))
		return options__error(
			state,
			"invalid --listen '%s': expected [ADDR:]PORT, e.g. 9464 "
			"(127.0.0.1), 0.0.0.0:9464 or [::1]:9464 (a numeric address or "
			"localhost, IPv6 in brackets; port 0 to 65535)",
			o->listen);
	if (!o->tls_cert != !o->tls_key)
		return options__error(state, "HTTPS needs both --tls-cert FILE and --tls-key FILE");
	if (!agent_addr__loopback(&ss) && !o->tls_cert && !o->auth_file && !o->insecure)
		return options__error(state,
				      "--listen %s is reachable from other hosts, and the metrics "
				      "and profiles carry labels read from the targets: add "
				      "--tls-cert/--tls-key and/or --auth-file (docs/fleet.md), or "
				      "--listen-insecure on a trusted network",
				      o->listen);
	return 0;
}

static error_t parse_agent(int key, char *arg, struct argp_state *state)
{
	struct agent_opts *o = state->input;
	uint64_t v;

	switch (key) {
	case OPT_LISTEN:
		o->listen = arg;
		return 0;
	case OPT_LISTEN_INSECURE:
		o->insecure = true;
		return 0;
	case OPT_TLS_CERT:
		o->tls_cert = arg;
		return 0;
	case OPT_TLS_KEY:
		o->tls_key = arg;
		return 0;
	case OPT_AUTH_FILE:
		o->auth_file = arg;
		return 0;
	case OPT_MAX_INSTANCES:
		return number(state, "--metrics-max-instances", arg, &o->metrics.max_instances);
	case OPT_MAX_PROCESSES:
		return number(state, "--metrics-max-processes", arg, &o->metrics.max_processes);
	case OPT_METRICS_BY:
		if (strcmp(arg, "name") && strcmp(arg, "pid"))
			return options__error(
				state, "invalid --metrics-by '%s': expected name or pid", arg);
		o->metrics.by_pid = !strcmp(arg, "pid");
		return 0;
	case OPT_METRICS_EXPIRE:
		if (options__u64(arg, 1, 31536000, &v))
			return options__error(state,
					      "invalid --metrics-expire '%s': expected seconds, 1 "
					      "to 31536000",
					      arg);
		o->metrics.expire_s = (double)v;
		return 0;
	case ARGP_KEY_END:
		return check(state, o);
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

const struct argp agent_argp = {agent_options, parse_agent, NULL, NULL, NULL, NULL, NULL};
