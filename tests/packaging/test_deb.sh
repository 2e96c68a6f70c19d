#!/usr/bin/env bash
# The Debian package (make deb), installed on this machine and removed again
# (root). Holds /run/lock/fsp-packaging-deb.lock while it does.
#
#   package   make deb builds fsp-bpf_VERSION_amd64.deb with the binary, the
#             headers, the pkg-config file, the maps, the plug-in header, the
#             man pages, the completion and the agent's unit; Depends names the shared libraries
#             (libbpf, libelf, libdw, json-c, ...); lintian reports no error
#             (its warnings are printed)
#   install   installed with apt-get: fsp-bpf --version, man -w fsp-bpf (and
#             fsp.h(3), fsp-probe-map(5)), the completion, the shipped maps from
#             /usr/share/fsp-bpf/maps, the agent's unit not enabled; the demo built with pkg-config against
#             /usr/include and profiled by /usr/bin/fsp-bpf, saved and rendered
#             (HTML too); then removed (dpkg --purge), nothing left
. "$(dirname "$0")/lib.sh"

DEB_OUT=$FSP_SRC/.output/deb
VERSION=$(sed -n 's/^VERSION := //p' "$FSP_SRC/Makefile")
DEB=$DEB_OUT/fsp-bpf_${VERSION}_amd64.deb

need_root()
{
	[ "$(id -u)" -eq 0 ] || t_skip "installing a package needs root"
}

build_deb()
{
	make -C "$FSP_SRC" --no-print-directory deb > "$T_TMP/deb.log" 2>&1 ||
		t_fail "make deb failed: $(tail -5 "$T_TMP/deb.log")"
	[ -f "$DEB" ] || t_fail "make deb made no $DEB"
}

test_package()
{
	local files f deps out
	need_root
	build_deb
	files=$(dpkg-deb -c "$DEB" | awk '{print $6}')
	for f in ./usr/bin/fsp-bpf ./usr/include/fsp/fsp.h ./usr/include/fsp/fsp_abi_v1.h \
		./usr/include/fsp/fsp_abi_v2.h ./usr/include/fsp/fsp-plugin.h \
		./usr/share/pkgconfig/fsp-bpf.pc ./usr/share/fsp-bpf/maps/postgresql.map \
		./usr/share/man/man8/fsp-bpf.8.gz ./usr/share/man/man8/fsp-bpf-record.8.gz \
		./usr/share/man/man3/fsp.h.3.gz ./usr/share/man/man5/fsp-probe-map.5.gz \
		./usr/share/bash-completion/completions/fsp-bpf ./usr/share/doc/fsp-bpf/copyright \
		./lib/systemd/system/fsp-bpf.service; do
		grep -qxF "$f" <<< "$files" || t_fail "$f is not in the package"
	done
	deps=$(dpkg-deb -f "$DEB" Depends)
	for f in libbpf1 libelf1 libdw1 libjson-c5 libmicrohttpd12 libc6; do
		grep -q "$f" <<< "$deps" || t_fail "Depends ($deps) does not name $f"
	done
	command -v lintian > /dev/null || t_fail "no lintian: apt-get install lintian"
	out=$(lintian "$DEB" 2>&1 | grep -E '^[EW]: ')
	[ -z "$out" ] || echo "$out" | sed 's/^/    lintian: /'
	grep -q '^E: ' <<< "$out" && t_fail "lintian reports errors"
	true
}

test_install()
{
	local out prof
	need_root
	[ -f "$DEB" ] || build_deb
	exec 9> /run/lock/fsp-packaging-deb.lock
	flock 9
	if dpkg-query -W -f='${Status}' fsp-bpf 2> /dev/null | grep -q "ok installed"; then
		t_fail "an fsp-bpf package is installed already; this test installs and removes its own: dpkg --purge fsp-bpf first"
	fi
	trap 'dpkg --purge fsp-bpf > /dev/null 2>&1; rm -rf "$T_TMP"' EXIT
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$DEB" \
		> "$T_TMP/apt.log" 2>&1 || t_fail "apt-get install $DEB: $(tail -3 "$T_TMP/apt.log")"

	out=$(/usr/bin/fsp-bpf --version) || t_fail "fsp-bpf --version failed"
	[ "$out" = "fsp-bpf $VERSION" ] || t_fail "fsp-bpf --version: '$out'"
	[ "$(man -w fsp-bpf)" = /usr/share/man/man8/fsp-bpf.8.gz ] || t_fail "man -w fsp-bpf: $(man -w fsp-bpf 2>&1)"
	man -w 3 fsp.h > /dev/null || t_fail "man -w 3 fsp.h finds nothing"
	man -w 5 fsp-probe-map > /dev/null || t_fail "man -w 5 fsp-probe-map finds nothing"
	# The agent's unit: installed, pointing at /usr/bin/fsp-bpf, not enabled.
	grep -q '^ExecStart=/usr/bin/fsp-bpf ' /lib/systemd/system/fsp-bpf.service ||
		t_fail "the unit does not run /usr/bin/fsp-bpf: $(grep ExecStart /lib/systemd/system/fsp-bpf.service)"
	[ -e /etc/systemd/system/multi-user.target.wants/fsp-bpf.service ] &&
		t_fail "installing the package enabled the agent's unit"
	bash -c '. /usr/share/bash-completion/bash_completion && . /usr/share/bash-completion/completions/fsp-bpf &&
		complete -p fsp-bpf' | grep -q _fsp_bpf || t_fail "the completion does not load"
	(cd "$T_TMP" && /usr/bin/fsp-bpf list) | grep -qE ' /usr/(bin/\.\./)?share/fsp-bpf/maps/postgresql\.map\)' ||
		t_fail "fsp-bpf list does not find the shipped maps in /usr/share/fsp-bpf/maps"

	# The demo from the installed files only: the header through pkg-config.
	# (pkg-config leaves out -I/usr/include, a default directory, unless asked)
	[ "$(PKG_CONFIG_ALLOW_SYSTEM_CFLAGS=1 pkg-config --cflags fsp-bpf | xargs)" = "-I/usr/include" ] ||
		t_fail "pkg-config --cflags fsp-bpf: '$(PKG_CONFIG_ALLOW_SYSTEM_CFLAGS=1 pkg-config --cflags fsp-bpf)'"
	cp "$FSP_SRC/examples/demo.c" "$T_TMP/"
	cc -O2 -g $(pkg-config --cflags fsp-bpf) "$T_TMP/demo.c" -o "$T_TMP/demo" -lm 2> "$T_TMP/cc.log" ||
		t_fail "building the demo against the package: $(head -3 "$T_TMP/cc.log")"
	prof=$T_TMP/p.json
	(cd "$T_TMP" && /usr/bin/fsp-bpf -o "$prof" -- ./demo 1000) > "$T_TMP/report" 2>&1 ||
		t_fail "/usr/bin/fsp-bpf -- demo failed: $(tail -3 "$T_TMP/report")"
	for f in output parse contract; do
		grep -q "^$f accounts for" "$T_TMP/report" || t_fail "no feature $f in the report: $(head -5 "$T_TMP/report")"
	done
	(cd "$T_TMP" && /usr/bin/fsp-bpf report --format html -o p.html "$prof") ||
		t_fail "report --format html with the package failed"
	grep -q '<html' "$T_TMP/p.html" || t_fail "no HTML page"

	dpkg --purge fsp-bpf > "$T_TMP/purge.log" 2>&1 || t_fail "dpkg --purge: $(tail -3 "$T_TMP/purge.log")"
	[ ! -e /usr/bin/fsp-bpf ] && [ ! -e /usr/include/fsp ] && [ ! -e /usr/share/fsp-bpf ] ||
		t_fail "files left after dpkg --purge fsp-bpf"
}

t_run test_package test_install
t_end
