#!/usr/bin/env bash
# Prints the newest glibc symbol version that any of the ELF files given asks for ("2.31"), from
# their version needs (what the dynamic loader checks): the oldest C library they run with. Prints
# nothing when none asks for one; exits 2 when a file is not an ELF file.
# usage: scripts/glibc-needs.sh FILE...
set -euo pipefail
needs=""
for f in "$@"; do
  # readelf reads every architecture's ELF files (objdump only this machine's).
  info=$(readelf --version-info --wide "$f" 2>/dev/null) || { echo "glibc-needs.sh: cannot read $f" >&2; exit 2; }
  needs+=$(grep -o 'GLIBC_[0-9][0-9.]*' <<<"$info" || true)$'\n'
done
sed -n 's/^GLIBC_//p' <<<"$needs" | sort -t. -k1,1n -k2,2n -k3,3n | tail -n 1
