#!/usr/bin/env bash
# Lays out the SQL corpus (manifest.tsv) from local mirrors of its repositories, without network:
# MIRRORS/owner+name/repo is a git directory of each (what the `fetch` tool leaves, or a clone).
# Files land in OUT/SPLIT/owner/name/path, SPLIT from splits.tsv (../rebuild.sh does the work).
# usage: layout.sh MIRRORS OUT
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
exec bash "$here/../rebuild.sh" "${1:?usage: layout.sh MIRRORS OUT}" "${2:?usage: layout.sh MIRRORS OUT}" \
  "$here/manifest.tsv" "$here/splits.tsv"
