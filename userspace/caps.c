// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "caps.h"
#include "log.h"

bool caps__have(int cap)
{
	struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = {};

	if (cap < 0 || cap >= 32 * _LINUX_CAPABILITY_U32S_3 || syscall(SYS_capget, &hdr, data))
		return false;
	return data[cap / 32].effective & (UINT32_C(1) << (cap % 32));
}

const char *caps__missing(char *buf, size_t size)
{
	static const struct {
		int cap;
		const char *name;
	} needed[] = {{CAP_BPF, "CAP_BPF"}, {CAP_PERFMON, "CAP_PERFMON"}};
	bool admin = caps__have(CAP_SYS_ADMIN);
	size_t len = 0;

	if (size)
		buf[0] = 0;
	for (size_t i = 0; i < sizeof(needed) / sizeof(needed[0]); i++)
		if (!admin && !caps__have(needed[i].cap) && len < size)
			len += snprintf(buf + len, size - len, "%s%s", len ? ", " : "",
					needed[i].name);
	return buf;
}

int caps__require(const char *cmdline)
{
	char missing[64];

	if (!*caps__missing(missing, sizeof(missing)))
		return 0;
	/* Root without them: a container's, or a bounding set that drops
	 * them; sudo would not help. */
	if (!geteuid())
		log__err("missing %s: record loads BPF programs (CAP_BPF), samples every CPU and "
			 "attaches uprobes (CAP_PERFMON), and this root lacks them (a container "
			 "or a capability bounding set that drops them): grant CAP_BPF and "
			 "CAP_PERFMON (docker run --cap-add BPF --cap-add PERFMON; README, "
			 "\"Capabilities\")",
			 missing);
	else
		log__err("missing %s: record loads BPF programs (CAP_BPF), samples every CPU and "
			 "attaches uprobes (CAP_PERFMON); run it as root (try: sudo %s) or with "
			 "CAP_BPF and CAP_PERFMON, and CAP_SYS_PTRACE and CAP_DAC_READ_SEARCH for "
			 "other users' processes (README, \"Capabilities\")",
			 missing, cmdline);
	return -EPERM;
}

/* Can path be opened (flags)? 0, or -errno. */
static int try_open(const char *path, int flags)
{
	int fd = open(path, flags | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

int caps__check_readable(pid_t pid)
{
	char maps[64], root[64];
	struct stat st;

	/* Its mappings, and its files through its root directory (the
	 * kernel lets CAP_PERFMON read the first, not the second). */
	snprintf(maps, sizeof(maps), "/proc/%d/maps", (int)pid);
	snprintf(root, sizeof(root), "/proc/%d/root/", (int)pid);
	if (try_open(maps, O_RDONLY) != -EACCES &&
	    try_open(root, O_RDONLY | O_DIRECTORY) != -EACCES)
		return 0;
	snprintf(root, sizeof(root), "/proc/%d", (int)pid);
	log__err("cannot read the files of process %d (user id %d): reading another user's "
		 "process, or one that is not dumpable, needs CAP_SYS_PTRACE (or root)",
		 (int)pid, stat(root, &st) ? -1 : (int)st.st_uid);
	return -EACCES;
}

void caps__drop_ambient(void)
{
	prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
}
