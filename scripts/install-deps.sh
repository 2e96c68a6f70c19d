#!/usr/bin/env bash
# Installs the Debian 12 packages one purpose of fsp-bpf needs, only those
# that are missing, without recommends. Quiet and fast when nothing is missing.
#
#   install-deps.sh [build]   build ./fsp-bpf, the examples and the man pages, and
#                             run the demo (make demo); without npm the build
#                             leaves the HTML report's page out and says so
#   install-deps.sh html      build, and Node.js and npm for that page
#   install-deps.sh test      html, and everything make test uses: the unit and
#                             integration tests' real consumers (PostgreSQL,
#                             CPython, a JVM, Ruby, go tool pprof, chromium),
#                             clang-format, make deb's tools, and the agent's
#                             (record --listen) scraper, client, certificates
#                             and unit checker: prometheus, curl, openssl,
#                             systemd (systemd-analyze)
#   install-deps.sh bench     html, and what make bench compares with (perf,
#                             bpftrace) and profiles (PostgreSQL, CPython,
#                             chromium for the page's timings), make fuzz's
#   install-deps.sh --list SET   print SET's packages, install nothing
#
# The sizes of each set on a fresh Debian 12 are in docs/install.md
# (scripts/measure-deps.sh measures them).
set -eu

build=(
	make gcc g++ clang pkg-config
	libbpf-dev bpftool libelf-dev libdw-dev zlib1g-dev libjson-c-dev
	systemtap-sdt-dev libprotobuf-c-dev protobuf-c-compiler
	python3-docutils
	libmicrohttpd-dev libgnutls28-dev
)
# Node.js and npm build the HTML report's page (npm ci of analysis/render/html):
# Debian's, unless the machine already has a node and an npm of its own.
html=(nodejs npm)
test=(
	libcmocka-dev clang-format git
	golang-go tmux graphviz procps python3 python3.11 python3.11-dbg libcap2-bin
	postgresql-15 openjdk-17-jdk-headless ruby chromium
	bash-completion man-db cmake debhelper lintian fakeroot
	prometheus curl openssl systemd
)
bench=(
	bpftrace linux-perf time procps python3 python3.11 postgresql-15 chromium
	libclang-rt-14-dev curl
)

list=0
if [ "${1:-}" = --list ]; then
	list=1
	shift
fi
set_name=${1:-build}
case $set_name in
build | demo) pkgs=("${build[@]}") ;;
html) pkgs=("${build[@]}") ;;
test) pkgs=("${build[@]}" "${test[@]}") ;;
bench) pkgs=("${build[@]}" "${bench[@]}") ;;
*)
	echo "install-deps.sh: unknown set '$set_name'; use build, html, test or bench" >&2
	exit 2
	;;
esac
if [ "$set_name" != build ] && [ "$set_name" != demo ]; then
	if [ $list -eq 1 ] || ! command -v node >/dev/null || ! command -v npm >/dev/null; then
		pkgs+=("${html[@]}")
	fi
fi
if [ $list -eq 1 ]; then
	printf '%s\n' "${pkgs[@]}" | awk '!seen[$0]++'
	exit 0
fi

missing=()
for p in $(printf '%s\n' "${pkgs[@]}" | awk '!seen[$0]++'); do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing+=("$p")
	fi
done
if [ ${#missing[@]} -eq 0 ]; then
	exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "fsp-bpf: missing Debian packages: ${missing[*]}" >&2
	echo "fsp-bpf: run as root (sudo make ...) or: sudo apt-get install --no-install-recommends ${missing[*]}" >&2
	exit 1
fi
echo "installing ($set_name): ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
