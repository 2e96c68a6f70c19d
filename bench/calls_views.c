// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * calls_views: the slow-call view's report time (make bench; no root): a
 * synthetic profile of 1,000,000 samples over 169,490 calls of "request" (5
 * samples each, 2% of them 50 long and in a nested "rare") and their nested
 * parts' calls, 4 threads, 12 distinct stacks, built through the analysis API; then, timed by the
 * process's CPU clock: the split of its samples by 'request>=20ms'
 * (callsel__split), the text view (both reports and the diff, as report
 * --calls writes it) and the profile file's write and read back with its
 * calls; then the bound (calls__bound with record's default --calls-keep,
 * every call ended: what userspace does as the records come) and the file
 * of the calls it keeps.
 *
 *   calls_views [-n SAMPLES] [-o FILE]   (-o: the profile file saved to FILE too,
 *                                         for bench/html.sh's page with calls)
 *
 * Prints one line: "bench: calls_views samples=N calls=C split_ms=...
 * text_ms=... write_ms=... read_ms=... file_mb=... bound_ms=...
 * bound_calls=... bound_file_mb=...".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "attrib.h"
#include "calls.h"
#include "callsel.h"
#include "diff.h"
#include "profile.h"
#include "profile_io.h"
#include "report.h"

#define PID 100
#define THREADS 4

static double cpu_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static void die(const char *what, int err)
{
	fprintf(stderr, "calls_views: %s: %s\n", what, strerror(err < 0 ? -err : err));
	exit(1);
}

/* Stacks: request:/api/N over (parse | compute | rare), for 4 instances. */
static struct profile *build(uint64_t samples, uint64_t *ncalls)
{
	static const char *const inst[] = {"/api/a", "/api/b", "/api/c", "/api/d"};
	static const char *const parts[] = {"parse", "compute", "rare"};
	struct profile_meta m = {.frequency_hz = 1000, .target = "synthetic"};
	struct profile *p = profile__new();
	struct calls *c = calls__new(0);
	uint64_t done = 0, id = 0, t = 0;
	int err;

	if (!p || !c)
		die("build", -ENOMEM);
	err = profile__set_meta(p, &m);
	for (int i = 0; i < 4 && !err; i++)
		for (int k = 0; k < 3 && !err; k++) {
			struct profile_frame f[2] = {
				{.kind = PROFILE_MARK, .feature = "request", .instance = inst[i]},
				{.kind = PROFILE_MARK, .feature = parts[k], .instance = inst[i]}};

			err = profile__add_stack(p, PID, 1 + i * 3 + k, f, 2);
		}
	for (uint32_t th = 0; th < THREADS && !err; th++)
		err = profile__add_thread(p, PID, PID + th, "worker");
	while (done < samples && !err) {
		uint32_t tid = PID + (uint32_t)(id % THREADS);
		int slow = id % 50 == 7, n = slow ? 50 : 5, i = (int)(id % 4);
		uint64_t ids[2] = {id + 1, id + 1000000000ULL};

		for (int s = 0; s < n && done < samples && !err; s++, done++, t += 1000000) {
			int k = slow && s >= 5 ? 2 : s == 0 ? 0 : 1;
			size_t stack = (size_t)(i * 3 + k);
			struct profile_stack st;

			err = profile__stack(p, stack, &st);
			if (!err)
				err = profile__add_samples(p, PID, tid, st.key, 1);
			if (!err)
				err = calls__add(c, PID, tid, stack, st.frames, ids, 2, t, 1);
		}
		id++;
	}
	if (err)
		die("build", err);
	profile__set_calls(p, c);
	*ncalls = id;
	return p;
}

int main(int argc, char **argv)
{
	uint64_t samples = 1000000, ncalls = 0; /* of request */
	struct profile *p, *s, *o, *q;
	struct callsel sel;
	struct callsel_info in;
	double t0, split_ms, text_ms, write_ms, read_ms, bound_ms;
	const struct calls_bound bound = {
		.slowest = CALLS_KEEP_DEFAULT, .sample = CALLS_KEEP_DEFAULT, .period_ns = 1000000};
	size_t kept_len = 0;
	char *kept = NULL;
	char *buf = NULL, err[256];
	size_t len = 0;
	FILE *f, *null = fopen("/dev/null", "w");
	struct diff_opts dopts = {.scale = 1};
	struct attrib *as, *ao;
	struct diff *d;
	const char *save = NULL;
	int opt;

	while ((opt = getopt(argc, argv, "n:o:")) != -1) {
		if (opt == 'o') {
			save = optarg;
			continue;
		}
		if (opt != 'n' || !(samples = strtoull(optarg, NULL, 10))) {
			fprintf(stderr, "usage: calls_views [-n SAMPLES] [-o FILE]\n");
			return 2;
		}
	}
	if (!null)
		die("/dev/null", errno);
	p = build(samples, &ncalls);
	if (callsel__parse("request>=20ms", &sel, err, sizeof(err)))
		die(err, EINVAL);
	t0 = cpu_ms();
	if (callsel__split(p, &sel, &s, &o, &in))
		die("split", EINVAL);
	split_ms = cpu_ms() - t0;
	t0 = cpu_ms();
	as = attrib__compute(s, NULL);
	ao = attrib__compute(o, NULL);
	if (!as || !ao || report__text(null, s, as, NULL) || report__text(null, o, ao, NULL))
		die("text", EIO);
	dopts.scale = (double)profile__total_samples(s) / (double)profile__total_samples(o);
	d = diff__compute(o, s, &dopts);
	if (!d || diff__text(null, d, NULL))
		die("diff", errno);
	text_ms = cpu_ms() - t0;
	f = open_memstream(&buf, &len);
	t0 = cpu_ms();
	if (!f || profile__write_json(f, p) || fclose(f))
		die("write", EIO);
	write_ms = cpu_ms() - t0;
	t0 = cpu_ms();
	q = profile__parse_json(buf, len, "calls.json", err, sizeof(err));
	read_ms = cpu_ms() - t0;
	if (!q || calls__nr(profile__calls(q)) != calls__nr(profile__calls(p)))
		die(q ? "read: calls lost" : err, EINVAL);
	if (save) {
		FILE *sf = fopen(save, "w");

		if (!sf || fwrite(buf, 1, len, sf) != len || fclose(sf))
			die(save, errno);
	}
	/* the bound (record --calls-keep, default): every call ended */
	ncalls = calls__nr(profile__calls(p));
	t0 = cpu_ms();
	if (calls__bound((struct calls *)profile__calls(p), &bound, NULL, NULL))
		die("bound", ENOMEM);
	bound_ms = cpu_ms() - t0;
	f = open_memstream(&kept, &kept_len);
	if (!f || profile__write_json(f, p) || fclose(f))
		die("write", EIO);
	printf("bench: calls_views samples=%llu calls=%llu selected=%llu split_ms=%.1f "
	       "text_ms=%.1f write_ms=%.1f read_ms=%.1f file_mb=%.1f bound_ms=%.1f "
	       "bound_calls=%zu bound_file_mb=%.1f\n",
	       (unsigned long long)samples, (unsigned long long)ncalls,
	       (unsigned long long)in.selected, split_ms, text_ms, write_ms, read_ms, len / 1e6,
	       bound_ms, calls__nr(profile__calls(p)), kept_len / 1e6);
	free(kept);
	diff__free(d);
	attrib__free(as);
	attrib__free(ao);
	profile__free(s);
	profile__free(o);
	profile__free(p);
	profile__free(q);
	free(buf);
	fclose(null);
	return 0;
}
