# Helpers the shell tests share. The sourcing script sets `work` (its temporary folder) first.
# check NAME EXPECTED_RC COMMAND...: runs COMMAND (output in $work/out and $work/err), checks its exit status
# (within CHECK_TIMEOUT seconds when the sourcing script sets it).
# contains NAME FILE TEXT / lacks NAME FILE TEXT: whether $work/FILE holds TEXT.
# finish: prints the tally and exits 1 if anything failed.
fails=0
check() {
  local name=$1 want=$2; shift 2
  if [ -n "${CHECK_TIMEOUT:-}" ]; then  # a hang is a failure, not a stuck suite
    timeout "$CHECK_TIMEOUT" "$@" >"$work/out" 2>"$work/err"
  else
    "$@" >"$work/out" 2>"$work/err"
  fi
  local rc=$?
  if [ "$rc" != "$want" ]; then
    echo "FAIL $name: exit $rc, want $want"; sed 's/^/  | /' "$work/out" "$work/err" | head -20; fails=$((fails+1))
  else
    echo "ok   $name"
  fi
}
contains() {
  if grep -qF -- "$3" "$work/$2"; then echo "ok   $1"; else echo "FAIL $1: '$3' not in $2"; sed 's/^/  | /' "$work/$2" | head -20; fails=$((fails+1)); fi
}
lacks() {
  if grep -qF -- "$3" "$work/$2"; then echo "FAIL $1: '$3' in $2"; sed 's/^/  | /' "$work/$2" | head -20; fails=$((fails+1)); else echo "ok   $1"; fi
}
finish() {
  [ "$fails" = 0 ] && echo "all passed" || { echo "$fails failed"; exit 1; }
}
