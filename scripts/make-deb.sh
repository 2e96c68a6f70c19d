#!/usr/bin/env bash
# make deb: builds the Debian package of fsp-bpf into OUT (.output/deb), from
# the source tree's tracked files (git ls-files: no build output, nothing
# untracked) and the packaging in scripts/debian/, in a build folder of its
# own (OUT/build): dpkg-buildpackage wants debian/ at the top of the source.
# The changelog's date is the last commit's, so a rebuild of the same commit
# makes the same package (SOURCE_DATE_EPOCH). The maintainer is the builder,
# DEBFULLNAME <DEBEMAIL> (as dch takes it); without them the package names
# fsp-bpf@fsp-bpf.invalid: the project has no public address (.invalid is the
# reserved top-level domain of addresses that are deliberately none).
#
#   make-deb.sh VERSION OUT
set -eu
version=$1 out=$2
cd "$(dirname "$0")/.."
for tool in dpkg-buildpackage dh fakeroot; do
	command -v $tool > /dev/null || {
		echo "make deb: $tool is missing: apt-get install --no-install-recommends dpkg-dev debhelper fakeroot" >&2
		exit 1
	}
done
src=$out/build/fsp-bpf-$version
rm -rf "$out/build"
mkdir -p "$src"
if git rev-parse --is-inside-work-tree > /dev/null 2>&1; then
	# Tracked files that exist (one deleted but not yet committed is left out).
	while IFS= read -r -d '' f; do
		[ -e "$f" ] && printf '%s\0' "$f"
	done < <(git ls-files -z) | tar --null -cf - -T - | tar -xf - -C "$src"
	date=$(git log -1 --format=%cD)
	commit=$(git rev-parse --short HEAD)
else
	tar --exclude=./.output --exclude=./fsp-bpf -cf - . | tar -xf - -C "$src"
	date=$(date -R -r Makefile)
	commit=unknown
fi
cp -r scripts/debian "$src/debian"
maintainer="${DEBFULLNAME:-fsp-bpf developers} <${DEBEMAIL:-fsp-bpf@fsp-bpf.invalid}>"
sed -i "s|@MAINTAINER@|$maintainer|" "$src/debian/control"
cat > "$src/debian/changelog" << CHANGELOG
fsp-bpf ($version) unstable; urgency=medium

  * Built from the fsp-bpf source tree, commit $commit.

 -- $maintainer  $date
CHANGELOG
(cd "$src" && dpkg-buildpackage -b -us -uc) > "$out/build.log" 2>&1 || {
	tail -30 "$out/build.log" >&2
	echo "make deb: dpkg-buildpackage failed; the whole log: $out/build.log" >&2
	exit 1
}
grep '^fsp-bpf: building without' "$out/build.log" >&2 || true
rm -f "$out"/*.deb "$out"/*.buildinfo "$out"/*.changes
mv "$out"/build/*.deb "$out"/build/*.buildinfo "$out"/build/*.changes "$out/"
ls "$out"/*.deb
