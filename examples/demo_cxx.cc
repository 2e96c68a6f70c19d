// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * demo_cxx - usdt/fsp.h from C++.
 *
 *   demo_cxx [MS]   run for about MS ms of CPU time (default 1000)
 *
 * Two features:
 *   config-parse  parses "key=value" text; FSP_SCOPED_MARK leaves the mark
 *                 even when a bad line makes it throw
 *   visit         calls a user callback per entry; fsp::scoped_mark marks the
 *                 feature, fsp::scoped_antimark keeps the callback's time out
 *                 of it, and both unwind when the callback throws
 * Builds as C++11 and later.
 */
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <map>
#include <stdexcept>
#include <string>

#include <fsp/fsp.h>

struct parse_error : std::runtime_error {
	explicit parse_error(const std::string &what) : std::runtime_error(what)
	{
	}
};

// Feature "config-parse". Throwing unwinds through the scoped mark, whose
// destructor fires fsp:mark_leave, so the profiler stops charging it.
static std::map<std::string, long> parse_config(const std::string &text)
{
	FSP_SCOPED_MARK("config-parse", FSP_HERE, text.size());
	std::map<std::string, long> kv;
	size_t pos = 0;

	while (pos < text.size()) {
		size_t eol = text.find('\n', pos), eq = text.find('=', pos);

		if (eol == std::string::npos)
			eol = text.size();
		if (eq == std::string::npos || eq > eol)
			throw parse_error("no '=' in line: " + text.substr(pos, eol - pos));
		kv[text.substr(pos, eq - pos)] = std::strtol(text.c_str() + eq + 1, nullptr, 10);
		pos = eol + 1;
	}
	return kv;
}

// Feature "visit": the loop is the feature, the callback is user code.
template <class F> static void visit(const std::map<std::string, long> &kv, F &&callback)
{
	fsp::scoped_mark mark("visit", "visit<F>", kv.size());

	for (const auto &e : kv) {
		fsp::scoped_antimark user("visit");
		callback(e.first, e.second);
	}
}

static double cpu_ms()
{
	timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	long ms = argc > 1 ? std::strtol(argv[1], nullptr, 10) : 1000;
	long parsed = 0, parse_errors = 0, callback_errors = 0, sum = 0;
	std::string good, bad;

	if (argc > 2 || ms <= 0) {
		std::fprintf(stderr, "usage: %s [MS]\n", argv[0]);
		return 2;
	}
	for (int i = 0; i < 200; i++)
		good += "key" + std::to_string(i) + "=" + std::to_string(i * 7) + "\n";
	bad = good + "this line has no equals sign\n";

	while (cpu_ms() < ms) {
		try {
			auto kv = parse_config(good);
			parsed++;
			visit(kv, [&](const std::string &k, long v) {
				if (v == 700) // user code may throw, too
					throw std::out_of_range("callback rejects " + k);
				sum += v;
			});
		} catch (const std::out_of_range &) {
			callback_errors++;
		}
		try {
			parse_config(bad);
		} catch (const parse_error &) {
			parse_errors++;
		}
	}
	std::printf("demo_cxx: %ld configs parsed, %ld parse errors and %ld callback errors "
		    "unwound through scoped marks (sum %ld)\n",
		    parsed, parse_errors, callback_errors, sum);
	return 0;
}
