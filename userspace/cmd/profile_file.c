// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "log.h"
#include "profile_file.h"
#include "profile_io.h"

struct profile *profile_file__load(const char *path)
{
	char msg[512];
	struct profile *p = profile__load(path, msg, sizeof(msg));

	if (!p)
		log__err("%s", msg);
	return p;
}
