#!/usr/bin/env bash
# Installs the Debian 12 packages fsp-bpf needs to build, test and benchmark,
# only those that are missing. Quiet and fast when nothing is missing.
# chromium runs the HTML report's browser tests (tests/integration/test_html).
set -eu
pkgs=(
	make gcc g++ clang llvm pkg-config git
	libbpf-dev bpftool libelf-dev libdw-dev zlib1g-dev libjson-c-dev
	systemtap-sdt-dev libcmocka-dev libprotobuf-c-dev protobuf-c-compiler
	golang-go libclang-rt-14-dev
	bpftrace linux-perf procps util-linux tmux python3 time graphviz
	postgresql-15 python3.11 openjdk-17-jdk-headless ruby
	chromium
)
# Node.js and npm build the HTML report's page (npm ci of analysis/render/html):
# Debian's, unless the machine already has a node and an npm of its own.
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
	pkgs+=(nodejs npm)
fi
missing=()
for p in "${pkgs[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing+=("$p")
	fi
done
if [ ${#missing[@]} -eq 0 ]; then
	exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "fsp-bpf: missing Debian packages: ${missing[*]}" >&2
	echo "fsp-bpf: run as root (sudo make demo) or: sudo apt-get install ${missing[*]}" >&2
	exit 1
fi
echo "installing: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
