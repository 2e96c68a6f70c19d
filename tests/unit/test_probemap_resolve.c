// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests of the probe maps a recording uses (userspace/probes/
 * probemap_resolve.c): two map files with one "map" name must never both be
 * attached (every probe would count twice). This program carries the USDT
 * provider the maps name (a probe below), so it is its own target.
 */
#include <errno.h>
#include <stdio.h>
#include <sys/sdt.h>
#include <sys/stat.h>
#include <unistd.h>

#include "probemap_resolve.h"
#include "unit_helpers.h"

static char dir[] = "/tmp/fsp-pmsel-XXXXXX";
static char dir_a[64], dir_b[64];

/* The provider the maps below use; never called, present in the ELF notes. */
void provider_sites(const char *name);
void provider_sites(const char *name)
{
	STAP_PROBE1(fsptestsel, work__start, name);
	STAP_PROBE(fsptestsel, work__done);
}

static void write_map(const char *path, const char *feature)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fprintf(f,
		"map selt\nprovider fsptestsel\nfeature %s\n\tenter work__start\n\tleave "
		"work__done\n\tinstance {str:0}\n",
		feature);
	assert_int_equal(fclose(f), 0);
}

static int setup(void **state)
{
	char path[128], env[160];

	(void)state;
	strcpy(dir, "/tmp/fsp-pmsel-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(dir_a, sizeof(dir_a), "%s/a", dir);
	snprintf(dir_b, sizeof(dir_b), "%s/b", dir);
	if (mkdir(dir_a, 0700) || mkdir(dir_b, 0700))
		return -1;
	/* map "selt" twice on the search path: a/other.map first, b/selt.map */
	snprintf(path, sizeof(path), "%s/other.map", dir_a);
	write_map(path, "from-other");
	snprintf(path, sizeof(path), "%s/selt.map", dir_b);
	write_map(path, "from-selt");
	snprintf(env, sizeof(env), "%s:%s", dir_a, dir_b);
	return setenv("FSP_MAP_PATH", env, 1);
}

static int teardown(void **state)
{
	char path[128];

	(void)state;
	snprintf(path, sizeof(path), "%s/other.map", dir_a);
	unlink(path);
	snprintf(path, sizeof(path), "%s/selt.map", dir_b);
	unlink(path);
	snprintf(path, sizeof(path), "%s/selt.map", dir_a);
	unlink(path);
	rmdir(dir_a);
	rmdir(dir_b);
	rmdir(dir);
	unsetenv("FSP_MAP_PATH");
	return 0;
}

static struct probemap_selection *select_features(const char *list, const char *features, int *err)
{
	struct probemap_selection_opts o = {
		.list = list, .features = features, .exe = "/proc/self/exe"};

	return probemap_selection__new(&o, err);
}

static struct probemap_selection *select_maps(const char *list, int *err)
{
	return select_features(list, NULL, err);
}

/* The one map selected, and the name of its only feature. */
static const char *only_feature(struct probemap_selection *sel)
{
	assert_non_null(sel);
	assert_int_equal(probemap_selection__nr(sel), 1);
	return probemap_selection__probemaps(sel)[0].probemap->features[0].name;
}

/* --map auto: one of the two, the file named as its map (selt.map). */
static void test_auto_same_name_once(void **state)
{
	struct probemap_selection *sel;
	int err = 0;

	(void)state;
	sel = select_maps("auto", &err);
	assert_int_equal(err, 0);
	assert_string_equal(only_feature(sel), "from-selt");
	probemap_selection__free(sel);
	/* auto twice, and the map named and auto: still once */
	sel = select_maps("auto,auto", &err);
	assert_int_equal(err, 0);
	assert_string_equal(only_feature(sel), "from-selt");
	probemap_selection__free(sel);
}

/* A map named by --map wins over a file of the same map name auto finds. */
static void test_named_wins(void **state)
{
	struct probemap_selection *sel;
	char list[160];
	int err = 0;

	(void)state;
	snprintf(list, sizeof(list), "%s/other.map,auto", dir_a);
	sel = select_maps(list, &err);
	assert_int_equal(err, 0);
	assert_string_equal(only_feature(sel), "from-other");
	probemap_selection__free(sel);
	sel = select_maps("selt,auto", &err);
	assert_int_equal(err, 0);
	assert_string_equal(only_feature(sel), "from-selt");
	probemap_selection__free(sel);
	/* the same file named twice is one map */
	snprintf(list, sizeof(list), "selt,%s/selt.map", dir_b);
	sel = select_maps(list, &err);
	assert_int_equal(err, 0);
	assert_string_equal(only_feature(sel), "from-selt");
	probemap_selection__free(sel);
}

/* Two files of one map name, both named: an error, not a double count. */
static void test_named_twice_error(void **state)
{
	struct probemap_selection *sel;
	char list[160];
	int err = 0;

	(void)state;
	snprintf(list, sizeof(list), "%s/other.map,selt", dir_a);
	sel = select_maps(list, &err);
	assert_null(sel);
	assert_int_equal(err, -EINVAL);
}

/* Without a file named as the map, the first one found is kept. */
static void test_auto_first_found(void **state)
{
	struct probemap_selection *sel;
	char path[128];
	int err = 0;

	(void)state;
	snprintf(path, sizeof(path), "%s/selt.map", dir_b);
	unlink(path);
	snprintf(path, sizeof(path), "%s/zz.map", dir_b);
	write_map(path, "from-zz");
	sel = select_maps("auto", &err);
	assert_int_equal(err, 0);
	assert_string_equal(only_feature(sel), "from-other");
	probemap_selection__free(sel);
	unlink(path);
}

/* --feature MAP:NAME of a selected map that has no feature NAME: refused
 * at once (it ran the whole session for nothing); a name without the map's
 * prefix may be an fsp feature, left to the report. */
static void test_feature_typo(void **state)
{
	struct probemap_selection *sel;
	int err = 0;

	(void)state;
	sel = select_features("selt", "from-selt, selt:from-slet", &err);
	assert_null(sel);
	assert_int_equal(err, -EINVAL);
	sel = select_features("selt", "selt:from-selt,some-fsp-feature,other:x", &err);
	assert_int_equal(err, 0);
	assert_non_null(sel);
	assert_true(probemap_selection__probemaps(sel)[0].enabled[0]);
	probemap_selection__free(sel);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_auto_same_name_once, setup, teardown),
		cmocka_unit_test_setup_teardown(test_named_wins, setup, teardown),
		cmocka_unit_test_setup_teardown(test_named_twice_error, setup, teardown),
		cmocka_unit_test_setup_teardown(test_auto_first_found, setup, teardown),
		cmocka_unit_test_setup_teardown(test_feature_typo, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
