/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Helpers of the agent's tests (test_agent*.c): a workload, the agent, HTTP requests through curl,
 * and a real Prometheus (Debian's prometheus) started on 127.0.0.1 with a
 * generated configuration, queried through its HTTP API.
 */
#ifndef AGENT_UTIL_H
#define AGENT_UTIL_H

#include <stdbool.h>
#include <json-c/json.h>

#include "itest.h"

/* A path of the scratch directory in a buffer of its own (itest_tmp's slots
 * are reused after 63 calls). */
#define AGU_TMP(var, name)                                                                         \
	char var[4096];                                                                            \
	snprintf(var, sizeof(var), "%s", itest_tmp(name))

/* Spawns a workload (argv[0] its path) and waits for its ready file. */
void agu_spawn_workload(struct itest_proc *wl, const char *ready, char **argv);

/* fsp-bpf --listen LISTEN EXTRA... -p PID under tag, waits for its
 * "profiling" line; returns the agent's port. extra: NULL-terminated, or NULL. */
unsigned int agu_start_agent(struct itest_proc *fsp, const char *tag, const char *listen, pid_t pid,
			     const char *const *extra);

/* The value of an unlabelled gauge of the agent's /metrics; -1 if absent. */
double agu_gauge(unsigned int port, const char *name);

/* A TCP port of 127.0.0.1 free right now (bound, then closed). */
unsigned int agu_free_port(void);

/* The port fsp-bpf's agent said it serves ("agent: serving http://ADDR:PORT"),
 * waiting for the line; fails the test without one. */
unsigned int agu_agent_port(const struct itest_proc *fsp);

/* GET url with curl (extra arguments, NULL-terminated: -H ..., --cacert ...):
 * the HTTP status (0: no response), the body in *body (malloc'ed) when body
 * is not NULL. */
int agu_get(const char *url, char **body, ...) __attribute__((sentinel));

struct agu_prom {
	struct itest_proc proc;
	unsigned int port;
};

/* Starts Prometheus with a 1 s scrape interval and these scrape_configs
 * (YAML, the list's items, indented by 2), waits until it is ready. */
void agu_prom_start(struct agu_prom *pr, const char *scrape_configs);
void agu_prom_stop(struct agu_prom *pr);

/* An instant query at `at` (unix seconds; 0: now): the "result" array of
 * the vector (the caller puts it). Fails the test on a query error. */
json_object *agu_prom_query_at(struct agu_prom *pr, const char *promql, double at);
json_object *agu_prom_query(struct agu_prom *pr, const char *promql);
/* The value of a query that yields one sample; NAN when it yields none. */
double agu_prom_value(struct agu_prom *pr, const char *promql, double at);
/* Polls (every 0.5 s, up to timeout_s) until the query yields one sample
 * of at least min; returns whether it did. */
bool agu_prom_wait(struct agu_prom *pr, const char *promql, double min, double timeout_s);
/* The value of a sample of a result array, and a label of it (NULL: none). */
double agu_sample_value(json_object *sample);
const char *agu_sample_label(json_object *sample, const char *name);

double agu_unix_now(void);

#endif /* AGENT_UTIL_H */
