#!/usr/bin/env bash
# The GitHub Action (action.yml) run locally: its step scripts under scripts/action/ in the order and
# with the environment the runner gives them (GITHUB_OUTPUT, GITHUB_PATH, RUNNER_TEMP, INPUT_*):
# install from a release archive (a file:// URL), fall back to building when there is none or it is
# the wrong version, reuse a cached build, run with paths and format, write SARIF that validates,
# and the verdict per fail-on-findings. Plus action.yml's own consistency: every script a step runs
# exists, every input it reads is declared, every step output it reads is written by a script.
# usage: action_test.sh BUILD_DIR SOURCE_DIR FIXTURES_DIR VALIDATE_SARIF
set -uo pipefail
build=$(cd "$1" && pwd) src=$(cd "$2" && pwd) fixtures=$(cd "$3" && pwd) validate=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$(dirname "$0")/lib.sh"
python=/usr/bin/python3
[ -x "$python" ] || python=python3
version=$("$build/planlint" --version | awk '{ print $2 }')
scripts="$src/scripts/action"

# action.yml against its scripts.
cat >"$work/consistency.py" <<'PY'
import os, re, sys
import yaml
src = sys.argv[1]
action = yaml.safe_load(open(os.path.join(src, "action.yml")))
inputs = set(action["inputs"])
steps = action["runs"]["steps"]
problems = []
text = open(os.path.join(src, "action.yml")).read()
for name in re.findall(r"inputs\.([A-Za-z0-9_-]+)", text):
    if name not in inputs:
        problems.append(f"input {name} is used but not declared")
ids = {s.get("id") for s in steps if s.get("id")}
written = {}
for step in steps:
    run = step.get("run")
    if run:
        m = re.search(r"scripts/action/([a-z-]+\.sh)", run)
        if not m or not os.path.isfile(os.path.join(src, "scripts", "action", m.group(1))):
            problems.append(f"step {step['name']!r} runs no existing script: {run}")
        elif step.get("id"):
            body = open(os.path.join(src, "scripts", "action", m.group(1))).read()
            written[step["id"]] = set(re.findall(r'echo "([a-z-]+)=', body))
        if step.get("shell") != "bash":
            problems.append(f"step {step['name']!r} has no shell: bash")
for sid, out in re.findall(r"steps\.([a-z-]+)\.outputs\.([a-z-]+)", text):
    if sid not in ids:
        problems.append(f"steps.{sid} does not exist")
    elif sid in written and out not in written[sid]:
        problems.append(f"steps.{sid}.outputs.{out} is never written by its script")
for key in ("exit-code", "sarif-file"):
    if key not in action["outputs"]:
        problems.append(f"output {key} missing")
print("\n".join(problems) or "consistent")
sys.exit(1 if problems else 0)
PY
check "action.yml consistent with its scripts" 0 "$python" "$work/consistency.py" "$src"
contains "consistency report" out "consistent"

# A fresh runner environment for each scenario: step outputs, PATH additions, temp folder.
runner() {
  rm -rf "$work/runner" && mkdir -p "$work/runner/temp"
  : >"$work/runner/output"; : >"$work/runner/path"
  export GITHUB_ACTION_PATH=$src GITHUB_ACTION_REPOSITORY=planlint/planlint
  export GITHUB_OUTPUT=$work/runner/output GITHUB_PATH=$work/runner/path RUNNER_TEMP=$work/runner/temp
  unset INPUT_VERSION INPUT_RELEASE_URL INPUT_PATHS INPUT_FORMAT INPUT_ARGS INPUT_SARIF
}
output() { sed -n "s/^$1=//p" "$work/runner/output" | tail -n 1; }

# The release archive, as `cpack -G TGZ` makes it, served from a file:// URL.
check "release archive (cpack -G TGZ)" 0 cpack -G TGZ -B "$work/release" --config "$build/CPackConfig.cmake"
check "archive present" 0 test -s "$work/release/planlint-$version-linux-x86_64.tar.gz"

runner
export INPUT_RELEASE_URL="file://$work/release/planlint-{version}-linux-x86_64.tar.gz"
check "download: installs the release archive" 0 bash "$scripts/install.sh" download
check "download: installed=true" 0 test "$(output installed)" = true
check "download: version output" 0 test "$(output version)" = "$version"
bin_dir=$(head -n 1 "$work/runner/path")
check "download: its bin/ added to GITHUB_PATH" 0 test -x "$bin_dir/planlint"
check "download: under RUNNER_TEMP" 0 test "${bin_dir#"$RUNNER_TEMP"/}" != "$bin_dir"
check "download: the installed binary runs" 0 env -i "$bin_dir/planlint" --version

runner
export INPUT_RELEASE_URL="file://$work/release/none-{version}.tar.gz"
check "download: no archive is not a failure" 0 bash "$scripts/install.sh" download
contains "download: notice names the URL" out "::notice::no planlint $version release archive at file://$work/release/none-$version.tar.gz"
check "download: installed=false" 0 test "$(output installed)" = false
check "download: nothing on PATH" 0 test ! -s "$work/runner/path"

runner
export INPUT_VERSION=v9.9.9 INPUT_RELEASE_URL="file://$work/release/planlint-$version-linux-x86_64.tar.gz"
check "download: an archive of another version is refused" 0 bash "$scripts/install.sh" download
contains "download: warning names both versions" out "reports version '$version', not 9.9.9"
check "download: wrong version -> installed=false" 0 test "$(output installed)" = false

# The build path with the cache restored: bin/planlint of the right version in the cached prefix.
runner
check "cached prefix (cmake --install)" 0 cmake --install "$build" --prefix "$RUNNER_TEMP/planlint-prefix"
check "build: reuses the cached build" 0 bash "$scripts/install.sh" build
contains "build: says so" out "cached build reused"
check "build: cached bin/ on GITHUB_PATH" 0 test "$(head -n 1 "$work/runner/path")" = "$RUNNER_TEMP/planlint-prefix/bin"

# Run and verdict, with the installed binary on PATH as the runner would put it.
runner
export INPUT_RELEASE_URL="file://$work/release/planlint-{version}-linux-x86_64.tar.gz"
bash "$scripts/install.sh" download >/dev/null
export PATH="$(head -n 1 "$work/runner/path"):/usr/bin:/bin"
mkdir -p "$work/repo/jobs" "$work/repo/plans" && cd "$work/repo" || exit 1
cp "$fixtures/source/cartesian-join/bad_cross.py" jobs/bad.py
cp "$fixtures/source/cartesian-join/ok_keyed.py" jobs/good.py
cp "$fixtures/rules/cartesian-join/bad_cartesian_and_bnlj.plan" plans/q.plan
export INPUT_PATHS=$'jobs/\nplans/' INPUT_FORMAT=github INPUT_SARIF=planlint.sarif
check "run: findings do not fail the step" 0 bash "$scripts/run.sh"
contains "run: github annotations" out "::warning file=jobs/bad.py,line=4"
contains "run: both paths linted" out "file=plans/q.plan"
check "run: exit-code=1" 0 test "$(output exit-code)" = 1
check "run: sarif-file output" 0 test "$(output sarif-file)" = planlint.sarif
if [ -x "$validate" ]; then
  check "run: SARIF validates" 0 "$validate" planlint.sarif
else
  echo "skip SARIF validation: needs ../shared/tools/validate-sarif (not found: $validate)"
fi
contains "run: SARIF holds the findings" repo/planlint.sarif '"ruleId"'
check "finish: findings fail the job" 1 env INPUT_EXIT_CODE=1 bash "$scripts/finish.sh"
contains "finish: error annotation" out "::error::planlint reported findings"
check "finish: fail-on-findings false" 0 env INPUT_EXIT_CODE=1 INPUT_FAIL_ON_FINDINGS=false bash "$scripts/finish.sh"

: >"$GITHUB_OUTPUT"
export INPUT_PATHS=jobs/good.py INPUT_SARIF= INPUT_ARGS="--select cartesian-join"
check "run: clean file" 0 bash "$scripts/run.sh"
check "run: exit-code=0" 0 test "$(output exit-code)" = 0
check "run: no sarif-file without upload" 0 test -z "$(output sarif-file)"
check "finish: clean passes" 0 env INPUT_EXIT_CODE=0 bash "$scripts/finish.sh"

: >"$GITHUB_OUTPUT"
export INPUT_PATHS="jobs/missing.py jobs/bad.py" INPUT_FORMAT=text INPUT_ARGS=
check "run: unreadable input" 0 bash "$scripts/run.sh"
contains "run: the other file still linted" out "jobs/bad.py:4:14"
check "run: exit-code=2" 0 test "$(output exit-code)" = 2
check "finish: errors fail even with fail-on-findings false" 2 env INPUT_EXIT_CODE=2 INPUT_FAIL_ON_FINDINGS=false bash "$scripts/finish.sh"
check "finish: no exit code (run step skipped) fails" 2 env -u INPUT_EXIT_CODE bash "$scripts/finish.sh"

: >"$GITHUB_OUTPUT"
export INPUT_PATHS=jobs/ INPUT_SARIF=/nonexistent-dir/x.sarif
check "run: unwritable SARIF path" 0 bash "$scripts/run.sh"
contains "run: SARIF error annotation" out "::error::planlint could not write the SARIF report /nonexistent-dir/x.sarif"
check "run: unwritable SARIF -> exit-code=2" 0 test "$(output exit-code)" = 2
finish
