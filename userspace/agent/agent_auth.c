// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Authorization (--auth-file): each line of the file is a credential as
 * the Authorization header carries it, "Bearer TOKEN" (Prometheus's
 * `authorization: {credentials_file: ...}`, Parca's and Alloy's
 * bearer_token_file) or "Basic USER:PASSWORD" (their basic_auth). Several
 * lines: any of them is accepted (rotation). Secrets are compared in
 * constant time (gnutls_memcmp), Basic credentials decoded by GnuTLS.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gnutls/gnutls.h>

#include "agent_int.h"
#include "log.h"
#include "safeopen.h"

#define MAX_CREDS 64

struct agent_cred {
	bool basic; /* secret is "USER:PASSWORD" */
	char *secret;
	size_t len;
};

void agent_auth__free(struct agent_cred *c, size_t nr)
{
	if (!c)
		return;
	for (size_t i = 0; i < nr; i++) {
		if (c[i].secret)
			explicit_bzero(c[i].secret, c[i].len);
		free(c[i].secret);
	}
	free(c);
}

/* "Bearer" or "Basic" (any case) then blanks: the rest; NULL otherwise. */
static const char *scheme(const char *s, bool *basic)
{
	s += strspn(s, " \t");
	if (!strncasecmp(s, "Bearer", 6) && (s[6] == ' ' || s[6] == '\t'))
		*basic = false;
	else if (!strncasecmp(s, "Basic", 5) && (s[5] == ' ' || s[5] == '\t'))
		*basic = true;
	else
		return NULL;
	s += *basic ? 5 : 6;
	return s + strspn(s, " \t");
}

static int parse_line(char *line, struct agent_cred *c)
{
	size_t len = strlen(line);
	const char *secret;

	while (len && isspace((unsigned char)line[len - 1]))
		line[--len] = 0;
	secret = scheme(line, &c->basic);
	if (!secret || !*secret || (!c->basic && strpbrk(secret, " \t")) ||
	    (c->basic && !strchr(secret, ':')))
		return -EINVAL;
	c->len = strlen(secret);
	c->secret = strdup(secret);
	return c->secret ? 0 : -ENOMEM;
}

int agent_auth__parse(const char *text, struct agent_cred **out, size_t *nr, int *bad_line)
{
	struct agent_cred *c = calloc(MAX_CREDS, sizeof(*c));
	char *copy = strdup(text), *save = NULL, *line;
	int err = c && copy ? 0 : -ENOMEM, lineno = 0;
	size_t n = 0;

	*bad_line = 0;
	for (line = copy ? strtok_r(copy, "\n", &save) : NULL; line && !err;
	     line = strtok_r(NULL, "\n", &save)) {
		const char *t = line + strspn(line, " \t\r");

		lineno++;
		if (!*t || *t == '#')
			continue;
		err = n == MAX_CREDS ? -E2BIG : parse_line(line, &c[n]);
		if (!err)
			n++;
		else
			*bad_line = lineno;
	}
	if (copy)
		explicit_bzero(copy, strlen(text));
	free(copy);
	if (!err && !n)
		err = -ENODATA;
	if (err) {
		agent_auth__free(c, n);
		return err;
	}
	*out = c;
	*nr = n;
	return 0;
}

char *agent_auth__read_private(const char *path, const char *what, bool private_only)
{
	/* A regular file only: a FIFO is not waited on, no device's open runs
	 * (safeopen.h). */
	struct stat st;
	int fd = safeopen__read(AT_FDCWD, path, 0, NULL, &st);
	char *buf = NULL;
	ssize_t got = 0, n;

	if (fd == -EINVAL || fd == -EISDIR) {
		log__err("%s %s: not a regular file", what, path);
		return NULL;
	}
	if (fd < 0) {
		log__err("%s %s: %s", what, path, strerror(-fd));
		return NULL;
	}
	if (st.st_size > AGENT_MAX_FILE) {
		log__err("%s %s: larger than %d bytes", what, path, AGENT_MAX_FILE);
		goto out;
	}
	if (private_only && (st.st_mode & 077)) {
		log__err("%s %s can be read by others (mode %04o): it holds secrets; chmod 600 %s",
			 what, path, st.st_mode & 07777, path);
		goto out;
	}
	buf = malloc(st.st_size + 1);
	while (buf && got < st.st_size && (n = read(fd, buf + got, st.st_size - got)) > 0)
		got += n;
	if (!buf || got != st.st_size) {
		log__err("%s %s: cannot read it", what, path);
		free(buf);
		buf = NULL;
		goto out;
	}
	buf[got] = 0;
out:
	close(fd);
	return buf;
}

int agent_auth__load(const char *path, struct agent_cred **out, size_t *nr)
{
	char *text = agent_auth__read_private(path, "--auth-file", true);
	int bad = 0, err;

	if (!text)
		return -EACCES;
	err = agent_auth__parse(text, out, nr, &bad);
	explicit_bzero(text, strlen(text));
	free(text);
	if (err == -ENODATA)
		log__err("--auth-file %s has no credential: write a line 'Bearer TOKEN' or 'Basic "
			 "USER:PASSWORD'",
			 path);
	else if (err == -E2BIG)
		log__err("--auth-file %s: more than %d credentials", path, MAX_CREDS);
	else if (err)
		log__err("--auth-file %s line %d: expected 'Bearer TOKEN' (no blanks in the "
			 "token) or 'Basic USER:PASSWORD'",
			 path, bad);
	return err;
}

/* secret == cred, in time that depends on their lengths only. */
static bool same(const struct agent_cred *c, const char *secret, size_t len)
{
	return c->len == len && !gnutls_memcmp(c->secret, secret, len);
}

bool agent_auth__check(const struct agent_cred *c, size_t nr, const char *header)
{
	gnutls_datum_t in, dec = {NULL, 0};
	const char *token;
	bool basic = false, ok = false;

	if (!header || !(token = scheme(header, &basic)))
		return false;
	if (basic) {
		in.data = (unsigned char *)token;
		in.size = strcspn(token, " \t\r\n");
		if (gnutls_base64_decode2(&in, &dec) < 0)
			return false;
	}
	for (size_t i = 0; i < nr; i++) {
		if (c[i].basic != basic)
			continue;
		if (basic)
			ok |= same(&c[i], (const char *)dec.data, dec.size);
		else
			ok |= same(&c[i], token, strlen(token));
	}
	if (dec.data) {
		explicit_bzero(dec.data, dec.size);
		gnutls_free(dec.data);
	}
	return ok;
}
