// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "funcfeat_apply.h"
#include "log.h"
#include "native.h"
#include "outfile.h"
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

/* Did a rule of recorded read variable symbol at sample time? */
static bool recorded_var(const struct funcfeat *recorded, const char *symbol)
{
	for (size_t i = 0; i < funcfeat__nr(recorded); i++) {
		const struct funcfeat_rule *r = funcfeat__rule(recorded, i);

		if (r->instance == FUNCFEAT_INSTANCE_GLOBAL && !strcmp(r->global, symbol))
			return true;
	}
	return false;
}

/* Says which of extra's rules read a variable the recording did not read. */
static void note_unread(const struct funcfeat *recorded, const struct funcfeat *extra)
{
	for (size_t i = 0; i < funcfeat__nr(extra); i++) {
		const struct funcfeat_rule *r = funcfeat__rule(extra, i);

		if (r->instance == FUNCFEAT_INSTANCE_GLOBAL && !recorded_var(recorded, r->global))
			log__info(
				"%s: its instance {global:%s} is read when each sample is taken, "
				"and this profile was recorded without it: its samples are charged "
				"to \"" FUNCFEAT_NOT_READ "\" (record with the rule to read it)",
				r->feature, r->global);
	}
}

int profile_file__apply_rules(struct profile *p, const struct funcfeat *extra)
{
	const char *recorded = profile__meta(p)->function_features;
	struct funcfeat *ff = funcfeat__new();
	char msg[512];
	int err = ff ? 0 : -ENOMEM;

	if (!err && recorded && funcfeat__parse(ff, recorded, msg, sizeof(msg))) {
		log__err("the profile's function features: %s", msg);
		err = -EINVAL;
	}
	if (!err)
		note_unread(ff, extra);
	if (!err)
		err = funcfeat__merge(ff, extra);
	/* Without samples the report says so; with samples and no native
	 * stack, the recording had no --stacks (or lost them: diagnostics). */
	if (!err && funcfeat__nr(ff) && profile__total_samples(p) && !profile__nr_native_samples(p))
		log__info("function features are found on native stacks: this profile has none "
			  "(record it with --stacks), so nothing is charged to them");
	if (!err)
		err = funcfeat__apply(ff, p);
	if (err == -ENOMEM)
		log__err("cannot charge the function features: %s", strerror(-err));
	funcfeat__free(ff);
	return err;
}

int profile_file__check(const char *path)
{
	int err = outfile__check(path);

	if (err == -EPERM || err == -ENXIO) /* refused: outfile__strerror says why */
		log__err("cannot save the profile to %s: %s; nothing was profiled", path,
			 outfile__strerror(err));
	else if (err)
		log__err("cannot save the profile to %s: %s; nothing was profiled (give -o a "
			 "file in a directory you can write)",
			 path, outfile__strerror(err));
	return err;
}

/* Tries to save p in dir as fsp-bpf-NAME-DATE-PID[-N].json (NAME: path's
 * file name without .json), a name no file has; 0 with its path in out. */
static int keep_in(const char *dir, const char *path, const struct profile *p, char *out,
		   size_t size)
{
	char *copy = strdup(path), *name, stamp[32], msg[512];
	time_t t = time(NULL);
	struct tm tm;
	size_t n;
	int err = -EEXIST;

	if (!copy)
		return -ENOMEM;
	name = basename(copy);
	n = strlen(name);
	if (n > 5 && !strcmp(name + n - 5, ".json"))
		name[n - 5] = 0;
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", localtime_r(&t, &tm));
	for (int i = 0; i < 100 && err == -EEXIST; i++) {
		if ((size_t)snprintf(out, size, "%s/fsp-bpf-%.64s-%s-%d%s%.0d.json", dir, name,
				     stamp, (int)getpid(), i ? "-" : "", i) >= size) {
			err = -ENAMETOOLONG;
			break;
		}
		/* a new file, never one that is there (another user's, in /tmp) */
		err = profile__save_new(out, p, msg, sizeof(msg));
	}
	free(copy);
	return err;
}

int profile_file__save(const char *path, const struct profile *p, char *kept, size_t size)
{
	const char *dirs[] = {getenv("TMPDIR"), "/var/tmp", "/tmp"};
	char msg[512], where[PATH_MAX];
	int err = profile__save(path, p, msg, sizeof(msg));

	if (kept && size)
		kept[0] = 0;
	if (!err || !strcmp(path, "-")) {
		if (err)
			log__err("cannot write the profile: %s", msg);
		return err;
	}
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		if (!dirs[i] || !*dirs[i] || keep_in(dirs[i], path, p, where, sizeof(where)))
			continue;
		log__err("cannot save the profile to %s; it is saved in %s instead (move it "
			 "where you want it)",
			 msg, where);
		if (kept)
			snprintf(kept, size, "%s", where);
		return err;
	}
	log__err("cannot save the profile to %s, nor in $TMPDIR, /var/tmp or /tmp: it is lost "
		 "(the report follows)",
		 msg);
	return err;
}
