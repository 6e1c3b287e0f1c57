#!/usr/bin/env bash
# Lays out the production evaluation corpus (manifest.tsv) from local mirrors of the repositories it
# names, without network: MIRRORS/owner+name/repo is a git directory of each one (what the `fetch`
# tool or `git clone --mirror` leaves; a clone with a work tree also works). Files land in OUT/SPLIT/owner/name/path, SPLIT from repos.tsv,
# with an empty .git folder at each repository's root (what a checkout has: planlint reads project facts up to it).
# usage: rebuild.sh MIRRORS OUT [MANIFEST SPLITS]
#   MANIFEST: repo, commit, path (further columns ignored), with a header line; default manifest.tsv.
#   SPLITS: repo and split, tab-separated, no header; default: the split column of repos.tsv.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
mirrors=${1:?usage: rebuild.sh MIRRORS OUT [MANIFEST SPLITS]}
out=${2:?usage: rebuild.sh MIRRORS OUT [MANIFEST SPLITS]}
manifest=${3:-$here/manifest.tsv}
declare -A split
if [ -n "${4:-}" ]; then
  while IFS=$'\t' read -r repo s; do split[$repo]=$s; done <"$4"
else
  while IFS=$'\t' read -r repo _ _ s _; do split[$repo]=$s; done < <(tail -n +2 "$here/repos.tsv")
fi
missing=0
while IFS=$'\t' read -r repo commit path _; do
  dest="$out/${split[$repo]}/$repo/$path"
  mkdir -p "$(dirname "$dest")" "$out/${split[$repo]}/$repo/.git"  # the repository's root, as a checkout marks it
  gitdir="$mirrors/${repo/\//+}/repo"
  [ -d "$gitdir/.git" ] && gitdir="$gitdir/.git"  # a clone with a work tree
  if ! git --git-dir="$gitdir" show "$commit:$path" >"$dest" 2>/dev/null; then
    echo "missing: $repo@$commit:$path" >&2
    rm -f "$dest"
    missing=$((missing + 1))
  fi
done < <(tail -n +2 "$manifest")
echo "corpus in $out ($missing missing)" >&2
