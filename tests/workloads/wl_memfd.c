// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * wl_memfd - loads libwl_ns.so (next to its executable) from a memfd, as a
 * plug-in host that receives its code over a socket or unpacks it does: the
 * library is mapped from a file that has no name to open by
 * ("/memfd:wl-plugin (deleted)" in /proc/PID/maps).
 *
 *   wl_memfd TRUTH MS now          load it now, then run
 *   wl_memfd TRUTH MS wait READY   load it, write READY and wait, without
 *                                  using CPU, for SIGUSR2; then run (-p)
 *
 * Runs the library's feature "nsfeature" for MS ms, then as much unmarked
 * work.
 *
 * Truth keys: cpu_total_ns, cpu_before_ns (process CPU when it started
 * running), feature.nsfeature.{ns,ambig_ns}.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "wl_common.h"
#include "wl_dl.h"

/* A memfd holding the bytes of the file at path. */
static int memfd_copy(const char *path)
{
	char buf[65536];
	int in = open(path, O_RDONLY | O_CLOEXEC), fd = memfd_create("wl-plugin", MFD_CLOEXEC);
	ssize_t n;

	if (in < 0 || fd < 0)
		wl_die("cannot copy %s into a memfd", path);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(fd, buf, n) != n)
			wl_die("write to the memfd failed");
	close(in);
	return fd;
}

int main(int argc, char **argv)
{
	static const struct wl_dl_api api = {wl_thread_ns, wl_burn, wl_rand_range};
	void (*run)(const struct wl_dl_api *, uint64_t, struct wl_dl_result *);
	char dir[PATH_MAX], lib[PATH_MAX + 32], fdpath[64];
	struct wl_dl_result r;
	uint64_t ms, before;
	void *h;
	FILE *f;
	int fd;

	if (argc < 4 || (strcmp(argv[3], "now") && strcmp(argv[3], "wait")) ||
	    (!strcmp(argv[3], "wait") && argc != 5))
		wl_die("usage: wl_memfd TRUTH MS now | wl_memfd TRUTH MS wait READY");
	ms = wl_arg_u64(argv[2], "MS");
	wl_self_dir(dir, sizeof(dir));
	snprintf(lib, sizeof(lib), "%s/libwl_ns.so", dir);
	fd = memfd_copy(lib);
	snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", fd);
	h = dlopen(fdpath, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		wl_die("dlopen %s: %s", fdpath, dlerror());
	*(void **)&run = dlsym(h, "wl_ns_run");
	if (!run)
		wl_die("dlsym wl_ns_run: %s", dlerror());
	if (!strcmp(argv[3], "wait"))
		wl_ready_wait_usr2(argv[4]);
	before = wl_process_ns();
	run(&api, ms, &r);
	wl_burn(ms * WL_NS_PER_MS);
	f = wl_out_open(argv[1]);
	wl_out_u64(f, "cpu_total_ns", wl_process_ns());
	wl_out_u64(f, "cpu_before_ns", before);
	wl_out_u64(f, "feature.nsfeature.ns", r.feature_ns);
	wl_out_u64(f, "feature.nsfeature.ambig_ns", r.feature_ambig_ns);
	return wl_out_close(f, argv[1]) || wl_integrity_errors() ? 3 : 0;
}
