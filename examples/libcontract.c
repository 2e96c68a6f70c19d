// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libcontract (contract.h): checks at component boundaries, marked for
 * fsp-bpf. Every check is a mark of feature "contract" whose instance label
 * is "CLIENT->SERVER:CHECK": the boundary plug-in (fsp-bpf --plugin
 * boundary) groups the checking cost by boundary and draws the components.
 * Labels must outlive the process's marks (usdt/README.md, rule 1), so they
 * are built once per (boundary, check) and never freed.
 */
#define _GNU_SOURCE
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fsp/fsp.h>

#include "contract.h"

#define CT_FEATURE "contract"
#define CT_MAX_CHECKS 32 /* distinct check names per boundary */

struct ct_label {
	const char *what;
	char *label; /* "client->server:what" */
};

struct ct_boundary {
	char *client, *server;
	struct ct_label checks[CT_MAX_CHECKS];
	int nr_checks;
	char *overflow; /* "client->server:(other)", beyond CT_MAX_CHECKS */
	struct ct_boundary *next;
};

static pthread_mutex_t ct_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ct_boundary *ct_boundaries;
static unsigned long ct_nr_violations;
static char ct_last[256];

struct ct_boundary *ct_boundary(const char *client, const char *server)
{
	struct ct_boundary *b;

	pthread_mutex_lock(&ct_lock);
	for (b = ct_boundaries; b; b = b->next)
		if (!strcmp(b->client, client) && !strcmp(b->server, server))
			break;
	if (!b && (b = calloc(1, sizeof(*b)))) {
		b->client = strdup(client);
		b->server = strdup(server);
		if (b->client && b->server &&
		    asprintf(&b->overflow, "%s->%s:(other)", client, server) >= 0) {
			b->next = ct_boundaries;
			ct_boundaries = b;
		} else {
			free(b->client);
			free(b->server);
			free(b);
			b = NULL;
		}
	}
	pthread_mutex_unlock(&ct_lock);
	return b;
}

/* The label of check `what` at b: "client->server:what", made once. The
 * same `what` pointer is found without comparing bytes. */
static const char *ct_label(const struct ct_boundary *cb, const char *what)
{
	struct ct_boundary *b = (struct ct_boundary *)cb; /* its label cache */
	const char *label = b->overflow;
	int i;

	pthread_mutex_lock(&ct_lock);
	for (i = 0; i < b->nr_checks; i++)
		if (b->checks[i].what == what || !strcmp(b->checks[i].what, what))
			break;
	if (i < b->nr_checks) {
		label = b->checks[i].label;
	} else if (i < CT_MAX_CHECKS) {
		char *l = NULL, *w = strdup(what);

		if (w && asprintf(&l, "%s->%s:%s", b->client, b->server, what) >= 0) {
			b->checks[i] = (struct ct_label){w, l};
			b->nr_checks++;
			label = l;
		} else {
			free(w);
		}
	}
	pthread_mutex_unlock(&ct_lock);
	return label;
}

/* A failed check, blamed on the client (a precondition) or the server. */
static void ct_violation(const struct ct_boundary *b, bool server, const char *what,
			 const char *detail)
{
	pthread_mutex_lock(&ct_lock);
	ct_nr_violations++;
	snprintf(ct_last, sizeof(ct_last), "%s broke contract '%s' between %s and %s: %s",
		 server ? b->server : b->client, what, b->client, b->server, detail);
	pthread_mutex_unlock(&ct_lock);
}

bool ct_require_finite(const struct ct_boundary *b, const double *v, size_t n)
{
	/* the label is worth computing only when a profiler is attached */
	const char *label = FSP_ENABLED() ? ct_label(b, "finite") : NULL;
	size_t bad = 0;

	FSP_SCOPED_MARK(CT_FEATURE, label, 0);
	for (size_t i = 0; i < n; i++)
		bad += !isfinite(v[i]);
	if (bad)
		ct_violation(b, false, "finite", "a vector holds NaN or infinity");
	return !bad;
}

bool ct_require_sorted(const struct ct_boundary *b, const int *v, size_t n)
{
	const char *label = FSP_ENABLED() ? ct_label(b, "sorted") : NULL;
	size_t bad = 0;

	FSP_SCOPED_MARK(CT_FEATURE, label, 0);
	for (size_t i = 1; i < n; i++)
		bad += v[i - 1] > v[i];
	if (bad)
		ct_violation(b, false, "sorted", "an array is not sorted");
	return !bad;
}

int ct_call(const struct ct_boundary *b, const char *what, int (*fn)(void *arg), void *arg,
	    bool (*pre)(const void *arg), bool (*post)(const void *arg, int result))
{
	const char *label = FSP_ENABLED() ? ct_label(b, what) : NULL;
	int r;

	FSP_SCOPED_MARK(CT_FEATURE, label, 0);
	if (pre && !pre(arg)) {
		ct_violation(b, false, what, "precondition failed");
		return -1;
	}
	/* the server's own work: not the contract's cost */
	FSP_ANTIMARK_ENTER(CT_FEATURE);
	r = fn(arg);
	FSP_ANTIMARK_LEAVE(CT_FEATURE);
	if (post && !post(arg, r))
		ct_violation(b, true, what, "postcondition failed");
	return r;
}

unsigned long ct_violations(void)
{
	unsigned long n;

	pthread_mutex_lock(&ct_lock);
	n = ct_nr_violations;
	pthread_mutex_unlock(&ct_lock);
	return n;
}

const char *ct_last_violation(void)
{
	return ct_last;
}
