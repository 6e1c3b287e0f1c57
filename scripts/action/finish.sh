#!/usr/bin/env bash
# Step 4 of the GitHub Action: the verdict, after the SARIF upload. INPUT_EXIT_CODE is planlint's
# exit status from run.sh: 2 (an input could not be read, a report not written) always fails the job;
# 1 (findings) fails it unless INPUT_FAIL_ON_FINDINGS is false.
set -euo pipefail
rc=${INPUT_EXIT_CODE:-2}
fail=${INPUT_FAIL_ON_FINDINGS:-true}
case "$rc" in
0) echo "planlint: no findings"; exit 0 ;;
1)
  if [ "$fail" = false ]; then
    echo "planlint: findings reported (fail-on-findings is false)"; exit 0
  fi
  echo "::error::planlint reported findings"; exit 1 ;;
*) echo "::error::planlint failed (exit $rc): see the log above"; exit 2 ;;
esac
