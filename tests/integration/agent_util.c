// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Helpers of the agent's tests: the workload, the agent, curl, Prometheus
 * (agent_util.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "agent_util.h"

#define MAX_ARGS 32

double agu_unix_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

void agu_spawn_workload(struct itest_proc *wl, const char *ready, char **argv)
{
	itest_spawn(wl, "workload", argv);
	if (!itest_wait_file(ready, 15))
		fail_msg("the workload did not start");
}

unsigned int agu_start_agent(struct itest_proc *fsp, const char *tag, const char *listen, pid_t pid,
			     const char *const *extra)
{
	char *argv[MAX_ARGS], pidbuf[16];
	int n = 0;

	snprintf(pidbuf, sizeof(pidbuf), "%d", pid);
	argv[n++] = (char *)itest_fsp_bpf();
	argv[n++] = "--listen";
	argv[n++] = (char *)listen;
	for (; extra && *extra && n < MAX_ARGS - 3; extra++)
		argv[n++] = (char *)*extra;
	argv[n++] = "-p";
	argv[n++] = pidbuf;
	argv[n] = NULL;
	itest_spawn(fsp, tag, argv);
	if (!itest_wait_text(fsp->err_path, "fsp-bpf: profiling", ITEST_START_TIMEOUT_S))
		fail_msg("fsp-bpf did not start: %s", itest_slurp(fsp->err_path));
	return agu_agent_port(fsp);
}

double agu_gauge(unsigned int port, const char *name)
{
	char url[96], *body = NULL;
	size_t n = strlen(name);
	double v = -1;

	snprintf(url, sizeof(url), "http://127.0.0.1:%u/metrics", port);
	if (agu_get(url, &body, NULL) == 200)
		for (const char *l = body; l && *l;
		     l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
			if (!strncmp(l, name, n) && l[n] == ' ')
				v = strtod(l + n + 1, NULL);
	free(body);
	return v;
}

unsigned int agu_free_port(void)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
	close(fd);
	return ntohs(a.sin_port);
}

unsigned int agu_agent_port(const struct itest_proc *fsp)
{
	const char *needle = "agent: serving http";
	unsigned int port = 0;
	char *err, *s;

	if (!itest_wait_text(fsp->err_path, needle, ITEST_START_TIMEOUT_S))
		fail_msg("fsp-bpf did not say where its agent serves");
	err = itest_slurp(fsp->err_path);
	s = err ? strstr(err, needle) : NULL;
	s = s ? strstr(s, "://") : NULL;
	s = s ? strchr(s + 3, ']') ? strchr(s + 3, ']') + 1 : strchr(s + 3, ':') : NULL;
	if (!s || sscanf(s, ":%u", &port) != 1)
		fail_msg("no port in fsp-bpf's agent line:\n%s", err ? err : "");
	free(err);
	return port;
}

int agu_get(const char *url, char **body, ...)
{
	char *argv[MAX_ARGS];
	const char *out = itest_tmp("curl-%d.body", rand());
	struct itest_proc p;
	int n = 0, status = 0;
	va_list ap;
	char *a;

	argv[n++] = "/usr/bin/curl";
	argv[n++] = "-s";
	argv[n++] = "-o";
	argv[n++] = (char *)out;
	argv[n++] = "-w";
	argv[n++] = "%{http_code}";
	argv[n++] = "--max-time";
	argv[n++] = "60";
	va_start(ap, body);
	while ((a = va_arg(ap, char *)) && n < MAX_ARGS - 2)
		argv[n++] = a;
	va_end(ap);
	argv[n++] = (char *)url;
	argv[n] = NULL;
	itest_spawn(&p, "curl", argv);
	itest_wait(&p, 70);
	if (p.out)
		status = atoi(p.out);
	if (body)
		*body = itest_slurp(out);
	unlink(out);
	return status;
}

/* ---- Prometheus ------------------------------------------------------------------ */

void agu_prom_start(struct agu_prom *pr, const char *scrape_configs)
{
	const char *cfg = itest_tmp("prometheus.yml"), *data = itest_tmp("prometheus-data");
	char flag_cfg[4200], flag_data[4200], flag_listen[64], url[96];
	char *argv[] = {"/usr/bin/prometheus",
			flag_cfg,
			flag_data,
			flag_listen,
			"--log.level=warn",
			"--storage.tsdb.retention.time=1h",
			NULL};
	FILE *f = fopen(cfg, "w");
	double deadline;

	if (access(argv[0], X_OK))
		fail_msg("Debian's prometheus is not installed (scripts/install-deps.sh installs "
			 "it)");
	assert_non_null(f);
	fprintf(f,
		"global:\n  scrape_interval: 1s\n  scrape_timeout: 900ms\n"
		"  evaluation_interval: 1s\nscrape_configs:\n%s",
		scrape_configs);
	assert_int_equal(fclose(f), 0);
	pr->port = agu_free_port();
	snprintf(flag_cfg, sizeof(flag_cfg), "--config.file=%s", cfg);
	snprintf(flag_data, sizeof(flag_data), "--storage.tsdb.path=%s", data);
	snprintf(flag_listen, sizeof(flag_listen), "--web.listen-address=127.0.0.1:%u", pr->port);
	itest_spawn(&pr->proc, "prometheus", argv);
	snprintf(url, sizeof(url), "http://127.0.0.1:%u/-/ready", pr->port);
	for (deadline = itest_now() + 60; itest_now() < deadline; itest_sleep(0.2)) {
		if (itest_poll(&pr->proc))
			fail_msg("prometheus exited: %s", itest_slurp(pr->proc.err_path));
		if (agu_get(url, NULL, NULL) == 200)
			return;
	}
	fail_msg("prometheus was not ready within 60 s: %s", itest_slurp(pr->proc.err_path));
}

void agu_prom_stop(struct agu_prom *pr)
{
	itest_kill(&pr->proc);
}

json_object *agu_prom_query_at(struct agu_prom *pr, const char *promql, double at)
{
	char url[96], q[4200], t[64];
	json_object *root, *data, *result = NULL, *status;
	char *body = NULL;
	int code;

	snprintf(url, sizeof(url), "http://127.0.0.1:%u/api/v1/query", pr->port);
	snprintf(q, sizeof(q), "query=%s", promql);
	snprintf(t, sizeof(t), "time=%.3f", at ? at : agu_unix_now());
	code = agu_get(url, &body, "-G", "--data-urlencode", q, "--data-urlencode", t, NULL);
	root = body ? json_tokener_parse(body) : NULL;
	if (code != 200 || !root || !json_object_object_get_ex(root, "status", &status) ||
	    strcmp(json_object_get_string(status), "success") ||
	    !json_object_object_get_ex(root, "data", &data) ||
	    !json_object_object_get_ex(data, "result", &result))
		fail_msg("query %s: HTTP %d: %s", promql, code, body ? body : "");
	json_object_get(result);
	json_object_put(root);
	free(body);
	return result;
}

json_object *agu_prom_query(struct agu_prom *pr, const char *promql)
{
	return agu_prom_query_at(pr, promql, 0);
}

double agu_sample_value(json_object *sample)
{
	json_object *v;

	if (!json_object_object_get_ex(sample, "value", &v) || json_object_array_length(v) != 2)
		return NAN;
	return strtod(json_object_get_string(json_object_array_get_idx(v, 1)), NULL);
}

const char *agu_sample_label(json_object *sample, const char *name)
{
	json_object *m, *l;

	if (!json_object_object_get_ex(sample, "metric", &m) ||
	    !json_object_object_get_ex(m, name, &l))
		return NULL;
	return json_object_get_string(l);
}

double agu_prom_value(struct agu_prom *pr, const char *promql, double at)
{
	json_object *r = agu_prom_query_at(pr, promql, at);
	double v = NAN;

	if (json_object_array_length(r) == 1)
		v = agu_sample_value(json_object_array_get_idx(r, 0));
	json_object_put(r);
	return v;
}

bool agu_prom_wait(struct agu_prom *pr, const char *promql, double min, double timeout_s)
{
	for (double deadline = itest_now() + timeout_s; itest_now() < deadline; itest_sleep(0.5)) {
		double v = agu_prom_value(pr, promql, 0);

		if (!isnan(v) && v >= min)
			return true;
	}
	return false;
}
