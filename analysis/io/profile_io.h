/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The profile file (docs/profile-format.md): the JSON profile, written and read
 * with json-c. Writing is deterministic (the same profile gives the same
 * bytes) and streamed record by record; reading is streamed too, so that the
 * memory a load takes is the model's plus one record, whatever the file size.
 * A file written by profile__write_json and read back gives the same bytes
 * when written again.
 */
#ifndef FSP_ANALYSIS_PROFILE_IO_H
#define FSP_ANALYSIS_PROFILE_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "profile.h"

/* The version written; the reader accepts PROFILE_FORMAT_MIN_VERSION..this. */
#define PROFILE_FORMAT_VERSION 4
#define PROFILE_FORMAT_MIN_VERSION 1

/*
 * Limits of the reader; inputs beyond them are rejected with a message.
 * Files: the model takes two to three times the memory of its file
 * (docs/profile-format.md "Reading: checks and limits"), so a 4 GiB file is
 * already one that needs GiBs of memory.
 */
#define PROFILE_IO_MAX_FILE (4ULL << 30) /* bytes of one file */
#define PROFILE_IO_MAX_STRING (64 * 1024) /* bytes of one string (labels, metadata) */
#define PROFILE_IO_MAX_DEPTH 16 /* nesting of arrays and objects; the format needs 5 */
#define PROFILE_IO_MAX_FRAMES 4096 /* frames of one stack (the recorder keeps 64) */
/* frames of one native stack, functions (inlined ones) of one location */
#define PROFILE_IO_MAX_NATIVE_FRAMES 4096
#define PROFILE_IO_MAX_LINES 256
#define PROFILE_IO_MAX_VALUE (4 << 20) /* bytes of one record or scalar value */

/*
 * The profile file to a stream: the model, plus the attribution of all its
 * samples and other derived summaries. Returns 0, -EINVAL, -ENOMEM or the
 * -errno of the write (the stream is flushed).
 */
int profile__write_json(FILE *out, const struct profile *p);

struct json_out;

/* More top-level members of a profile file (the plug-ins' "plugins"):
 * members() writes them with json_out's framing, after "events" and before
 * "diagnostics". It returns 0 or -errno, which fails the write. */
struct profile_json_ext {
	int (*members)(void *ctx, struct json_out *w);
	void *ctx;
};

/* As profile__write_json, with ext's members (ext may be NULL). */
int profile__write_json_ext(FILE *out, const struct profile *p, const struct profile_json_ext *ext);

/*
 * Writes the profile file atomically: a temporary ".NAME.XXXXXX" in NAME's
 * directory is written, flushed, fsync'ed and renamed over NAME. On any error
 * the temporary is removed and an existing NAME is left untouched. A new file
 * is private (0600, outfile.h), a replaced one keeps its owner and mode; a
 * path another user could have pointed elsewhere is refused (outfile.h).
 * "-" writes to stdout.
 * Returns 0 or -errno, with a one-line message ("out.json: No space left on
 * device") in err (may be NULL).
 */
int profile__save(const char *path, const struct profile *p, char *err, size_t errlen);
/* The same to a file that must not exist yet: -EEXIST if it does. */
int profile__save_new(const char *path, const struct profile *p, char *err, size_t errlen);

/*
 * Reads a profile file of a version PROFILE_FORMAT_MIN_VERSION..
 * PROFILE_FORMAT_VERSION ("-": stdin). Returns the profile, or NULL with a
 * one-line message naming the file and the problem in err (may be NULL).
 */
struct profile *profile__load(const char *path, char *err, size_t errlen);

/* As profile__load, from the len bytes at buf (no NUL needed); name is the
 * file name the messages use. */
struct profile *profile__parse_json(const char *buf, size_t len, const char *name, char *err,
				    size_t errlen);

/*
 * How the reader takes its input, for tests of its boundaries and the
 * fuzzer (0: the default). A file is read `chunk` bytes at a time
 * (256 KiB); json-c is given at most `window` bytes at a time (1 MiB, at
 * least 4), never ending inside a UTF-8 character while more input follows.
 */
struct profile_read_opts {
	size_t chunk;
	size_t window;
};

/* As profile__parse_json and profile__load (from fd, which stays open),
 * with these sizes (o may be NULL). */
struct profile *profile__parse_json_opts(const char *buf, size_t len, const char *name,
					 const struct profile_read_opts *o, char *err,
					 size_t errlen);
struct profile *profile__read_fd(int fd, const char *name, const struct profile_read_opts *o,
				 char *err, size_t errlen);

#endif /* FSP_ANALYSIS_PROFILE_IO_H */
