// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The symbols cache kept between fills (stacks__fill): the live view's and
 * the agent's snapshots symbolize the stacks again each time; locations an
 * earlier fill symbolized get their lines from here, found by (module kind,
 * path, build-id, address).
 */
#include <stdbool.h>
#include <stdint.h>

#include "hashmap.h"
#include "native.h"
#include "profile.h"
#include "stacks_int.h"
#include "util.h"

/* The symbols cache's key of p's location loc (with its address): its
 * module's kind, path and build-id (a file replaced under its name is
 * another); false for a location without a module. */
static bool symcache_key(const struct profile *p, const struct profile_location *loc, uint64_t *key)
{
	struct profile_module m;

	if (loc->module == PROFILE_NO_MODULE || profile__module(p, loc->module, &m))
		return false;
	*key = fsp_hash_pair(fsp_hash_pair(fsp_hash_str(m.path), m.kind),
			     m.build_id ? fsp_hash_str(m.build_id) : 0);
	return true;
}

void symcache__use(struct stacks *st, struct profile *p)
{
	struct profile_location loc, c;
	uint64_t key, idx;

	for (size_t i = 0; st->symcache && i < profile__nr_locations(p); i++)
		if (!profile__location(p, i, &loc) && !loc.nr_lines &&
		    symcache_key(p, &loc, &key) &&
		    hashmap__find(&st->symcache_ids, key, loc.address, &idx) &&
		    !profile__location(st->symcache, idx, &c))
			profile__set_location_lines(p, i, c.lines, c.nr_lines, c.flags);
}

void symcache__keep(struct stacks *st, struct profile *p)
{
	struct profile_location loc;
	struct profile_module m;
	uint64_t key;
	int mod, idx;

	if (!st->symcache)
		st->symcache = profile__new();
	for (size_t i = 0; st->symcache && i < profile__nr_locations(p); i++) {
		if (profile__location(p, i, &loc) || !loc.nr_lines ||
		    !symcache_key(p, &loc, &key) ||
		    hashmap__find(&st->symcache_ids, key, loc.address, NULL) ||
		    profile__module(p, loc.module, &m))
			continue;
		mod = profile__add_module(st->symcache, &m);
		loc.module = mod >= 0 ? (uint32_t)mod : PROFILE_NO_MODULE;
		idx = mod >= 0 ? profile__add_location(st->symcache, &loc) : mod;
		if (idx < 0 || hashmap__find_or_insert(&st->symcache_ids, key, loc.address,
						       (uint64_t)idx, NULL) < 0)
			return;
	}
}
