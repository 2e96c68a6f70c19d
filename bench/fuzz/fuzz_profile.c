// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target of the profile-file reader (make fuzz). Each input is
 * parsed; a rejected one must come with a one-line message naming the file.
 * What parses is attributed and written, and the written file
 * must read back and write again to the same bytes (the writer's output is
 * always readable, and reading normalizes in one step).
 *
 * The reader's boundaries: the input is read again from a file in small
 * chunks (1 to 64 bytes) and from memory with a small window (4 to 67
 * bytes given to json-c at a time), sizes taken from the input's last byte;
 * both must accept what the plain read accepts, as the same profile, and
 * reject what it rejects.
 *
 * The native stacks of what parses (version 3) must be consistent: every
 * index a record holds names an entry of its table, a native sample's mark
 * stack is its process's. What parses is also merged with itself (twice the
 * native samples, the same tables) and diffed with itself (with its
 * per-function rows), which must not fail.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "attrib.h"
#include "diff.h"
#include "merge.h"
#include "native.h"
#include "profile_io.h"
#include "report.h"

static char *write_mem(const struct profile *p, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	if (!f)
		abort();
	if (profile__write_json(f, p))
		abort();
	if (fclose(f))
		abort();
	return buf;
}

/* The profile read with other chunk and window sizes, written (NULL: rejected). */
static char *read_sized(const uint8_t *data, size_t size, size_t *len)
{
	unsigned int h = size ? data[size - 1] : 0;
	struct profile_read_opts chunked = {.chunk = 1 + h % 64}, windowed = {.window = 4 + h / 4};
	char err[512], *a = NULL, *b = NULL;
	struct profile *p, *q;
	size_t la = 0, lb = 0;
	int fd = memfd_create("fuzz", MFD_CLOEXEC);

	if (fd < 0 || write(fd, data, size) != (ssize_t)size || lseek(fd, 0, SEEK_SET))
		abort();
	p = profile__read_fd(fd, "fuzz.json", &chunked, err, sizeof(err));
	close(fd);
	q = profile__parse_json_opts((const char *)data, size, "fuzz.json", &windowed, err,
				     sizeof(err));
	if (!p != !q) {
		fprintf(stderr, "chunks of %zu and a window of %zu disagree: %s\n", chunked.chunk,
			windowed.window, err);
		abort();
	}
	if (p) {
		a = write_mem(p, &la);
		b = write_mem(q, &lb);
		if (la != lb || memcmp(a, b, la))
			abort();
	}
	free(b);
	profile__free(p);
	profile__free(q);
	*len = la;
	return a;
}

/* Every index of the native tables in range (abort otherwise). */
static void check_native(const struct profile *p)
{
	size_t nl = profile__nr_locations(p), nm = profile__nr_modules(p);
	struct profile_native_sample ns;
	struct profile_native_stack s;
	struct profile_location loc;
	struct profile_stack st;
	size_t i, j;

	for (i = 0; i < nl; i++)
		if (profile__location(p, i, &loc) ||
		    (loc.module != PROFILE_NO_MODULE && loc.module >= nm) ||
		    (loc.nr_lines && !loc.lines))
			abort();
	for (i = 0; i < profile__nr_native_stacks(p); i++) {
		if (profile__native_stack(p, i, &s) || !s.depth || s.nr_kernel > s.depth)
			abort();
		for (j = 0; j < s.depth; j++)
			if (s.locs[j] >= nl)
				abort();
	}
	for (i = 0; i < profile__nr_native_samples(p); i++) {
		if (profile__native_sample(p, i, &ns) || ns.stack >= profile__nr_native_stacks(p))
			abort();
		if (ns.mark_stack != PROFILE_NO_STACK &&
		    (profile__stack(p, ns.mark_stack, &st) || st.pid != ns.pid ||
		     st.source != ns.source || st.key != ns.key))
			abort();
	}
}

/* p merged with itself, and diffed with itself, rendered. */
static void merge_and_diff(const struct profile *p)
{
	struct profile *m = profile__new();
	char err[512], *buf = NULL;
	size_t len = 0;
	struct diff *d;
	FILE *f;

	if (!m)
		abort();
	/* a merge may refuse p (sources of different periods, a sample count
	 * that doubled overflows): only what it does take is checked */
	if (!profile__merge(m, p, err, sizeof(err)) && !profile__merge(m, p, err, sizeof(err)) &&
	    (profile__nr_native_samples(m) != 2 * profile__nr_native_samples(p) ||
	     profile__nr_locations(m) != profile__nr_locations(p) ||
	     profile__nr_native_stacks(m) != profile__nr_native_stacks(p)))
		abort();
	profile__free(m);
	d = diff__compute(p, p, NULL);
	f = open_memstream(&buf, &len);
	if (!d || !f || diff__text(f, d, NULL) || diff__json(f, d))
		abort();
	fclose(f);
	free(buf);
	diff__free(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[512] = "", *t1, *t2;
	struct profile *p, *q;
	struct attrib *a;
	size_t l1, l2;

	p = profile__parse_json((const char *)data, size, "fuzz.json", err, sizeof(err));
	t2 = read_sized(data, size, &l2);
	if (!p) {
		if (strncmp(err, "fuzz.json: ", 11) || strchr(err, '\n'))
			abort();
		if (t2) {
			fprintf(stderr, "read in small chunks, a rejected input reads: %s\n", err);
			abort();
		}
		return 0;
	}
	if (!t2) {
		fprintf(stderr, "read in small chunks, a profile is rejected\n");
		abort();
	}
	a = attrib__compute(p, NULL);
	if (!a)
		abort();
	attrib__free(a);
	check_native(p);
	merge_and_diff(p);
	t1 = write_mem(p, &l1);
	if (l1 != l2 || memcmp(t1, t2, l1)) {
		fprintf(stderr, "read in small chunks, the profile differs\n");
		abort();
	}
	free(t2);
	q = profile__parse_json(t1, l1, "rewritten.json", err, sizeof(err));
	if (!q) {
		fprintf(stderr, "the written profile does not read back: %s\n", err);
		abort();
	}
	t2 = write_mem(q, &l2);
	if (l1 != l2 || memcmp(t1, t2, l1)) {
		fprintf(stderr, "writing the profile read back gives other bytes\n");
		abort();
	}
	free(t1);
	free(t2);
	profile__free(q);
	profile__free(p);
	return 0;
}
