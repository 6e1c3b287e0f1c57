#!/usr/bin/env bash
# Writes a planlint(1) man page from `planlint --help`, so the page cannot drift from the binary.
set -euo pipefail
planlint=$1 out=$2
# PLANLINT_RUN: what runs a binary built for another machine (a cross build's qemu-aarch64).
run=(${PLANLINT_RUN:-})
version=$("${run[@]}" "$planlint" --version | awk '{print $2}')
{
  echo ".TH PLANLINT 1 \"\" \"planlint $version\" \"User Commands\""
  echo ".SH NAME"
  echo "planlint \\- find Spark performance problems in query plans and PySpark code"
  echo ".SH SYNOPSIS"
  echo ".B planlint"
  echo "[OPTIONS] [PATH...] | parse FILE | rules | rule NAME"
  echo ".SH DESCRIPTION"
  echo ".nf"
  "${run[@]}" "$planlint" --help | sed -e 's/\\/\\\\/g' -e 's/^\./\\\&./' -e "s/^'/\\\\\&'/"
  echo ".fi"
  echo ".SH SEE ALSO"
  echo "planlint rules; planlint rule NAME; docs/rules in the source tree."
} > "$out"
