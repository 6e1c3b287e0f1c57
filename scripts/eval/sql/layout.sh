#!/usr/bin/env bash
# Lays out the SQL corpus (manifest.tsv) from local mirrors of its repositories, without network:
# MIRRORS/owner+name/repo is a git directory of each (what the `fetch` tool leaves, or a clone).
# Files land in OUT/SPLIT/owner/name/path, SPLIT from splits.tsv.
# usage: layout.sh MIRRORS OUT
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
mirrors=${1:?usage: layout.sh MIRRORS OUT}
out=${2:?usage: layout.sh MIRRORS OUT}
declare -A split
while IFS=$'\t' read -r repo s; do split[$repo]=$s; done <"$here/splits.tsv"
missing=0
while IFS=$'\t' read -r repo commit path _; do
  dest="$out/${split[$repo]}/$repo/$path"
  mkdir -p "$(dirname "$dest")"
  gitdir="$mirrors/${repo/\//+}/repo"
  [ -d "$gitdir/.git" ] && gitdir="$gitdir/.git"
  if ! git --git-dir="$gitdir" show "$commit:$path" >"$dest" 2>/dev/null; then
    echo "missing: $repo@$commit:$path" >&2
    rm -f "$dest"
    missing=$((missing + 1))
  fi
done < <(tail -n +2 "$here/manifest.tsv")
echo "corpus in $out ($missing missing)" >&2
