#!/usr/bin/env bash
# The installed headers, used as a program outside the default prefix uses
# them: make install PREFIX=<scratch>, then pkg-config pointing there.
#
#   pkgconfig_cflags    pkg-config --cflags fsp-bpf is -I<prefix>/include, so
#                       #include <fsp/fsp.h> and <fsp/fsp-plugin.h> resolve;
#                       the unit and the binary name <prefix>, not the prefix
#                       the tree was built for before
#   warnings_c          a C file using every macro compiles with gcc and clang
#                       -Wall -Wextra -Wconversion -Wsign-conversion -Werror
#                       (C99 and GNU11; ABI v2, -DFSP_ABI_V1, -DFSP_DISABLE)
#   warnings_cxx        the same in C++ (g++, clang++) with -Wold-style-cast
#                       (and g++'s -Wuseless-cast), scoped guards, pointer payloads
#   cmake               the CMake example of docs/production.md builds and runs
#   runs_without_fsp    a program built with the header needs nothing of
#                       fsp-bpf: it links only libc, runs after the install is
#                       removed, and (root) fsp-bpf profiles its marks
. "$(dirname "$0")/lib.sh"

CWARN="-Wall -Wextra -Wconversion -Wsign-conversion -Werror"

install_prefix()
{
	PREFIX=$T_TMP/prefix
	make -C "$FSP_SRC" --no-print-directory -s install PREFIX="$PREFIX" > "$T_TMP/install.log" 2>&1 ||
		t_fail "make install PREFIX=$PREFIX failed: $(tail -3 "$T_TMP/install.log")"
	export PKG_CONFIG_PATH=$PREFIX/share/pkgconfig
	CFLAGS_FSP=$(pkg-config --cflags fsp-bpf) || t_fail "pkg-config does not find fsp-bpf in $PKG_CONFIG_PATH"
}

# A program that uses every macro (C and C++), payloads of several types.
write_sources()
{
	cat > "$T_TMP/use.c" << 'SRC'
#include <fsp/fsp.h>
#include <fsp/fsp-plugin.h>
#include <stdio.h>

static const char *label = "label";

static int work(int n)
{
	int s = 0;
	FSP_SCOPED_MARK("work", FSP_HERE, n);
	for (int i = 0; i < n; i++) {
		FSP_SCOPED_ANTIMARK("work");
		s += i;
	}
	FSP_ANTIMARK_ENTER("work");
	FSP_ANTIMARK_LEAVE("work");
	return s;
}

int main(int argc, char **argv)
{
	uint64_t u = 7;
	unsigned char c = 3;
	long spins = argc > 1 ? atol(argv[1]) : 1;

	FSP_MARK_ENTER("outer", label, u);
	FSP_MARK_LEAVE("outer", label, c);
	FSP_MARK_ENTER("outer", 0, -1);
	FSP_MARK_LEAVE("outer", 0, argv);
	for (long i = 0; i < spins; i++)
		if (work(1000 + (int)(i & 1)) < 0)
			return 1;
	printf("abi %d enabled %d\n", FSP_ABI_VERSION, FSP_ENABLED() ? 1 : 0);
	return 0;
}
SRC
	sed -i 's|#include <stdio.h>|#include <stdio.h>\n#include <stdlib.h>|' "$T_TMP/use.c"
	sed -e 's|(int)(i \& 1)|static_cast<int>(i \& 1)|' "$T_TMP/use.c" > "$T_TMP/use.cc"
	cat >> "$T_TMP/use.cc" << 'SRC'
struct widget {
	int v;
};
int guarded(const widget *w);
int guarded(const widget *w)
{
	fsp::scoped_mark m("guard", FSP_HERE, reinterpret_cast<uintptr_t>(w));
	FSP_SCOPED_MARK("guard2", FSP_HERE, w);
	fsp::scoped_antimark a("guard");
	return w->v;
}
SRC
}

test_pkgconfig_cflags()
{
	install_prefix
	[ "$(echo $CFLAGS_FSP)" = "-I$PREFIX/include" ] || t_fail "pkg-config --cflags fsp-bpf is '$CFLAGS_FSP', want -I$PREFIX/include"
	for h in fsp.h fsp_abi_v1.h fsp_abi_v2.h fsp-plugin.h; do
		[ -f "$PREFIX/include/fsp/$h" ] || t_fail "$PREFIX/include/fsp/$h is not installed"
	done
	echo '#include <fsp/fsp.h>' | gcc $CFLAGS_FSP -fsyntax-only -x c - || t_fail "#include <fsp/fsp.h> fails"
	echo '#include <fsp/fsp-plugin.h>' | gcc $CFLAGS_FSP -fsyntax-only -x c - ||
		t_fail "#include <fsp/fsp-plugin.h> fails"
	# What names the prefix is made for this one, though the tree was built
	# (and the unit made) for another before: the agent's unit runs this
	# binary, which finds the maps installed here.
	grep -q "^ExecStart=$PREFIX/bin/fsp-bpf " "$PREFIX/lib/systemd/system/fsp-bpf.service" ||
		t_fail "the installed unit does not run $PREFIX/bin/fsp-bpf: $(grep ExecStart "$PREFIX/lib/systemd/system/fsp-bpf.service")"
	grep -q "$PREFIX/share/fsp-bpf/maps" "$PREFIX/bin/fsp-bpf" ||
		t_fail "the installed fsp-bpf does not look for its maps in $PREFIX/share/fsp-bpf/maps"
}

test_warnings_c()
{
	local cc std abi
	install_prefix
	write_sources
	for cc in gcc clang; do
		for std in c99 gnu11; do
			for abi in "" -DFSP_ABI_V1 -DFSP_DISABLE; do
				$cc -std=$std -O2 $CWARN $abi $CFLAGS_FSP -c "$T_TMP/use.c" -o "$T_TMP/use.o" \
					2> "$T_TMP/err" ||
					t_fail "$cc -std=$std $abi: $(grep -m3 -E 'error|warning' "$T_TMP/err")"
			done
		done
	done
}

test_warnings_cxx()
{
	local cxx abi extra
	install_prefix
	write_sources
	for cxx in g++ clang++; do
		extra=-Wold-style-cast
		[ $cxx = g++ ] && extra="$extra -Wuseless-cast"
		for abi in "" -DFSP_ABI_V1 -DFSP_DISABLE; do
			$cxx -std=c++11 -O2 $CWARN $extra $abi $CFLAGS_FSP -c "$T_TMP/use.cc" \
				-o "$T_TMP/use.o" 2> "$T_TMP/err" ||
				t_fail "$cxx $abi: $(grep -m3 -E 'error|warning' "$T_TMP/err")"
		done
	done
}

test_cmake()
{
	command -v cmake > /dev/null || t_fail "no cmake: apt-get install cmake (scripts/install-deps.sh test)"
	install_prefix
	write_sources
	mkdir -p "$T_TMP/cm"
	cp "$T_TMP/use.c" "$T_TMP/cm/app.c"
	# The example of docs/production.md, as it is there.
	sed -n '/^```cmake$/,/^```$/p' "$FSP_SRC/docs/production.md" | sed '1d;$d' > "$T_TMP/cm/CMakeLists.txt"
	grep -q pkg_check_modules "$T_TMP/cm/CMakeLists.txt" || t_fail "no CMake example in docs/production.md"
	cmake -S "$T_TMP/cm" -B "$T_TMP/cm/build" > "$T_TMP/cmake.log" 2>&1 ||
		t_fail "cmake: $(tail -5 "$T_TMP/cmake.log")"
	cmake --build "$T_TMP/cm/build" > "$T_TMP/cmake.log" 2>&1 ||
		t_fail "cmake --build: $(tail -5 "$T_TMP/cmake.log")"
	"$T_TMP/cm/build/app" | grep -q '^abi 2 enabled 0$' || t_fail "the CMake-built app does not run"
}

test_runs_without_fsp()
{
	local needed out
	install_prefix
	write_sources
	gcc -O2 $CFLAGS_FSP "$T_TMP/use.c" -o "$T_TMP/app" || t_fail "build failed"
	needed=$(readelf -d "$T_TMP/app" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p')
	[ "$needed" = libc.so.6 ] || t_fail "the program needs $(echo $needed), want libc.so.6 alone"
	rm -rf "$PREFIX"
	out=$(env -i "$T_TMP/app") || t_fail "the program does not run without the install"
	[ "$out" = "abi 2 enabled 0" ] || t_fail "the program printed '$out'"
	[ "$(id -u)" -eq 0 ] || t_skip "profiling the program needs root"
	"$FSP_BPF" -o "$T_TMP/p.json" -- "$T_TMP/app" 20000 > "$T_TMP/report" 2>&1 ||
		t_fail "fsp-bpf -- app failed: $(tail -3 "$T_TMP/report")"
	grep -q '^work accounts for' "$T_TMP/report" || t_fail "no feature 'work' in: $(head -5 "$T_TMP/report")"
}

t_run test_pkgconfig_cflags test_warnings_c test_warnings_cxx test_cmake test_runs_without_fsp
t_end
