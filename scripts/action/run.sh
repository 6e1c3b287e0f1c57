#!/usr/bin/env bash
# Step 2 of the GitHub Action: runs planlint over INPUT_PATHS (whitespace-separated) with
# INPUT_FORMAT (github annotations by default) and INPUT_ARGS (extra options, split on whitespace),
# and, when INPUT_SARIF names a file, a second pass writing SARIF there for code scanning. It never
# fails the job itself: the exit status goes to the step output exit-code, and finish.sh decides
# after the SARIF upload has run. Outputs: exit-code, sarif-file.
set -uo pipefail
out=${GITHUB_OUTPUT:?}
format=${INPUT_FORMAT:-github}
read -r -a paths <<<"$(echo "${INPUT_PATHS:-.}" | tr '\n' ' ')"
read -r -a extra <<<"$(echo "${INPUT_ARGS:-}" | tr '\n' ' ')"
[ "${#paths[@]}" -gt 0 ] || paths=(.)
planlint --format "$format" "${extra[@]}" -- "${paths[@]}"
rc=$?
sarif=${INPUT_SARIF:-}
if [ -n "$sarif" ]; then
  planlint --format sarif -o "$sarif" --exit-zero "${extra[@]}" -- "${paths[@]}" >/dev/null
  src=$?
  if [ "$src" = 0 ] && [ -s "$sarif" ]; then
    echo "sarif-file=$sarif" >>"$out"
  else
    echo "::error::planlint could not write the SARIF report $sarif (exit $src)"
    rc=2
  fi
fi
echo "exit-code=$rc" >>"$out"
exit 0
