#!/usr/bin/env bash
# Downloads Debian packages for one architecture with apt, from the archive this machine already
# uses (its deb lines, in a private list directory; apt checks every file against the signed index),
# and unpacks them into DIR without installing anything: a sysroot or a folder of another
# architecture's build dependencies. SUITE "-" keeps the machine's own suites; another name (bullseye)
# reads Debian's main archive as that suite. Absolute symbolic links are made relative, so that they
# stay inside DIR; DIR is replaced in one step.
# usage: scripts/debian-unpack.sh SUITE ARCH DIR PACKAGE...
set -euo pipefail
suite=$1 arch=$2 dir=$3
shift 3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/parts" "$tmp/lists/partial" "$tmp/cache/archives/partial" "$tmp/debs" "$tmp/root"
if [ -f /etc/apt/sources.list ]; then
  if [ "$suite" = - ]; then
    grep '^deb ' /etc/apt/sources.list | sed "s/^deb \(\[[^]]*\] \)\?/deb [arch=$arch] /" >"$tmp/sources.list" || true
  else
    sed -n "s/^deb \(\[[^]]*\] \)\?\([^ ]*\) [a-z]* \(.*\)$/deb [arch=$arch] \2 $suite main/p" /etc/apt/sources.list |
      grep -v -- '-security' | sort -u >"$tmp/sources.list" || true
  fi
fi
touch "$tmp/sources.list"
for f in /etc/apt/sources.list.d/*.sources; do
  [ -f "$f" ] || continue
  # Debian's own stanzas (signed by its archive key); for another suite, not the security archive.
  awk -v suite="$suite" 'BEGIN { RS = ""; ORS = "\n\n" }
    /debian-archive-keyring/ && (suite == "-" || !/-security/) {
      if (suite != "-") { sub(/Suites: [^\n]*/, "Suites: " suite); sub(/Components: [^\n]*/, "Components: main") }
      print }' "$f" >"$tmp/parts/$(basename "$f")"
done
opts=(-o "Dir::Etc::SourceList=$tmp/sources.list" -o "Dir::Etc::SourceParts=$tmp/parts"
  -o "Dir::State::Lists=$tmp/lists" -o "Dir::Cache=$tmp/cache" -o "Dir::State::status=/dev/null"
  -o "Debug::NoLocking=1" -o "APT::Architecture=$arch" -o "APT::Architectures=$arch"
  -o "APT::Sandbox::User=root")
apt-get "${opts[@]}" update -qq >/dev/null 2>&1 ||
  { echo "debian-unpack.sh: could not read the package index ($suite, $arch) with apt" >&2; exit 1; }
(cd "$tmp/debs" && apt-get "${opts[@]}" download -qq "${@/%/:$arch}" >/dev/null 2>&1) ||
  { echo "debian-unpack.sh: could not download $* ($suite, $arch) with apt" >&2; exit 1; }
for deb in "$tmp"/debs/*.deb; do dpkg-deb -x "$deb" "$tmp/root"; done
find "$tmp/root" -type l -lname '/*' | while read -r link; do
  target=$(readlink "$link")
  ln -sfn "$(realpath -m --relative-to="$(dirname "$link")" "$tmp/root$target")" "$link"
done
mkdir -p "$(dirname "$dir")"
rm -rf "$dir.new"
mv "$tmp/root" "$dir.new"
rm -rf "$dir"
mv "$dir.new" "$dir"
