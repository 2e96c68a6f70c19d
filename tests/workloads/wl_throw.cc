// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * wl_throw - C++ exceptions of several types for the libstdcxx probe map
 * (maps/libstdcxx.map, tests/integration/test_libstdcxx.c).
 *
 *   wl_throw TRUTH ROUNDS
 *
 * Each round throws, from a function a few calls deep, and catches in an
 * outer frame (the catch runs in another function than the throw):
 *   3 std::runtime_error, 2 std::out_of_range, 1 app_error (a class of its
 *   own), 1 int; and 1 std::runtime_error caught, rethrown with "throw;" and
 *   caught again one frame up.
 * The truth file has, per type (typeid(T).name(): the mangled name that
 * std::type_info holds), "throw.NAME N", "rethrow.NAME N" and "catch.NAME N",
 * counted by the program as it throws and catches.
 */
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <typeinfo>

extern "C" {
#include "wl_common.h"
}

struct app_error {
	int code;
};

static unsigned long n_runtime, n_range, n_app, n_int, n_rethrow, c_runtime, c_range, c_app, c_int;
static volatile int depth_sink;

template <typename T> [[gnu::noinline]] static void thrower(int depth, T value)
{
	depth_sink = depth;
	if (depth > 0) {
		thrower(depth - 1, value);
		depth_sink++;
		return;
	}
	throw value;
}

[[gnu::noinline]] static void rethrower(void)
{
	try {
		n_runtime++;
		thrower(3, std::runtime_error("again"));
	} catch (const std::runtime_error &) {
		c_runtime++;
		n_rethrow++;
		throw;
	}
}

[[gnu::noinline]] static void round_once(void)
{
	for (int i = 0; i < 3; i++) {
		try {
			n_runtime++;
			thrower(4, std::runtime_error("x"));
		} catch (const std::runtime_error &) {
			c_runtime++;
		}
	}
	for (int i = 0; i < 2; i++) {
		try {
			n_range++;
			thrower(2, std::out_of_range("r"));
		} catch (const std::out_of_range &) {
			c_range++;
		}
	}
	try {
		n_app++;
		thrower(5, app_error{7});
	} catch (const app_error &) {
		c_app++;
	}
	try {
		n_int++;
		thrower(1, 42);
	} catch (int) {
		c_int++;
	}
	try {
		rethrower();
	} catch (const std::exception &) {
		c_runtime++;
	}
}

static void out3(FILE *f, const char *what, const char *name, unsigned long n)
{
	char key[256];

	snprintf(key, sizeof(key), "%s.%s", what, name);
	wl_out_u64(f, key, n);
}

int main(int argc, char **argv)
{
	unsigned long rounds;
	FILE *f;

	if (argc != 3) {
		fprintf(stderr, "usage: wl_throw TRUTH ROUNDS\n");
		return 2;
	}
	rounds = strtoul(argv[2], NULL, 10);
	for (unsigned long r = 0; r < rounds; r++)
		round_once();
	f = wl_out_open(argv[1]);
	out3(f, "throw", typeid(std::runtime_error).name(), n_runtime);
	out3(f, "throw", typeid(std::out_of_range).name(), n_range);
	out3(f, "throw", typeid(app_error).name(), n_app);
	out3(f, "throw", typeid(int).name(), n_int);
	out3(f, "rethrow", typeid(std::runtime_error).name(), n_rethrow);
	out3(f, "catch", typeid(std::runtime_error).name(), c_runtime);
	out3(f, "catch", typeid(std::out_of_range).name(), c_range);
	out3(f, "catch", typeid(app_error).name(), c_app);
	out3(f, "catch", typeid(int).name(), c_int);
	wl_out_u64(f, "rounds", rounds);
	return wl_out_close(f, argv[1]) ? 1 : 0;
}
