#!/usr/bin/env bash
# Rebuilds the labelled development corpus (scripts/corpus/manifest.tsv) from local clones of the
# repositories it names, without network: MIRRORS/owner+name/repo is a git directory of each one
# (what the `fetch` tool or `git clone --mirror` leaves). Files land in OUT/owner/name/path.
# usage: rebuild.sh MIRRORS OUT [MANIFEST]   (default manifest.tsv; manifest-holdout.tsv is the held-out set)
set -euo pipefail
mirrors=${1:?usage: rebuild.sh MIRRORS OUT}
out=${2:?usage: rebuild.sh MIRRORS OUT}
manifest=${3:-"$(dirname "$0")/manifest.tsv"}
missing=0
while IFS=$'\t' read -r repo commit path; do
  [ "$repo" = repository ] && continue
  git_dir="$mirrors/${repo/\//+}/repo"
  dest="$out/$repo/$path"
  mkdir -p "$(dirname "$dest")"
  if ! git -C "$git_dir" show "$commit:$path" >"$dest" 2>/dev/null; then
    echo "missing: $repo@$commit:$path" >&2
    rm -f "$dest"
    missing=$((missing + 1))
  fi
done <"$manifest"
echo "corpus in $out ($missing missing)" >&2
