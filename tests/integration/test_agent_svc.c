// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The agent as a service: a real pprof client (go tool pprof) reading a
 * window whose feature totals are those of the JSON window, hostile HTTP
 * clients that harm neither the session nor its report, the systemd unit
 * `make install` installs (systemd-analyze verify), and its capability set:
 * the unit's command line, run with only the unit's capabilities, profiles
 * another user's process, and each capability it leaves out breaks it.
 */
#include <ctype.h>
#include <errno.h>
#include <linux/capability.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent_util.h"
#include "attrib.h"
#include "itest.h"

/* ---- a real pprof client ------------------------------------------------------------ */

/* Feature totals of `go tool pprof -raw` output: each sample's root (its
 * last location) is the feature it is charged to. */
static uint64_t raw_feature(const char *raw, const char *feature)
{
	char names[64][128] = {{0}};
	const char *loc = strstr(raw, "\nLocations\n"), *l;
	uint64_t total = 0;

	assert_non_null(loc);
	for (l = loc + 11; *l && strncmp(l, "Mappings", 8); l = strchr(l, '\n') + 1) {
		unsigned int id;
		const char *m = strstr(l, " M=1 "), *end = strchr(l, '\n');

		if (sscanf(l, " %u:", &id) == 1 && id < 64 && m && m < end) {
			const char *stop = strstr(m + 5, " :");

			snprintf(names[id], sizeof(names[id]), "%.*s", (int)(stop - m - 5), m + 5);
		}
		if (!end)
			break;
	}
	for (l = strstr(raw, "Samples:\n"); l && l < loc; l = strchr(l, '\n') + 1) {
		unsigned long long count, cpu;
		unsigned int id = 0, last = 0;
		int off;
		const char *p;

		if (sscanf(l, " %llu %llu:%n", &count, &cpu, &off) < 2)
			continue;
		for (p = l + off; sscanf(p, " %u%n", &id, &off) == 1 && *p != '\n'; p += off)
			last = id;
		if (last < 64 && !strcmp(names[last], feature))
			total += count;
	}
	return total;
}

/*
 * go tool pprof -raw on /debug/pprof/profile?seconds=10 and curl on
 * /profile?seconds=10&format=json, both under way while the workload runs
 * one burst (600 ms of alpha, 400 ms of beta) and nothing else: both
 * windows hold the whole burst, so their feature totals are equal.
 */
static void test_pprof_client(void **state)
{
	AGU_TMP(ready, "ready");
	AGU_TMP(json, "window.json");
	char *wl_argv[] = {(char *)itest_workload("wl_agent"), ready, "burst", NULL};
	char url_pprof[128], url_json[128], *raw;
	struct itest_proc wl, fsp, go, curl;
	struct profile *p;
	struct attrib *a;
	unsigned int port;
	double deadline;

	(void)state;
	agu_spawn_workload(&wl, ready, wl_argv);
	port = agu_start_agent(&fsp, "fsp", "0", wl.pid, NULL);
	snprintf(url_pprof, sizeof(url_pprof), "http://127.0.0.1:%u/debug/pprof/profile?seconds=10",
		 port);
	snprintf(url_json, sizeof(url_json), "http://127.0.0.1:%u/profile?seconds=10&format=json",
		 port);
	setenv("PPROF_TMPDIR", itest_tmp("pprof"), 1);
	{
		char *argv[] = {"/usr/bin/go", "tool", "pprof", "-raw", url_pprof, NULL};

		itest_spawn(&go, "pprof", argv);
	}
	{
		char *argv[] = {"/usr/bin/curl", "-s", "-f", "-o", json, url_json, NULL};

		itest_spawn(&curl, "curl-json", argv);
	}
	/* Both windows have started: then the burst. */
	for (deadline = itest_now() + 20; agu_gauge(port, "fsp_agent_windows") < 2;
	     itest_sleep(0.1))
		if (itest_now() > deadline)
			fail_msg("the two windows did not start");
	itest_signal(&wl, SIGUSR1);
	assert_true(itest_wait_file(itest_tmp("ready.1"), 30));
	itest_wait(&go, 60);
	itest_wait(&curl, 60);
	itest_assert_exit(&go, 0);
	itest_assert_exit(&curl, 0);
	raw = go.out;
	p = itest_profile_load(json);
	a = attrib__compute(p, NULL);
	print_message("alpha: pprof %llu, json %llu; beta: pprof %llu, json %llu\n",
		      (unsigned long long)raw_feature(raw, "alpha"),
		      (unsigned long long)itest_feature(a, "alpha")->samples,
		      (unsigned long long)raw_feature(raw, "beta"),
		      (unsigned long long)itest_feature(a, "beta")->samples);
	assert_true(itest_feature(a, "alpha")->samples > 100);
	assert_int_equal(raw_feature(raw, "alpha"), itest_feature(a, "alpha")->samples);
	assert_int_equal(raw_feature(raw, "beta"), itest_feature(a, "beta")->samples);
	/* The window is ten seconds, not the session. */
	assert_true(profile__meta(p)->duration_s > 9.5 && profile__meta(p)->duration_s < 11);
	attrib__free(a);
	profile__free(p);
	itest_signal(&wl, SIGTERM);
	itest_wait(&wl, 15);
	itest_stop_fsp(&fsp);
}

/* ---- hostile HTTP -------------------------------------------------------------------- */

static int connect_to(unsigned int port, int rcvbuf)
{
	struct sockaddr_in a = {.sin_family = AF_INET,
				.sin_port = htons(port),
				.sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd >= 0 && rcvbuf)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* Sends everything it can without blocking. */
static void send_some(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = send(fd, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL);

		if (n <= 0)
			return;
		buf += n;
		len -= (size_t)n;
	}
}

/* A number field of /proc/PID/status ("VmRSS:", "CapEff:") in base. */
static uint64_t status_field(pid_t pid, const char *field, int base)
{
	char path[64], line[256];
	size_t n = strlen(field);
	uint64_t v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, field, n))
			v = strtoull(line + n, NULL, base);
	if (f)
		fclose(f);
	return v;
}

static uint64_t rss_kb(pid_t pid)
{
	return status_field(pid, "VmRSS:", 10);
}

/*
 * While the session profiles wl_service: request headers far beyond the
 * bound, 200 connections that send nothing, and clients that ask for
 * responses and never read them. fsp-bpf answers the first with an error,
 * drops what exceeds its connection bounds, does not grow, and on SIGINT
 * ends at once with its report and a profile within the truth's tolerance.
 */
static void test_hostile_http(void **state)
{
	AGU_TMP(ready, "ready");
	AGU_TMP(dump, "dump");
	AGU_TMP(prof, "prof.json");
	char *wl_argv[] = {(char *)itest_workload("wl_service"), ready, dump, NULL};
	const char *const extra[] = {"-o", prof, NULL};
	int idle[200], nidle = 0, unread[4], fd;
	struct itest_proc wl, fsp;
	char *big, reply[64] = "", key[64], req[4096];
	uint64_t rss0, rss1;
	unsigned int port;
	struct itest_truth *t;
	struct profile *p;
	struct attrib *a;
	double cpu, stop;
	bool ok = true;
	size_t len;

	(void)state;
	agu_spawn_workload(&wl, ready, wl_argv);
	port = agu_start_agent(&fsp, "fsp", "0", wl.pid, extra);
	rss0 = rss_kb(fsp.pid);
	/* 64 KiB of headers: refused (431), the connection closed. */
	fd = connect_to(port, 0);
	assert_true(fd >= 0);
	len = 64 * 1024;
	big = malloc(len + 128);
	assert_non_null(big);
	len = (size_t)snprintf(big, 128, "GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: ");
	memset(big + len, 'a', 64 * 1024);
	len += 64 * 1024;
	memcpy(big + len, "\r\n\r\n", 4);
	len += 4;
	send_some(fd, big, len);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &(struct timeval){10, 0}, sizeof(struct timeval));
	assert_true(recv(fd, reply, sizeof(reply) - 1, 0) > 0);
	print_message("oversized headers: %.40s\n", reply);
	assert_true(!strncmp(reply, "HTTP/1.1 431", 12) || !strncmp(reply, "HTTP/1.1 413", 12));
	close(fd);
	free(big);
	/* Idle connections, and clients that never read what they asked for. */
	for (int i = 0; i < 200; i++)
		if ((fd = connect_to(port, 0)) >= 0)
			idle[nidle++] = fd;
	for (int i = 0; i < 4; i++) {
		unread[i] = connect_to(port, 1024);
		snprintf(req, sizeof(req), "GET /%s HTTP/1.1\r\nHost: x\r\n\r\n",
			 i % 2 ? "metrics" : "debug/pprof/profile?seconds=1");
		for (int k = 0; k < 50 && unread[i] >= 0; k++)
			send_some(unread[i], req, strlen(req));
	}
	itest_sleep(4); /* the session goes on meanwhile (not a timing check) */
	rss1 = rss_kb(fsp.pid);
	print_message("fsp-bpf RSS %llu kB before, %llu kB under 200 idle and 4 unread clients\n",
		      (unsigned long long)rss0, (unsigned long long)rss1);
	assert_true(rss1 < rss0 + 32 * 1024);
	/* Ends at once, with its report, though the clients are still there. */
	stop = itest_now();
	itest_signal(&fsp, SIGINT);
	itest_wait(&fsp, ITEST_TIMEOUT_S);
	print_message("fsp-bpf ended %.2f s after SIGINT\n", itest_now() - stop);
	itest_assert_exit(&fsp, 0);
	assert_non_null(strstr(fsp.out, "service accounts for"));
	for (int i = 0; i < nidle; i++)
		close(idle[i]);
	for (int i = 0; i < 4; i++)
		if (unread[i] >= 0)
			close(unread[i]);
	itest_signal(&wl, SIGUSR1);
	assert_true(itest_wait_file(itest_tmp("dump.1"), 15));
	t = itest_truth_load(itest_tmp("dump.1"));
	cpu = (double)itest_truth_u64(t, "cpu_total_ns");
	p = itest_profile_load(prof);
	a = attrib__compute(p, NULL);
	for (const char *const *f = (const char *const[]){"service", "parse", "compute", NULL}; *f;
	     f++) {
		snprintf(key, sizeof(key), "feature.%s", *f);
		ok &= itest_truth_share_ok(*f, itest_feature(a, *f)->samples,
					   attrib__total_samples(a), t, key, cpu, 0.002);
	}
	attrib__free(a);
	profile__free(p);
	itest_truth_free(t);
	itest_signal(&wl, SIGTERM);
	itest_wait(&wl, 15);
	itest_assert_exit(&wl, 0);
	ITEST_ASSERT_OK(ok);
}

/* ---- the systemd unit and its capabilities ---------------------------------------------- */

static const char *source_root(void)
{
	static char root[4096];
	char *slash;

	snprintf(root, sizeof(root), "%s", getenv("FSP_OUT"));
	slash = strrchr(root, '/');
	assert_non_null(slash);
	*slash = 0;
	return root;
}

/* The value of the unit's directive `key` (its first line), or NULL. */
static char *directive(const char *unit, const char *key)
{
	size_t n = strlen(key);

	for (const char *l = unit; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (!strncmp(l, key, n) && l[n] == '=')
			return strndup(l + n + 1, strcspn(l + n + 1, "\n"));
	return NULL;
}

/* make install into a scratch DESTDIR; the unit passes systemd-analyze verify. */
static void test_systemd_unit(void **state)
{
	AGU_TMP(dest, "dest");
	AGU_TMP(check, "check.service");
	char cmd[4 * 4096], unit[4200], bin[4200], *text, *exec;

	(void)state;
	snprintf(cmd, sizeof(cmd),
		 "make -C %s --no-print-directory -s install DESTDIR=%s PREFIX=/usr/local "
		 ">%s/install.log 2>&1",
		 source_root(), dest, dest);
	mkdir(dest, 0755);
	if (system(cmd))
		fail_msg("make install failed: %s", itest_slurp(itest_tmp("dest/install.log")));
	snprintf(unit, sizeof(unit), "%s/usr/local/lib/systemd/system/fsp-bpf.service", dest);
	snprintf(bin, sizeof(bin), "%s/usr/local/bin/fsp-bpf", dest);
	assert_int_equal(access(bin, X_OK), 0);
	text = itest_slurp(unit);
	assert_non_null(text);
	exec = directive(text, "ExecStart");
	assert_non_null(exec);
	assert_int_equal(strncmp(exec, "/usr/local/bin/fsp-bpf ", 23), 0);
	/* verify checks that ExecStart's program exists: the DESTDIR copy's. */
	snprintf(cmd, sizeof(cmd), "sed 's|^ExecStart=/usr/local|ExecStart=%s/usr/local|' %s > %s",
		 dest, unit, check);
	assert_int_equal(system(cmd), 0);
	snprintf(cmd, sizeof(cmd), "systemd-analyze verify %s > %s.log 2>&1", check, check);
	if (system(cmd))
		fail_msg("systemd-analyze verify: %s", itest_slurp(itest_tmp("check.service.log")));
	free(exec);
	free(text);
}

struct cap_name {
	const char *name;
	int bit;
};

static const struct cap_name cap_names[] = {
	{"CAP_BPF", CAP_BPF},
	{"CAP_PERFMON", CAP_PERFMON},
	{"CAP_SYS_ADMIN", CAP_SYS_ADMIN},
	{"CAP_SYS_PTRACE", CAP_SYS_PTRACE},
	{"CAP_DAC_READ_SEARCH", CAP_DAC_READ_SEARCH},
	{"CAP_DAC_OVERRIDE", CAP_DAC_OVERRIDE},
	{"CAP_SYS_RESOURCE", CAP_SYS_RESOURCE},
	{"CAP_KILL", CAP_KILL},
	{"CAP_SYSLOG", CAP_SYSLOG},
	{"CAP_NET_BIND_SERVICE", CAP_NET_BIND_SERVICE},
};

static int cap_bit(const char *name)
{
	for (size_t i = 0; i < sizeof(cap_names) / sizeof(*cap_names); i++)
		if (!strcmp(cap_names[i].name, name))
			return cap_names[i].bit;
	fail_msg("unknown capability %s in the unit", name);
	return -1;
}

/* The unit's capability set (its CapabilityBoundingSet). */
static size_t unit_caps(char names[][32], size_t max)
{
	char path[4200], *text, *set, *save = NULL;
	size_t n = 0;

	snprintf(path, sizeof(path), "%s/scripts/fsp-bpf.service.in", source_root());
	text = itest_slurp(path);
	assert_non_null(text);
	set = directive(text, "CapabilityBoundingSet");
	assert_non_null(set);
	for (char *c = strtok_r(set, " ", &save); c && n < max; c = strtok_r(NULL, " ", &save))
		snprintf(names[n++], 32, "%s", c);
	free(set);
	free(text);
	return n;
}

/*
 * The unit's command line (ExecStart, with the listen address, profile path
 * and no extra options) under setpriv: no new privileges, bounding set =
 * the unit's capabilities except `drop` (NULL: none). -d seconds unless 0.
 */
static void run_unit(struct itest_proc *fsp, char names[][32], size_t n, const char *drop,
		     const char *prof, const char *duration, bool verbose)
{
	char bounding[512] = "--bounding-set=-all", *argv[24];
	int k = 0;

	for (size_t i = 0; i < n; i++) {
		char lower[32];

		if (drop && !strcmp(names[i], drop))
			continue;
		for (size_t j = 0; names[i][j + 4] && j < sizeof(lower) - 1; j++)
			lower[j] = (char)tolower((unsigned char)names[i][j + 4]), lower[j + 1] = 0;
		strncat(bounding, ",+", sizeof(bounding) - strlen(bounding) - 1);
		strncat(bounding, lower, sizeof(bounding) - strlen(bounding) - 1);
	}
	argv[k++] = "/usr/bin/setpriv";
	argv[k++] = "--no-new-privs";
	argv[k++] = "--inh-caps=-all";
	argv[k++] = bounding;
	argv[k++] = "--";
	argv[k++] = (char *)itest_fsp_bpf();
	/* ExecStart: record -a --listen ${FSP_BPF_LISTEN} -o ... $FSP_BPF_OPTS */
	argv[k++] = "record";
	if (verbose)
		argv[k++] = "-v";
	argv[k++] = "-a";
	argv[k++] = "--listen";
	argv[k++] = "127.0.0.1:0";
	argv[k++] = "-o";
	argv[k++] = (char *)prof;
	argv[k++] = "--comm";
	argv[k++] = "wl_capsvc";
	if (duration) {
		argv[k++] = "-d";
		argv[k++] = (char *)duration;
	}
	argv[k] = NULL;
	itest_spawn(fsp, drop ? drop : "unit", argv);
}

/* Another user's process, from a file only that user may read. */
static void spawn_other_user(struct itest_proc *wl, char *ready, size_t size)
{
	char dir[1024], bin[1100], dump[1100], cmd[5000];
	char *argv[] = {"/usr/bin/setpriv",
			"--reuid=65534",
			"--regid=65534",
			"--clear-groups",
			"--",
			bin,
			ready,
			dump,
			NULL};

	snprintf(dir, sizeof(dir), "%s", itest_tmp("other"));
	assert_int_equal(mkdir(dir, 0777), 0);
	assert_int_equal(chmod(dir, 0777), 0);
	snprintf(bin, sizeof(bin), "%s/wl_capsvc", dir);
	snprintf(dump, sizeof(dump), "%s/dump", dir);
	snprintf(ready, size, "%s/ready", dir);
	snprintf(cmd, sizeof(cmd), "cp %s %s && chown 65534:65534 %s && chmod 0700 %s",
		 itest_workload("wl_service"), bin, bin, bin);
	assert_int_equal(system(cmd), 0);
	agu_spawn_workload(wl, ready, argv);
}

static uint64_t cap_eff(pid_t pid)
{
	return status_field(pid, "CapEff:", 16);
}

/* The profile of process pid looks like wl_service's: service at 86% of
 * its samples, parse at 29% (a share far from the truth's, such as a
 * stale mark's 100%, fails). *samples: service's. */
static bool service_ok(const char *prof, pid_t pid, uint64_t *samples)
{
	struct attrib_opts o = {.pid = (uint32_t)pid};
	struct profile *p = itest_profile_load(prof);
	struct attrib *a = attrib__compute(p, &o);
	const struct attrib_feature *f = itest_find_feature(a, "service");
	const struct attrib_feature *g = itest_find_feature(a, "parse");
	uint64_t n = attrib__total_samples(a);
	bool ok = f && g && n && f->samples * 100 > n * 75 && f->samples * 100 < n * 95 &&
		  g->samples * 100 > n * 15 && g->samples * 100 < n * 45;

	*samples = f ? f->samples : 0;
	print_message("  service %llu, parse %llu of %llu samples\n", (unsigned long long)*samples,
		      (unsigned long long)(g ? g->samples : 0), (unsigned long long)n);
	attrib__free(a);
	profile__free(p);
	return ok;
}

/*
 * The unit's command line with only its capabilities profiles a marked
 * process of another user (a file it alone may read) and serves it: twice
 * (the second session starts its stacks afresh); then each capability of
 * the set is shown needed: without CAP_BPF or CAP_PERFMON fsp-bpf refuses
 * to start and names it, without the others the process's profile is
 * empty.
 */
static void test_capabilities(void **state)
{
	AGU_TMP(prof, "unit.json");
	char names[16][32], ready[1200], url[96], *body = NULL, *err;
	struct itest_proc wl, fsp;
	uint64_t want = 0, samples;
	size_t n = unit_caps(names, 16);
	unsigned int port;

	(void)state;
	for (size_t i = 0; i < n; i++)
		want |= UINT64_C(1) << cap_bit(names[i]);
	spawn_other_user(&wl, ready, sizeof(ready));
	for (int run = 0; run < 2; run++) {
		/* The second with -v: it says whether it could start the stacks of
		 * the process, which the first left, afresh. */
		run_unit(&fsp, names, n, NULL, prof, NULL, run == 1);
		if (!itest_wait_text(fsp.err_path, "fsp-bpf: profiling", ITEST_START_TIMEOUT_S))
			fail_msg("fsp-bpf did not start: %s", itest_slurp(fsp.err_path));
		port = agu_agent_port(&fsp);
		print_message("run %d: fsp-bpf CapEff %llx, the unit's %llx\n", run + 1,
			      (unsigned long long)cap_eff(fsp.pid), (unsigned long long)want);
		assert_true(cap_eff(fsp.pid) == want);
		snprintf(url, sizeof(url), "http://127.0.0.1:%u/metrics", port);
		for (double deadline = itest_now() + 30;; itest_sleep(0.5)) {
			free(body);
			body = NULL;
			if (agu_get(url, &body, NULL) == 200 &&
			    strstr(body, "fsp_feature_samples_total{feature=\"service\","))
				break;
			if (itest_now() > deadline)
				fail_msg("no samples of service in /metrics:\n%s", body);
		}
		itest_sleep(2);
		itest_signal(&fsp, SIGTERM);
		itest_wait(&fsp, ITEST_TIMEOUT_S);
		itest_assert_exit(&fsp, 0);
		err = itest_slurp(fsp.err_path);
		assert_null(strstr(err, "Permission denied"));
		assert_null(strstr(err, "cannot"));
		assert_true(run == 0 || strstr(err, "probe sites in")); /* -v said things */
		free(err);
		assert_true(service_ok(prof, wl.pid, &samples));
	}
	free(body);
	/* Without each of these, something breaks. */
	for (size_t i = 0; i < n; i++) {
		const char *c = names[i];

		run_unit(&fsp, names, n, c, prof, "3", false);
		itest_wait(&fsp, 60);
		err = itest_slurp(fsp.err_path);
		if (!strcmp(c, "CAP_BPF") || !strcmp(c, "CAP_PERFMON")) {
			/* refused before anything loads, the capability named */
			print_message("without %s: %s", c, err);
			assert_true(WIFEXITED(fsp.status) && WEXITSTATUS(fsp.status) != 0);
			assert_non_null(strstr(err, c));
		} else {
			/* another user's process: its memory, its file */
			itest_assert_exit(&fsp, 0);
			service_ok(prof, wl.pid, &samples);
			print_message("without %s: %llu samples of service\n", c,
				      (unsigned long long)samples);
			assert_int_equal(samples, 0);
		}
		free(err);
	}
	itest_signal(&wl, SIGTERM);
	itest_wait(&wl, 15);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		ITEST(test_pprof_client),
		ITEST(test_hostile_http),
		ITEST(test_systemd_unit),
		ITEST(test_capabilities),
	};

	return ITEST_MAIN("agent_svc", tests);
}
