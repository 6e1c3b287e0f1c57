#!/usr/bin/env bash
# Step 1 of the GitHub Action (action.yml): puts planlint on PATH.
#   install.sh download   the release archive of the action's version (or INPUT_VERSION), when one
#                         exists: unpacked under $RUNNER_TEMP, checked with --version. Sets the step
#                         output installed=true|false; a missing archive is a notice, not a failure.
#   install.sh build      builds the action's own source (scripts/setup.sh) and installs it into
#                         $RUNNER_TEMP/planlint-prefix, the folder the action caches: a cache hit
#                         (bin/planlint of the right version already there) skips the build.
# Environment: GITHUB_ACTION_PATH (the action's checkout), GITHUB_ACTION_REPOSITORY, GITHUB_OUTPUT,
# GITHUB_PATH, RUNNER_TEMP; INPUT_VERSION, INPUT_RELEASE_URL (with {version}; file:// works).
set -euo pipefail
mode=${1:?usage: install.sh download|build}
src=${GITHUB_ACTION_PATH:?}
temp=${RUNNER_TEMP:?}
out=${GITHUB_OUTPUT:?}
path_file=${GITHUB_PATH:?}
own_version=$(sed -n 's/^project(planlint VERSION \([0-9][0-9.]*\).*/\1/p' "$src/CMakeLists.txt")
version=${INPUT_VERSION:-$own_version}
version=${version#v}
echo "version=$version" >>"$out"

use() {  # BIN_DIR: check the binary's version, then put it on PATH for the later steps
  local got
  got=$("$1/planlint" --version 2>/dev/null | awk '{ print $2 }') || got=
  if [ "$got" != "$version" ]; then
    echo "::warning::planlint in $1 reports version '${got:-none}', not $version"
    return 1
  fi
  echo "$1" >>"$path_file"
  echo "bin=$1/planlint" >>"$out"
  echo "planlint $version: $1/planlint"
}

case "$mode" in
download)
  repo=${GITHUB_ACTION_REPOSITORY:-planlint/planlint}
  case "$(uname -s)-$(uname -m)" in
    Linux-x86_64) arch=x86_64 ;;
    Linux-aarch64) arch=aarch64 ;;
    *)
      echo "::notice::no planlint release archive for $(uname -s) $(uname -m): building from source"
      echo "installed=false" >>"$out"; exit 0 ;;
  esac
  default_url="https://github.com/$repo/releases/download/v{version}/planlint-{version}-linux-{arch}.tar.gz"
  url=${INPUT_RELEASE_URL:-$default_url}
  url=${url//\{version\}/$version}
  url=${url//\{arch\}/$arch}
  dest=$temp/planlint-$version
  archive=$temp/planlint-$version.tar.gz
  rm -rf "$dest" "$archive" && mkdir -p "$dest"
  if curl -gfsSL --retry 3 -o "$archive" "$url" && tar xzf "$archive" -C "$dest" --strip-components 1 &&
      use "$dest/bin"; then
    echo "installed=true" >>"$out"
  else
    echo "::notice::no planlint $version release archive at $url: building from source"
    rm -rf "$dest"
    echo "installed=false" >>"$out"
  fi
  rm -f "$archive"
  ;;
build)
  prefix=${PLANLINT_ACTION_PREFIX:-$temp/planlint-prefix}
  if [ -x "$prefix/bin/planlint" ] && use "$prefix/bin"; then
    echo "cached build reused"; exit 0
  fi
  sudo=
  [ "$(id -u)" = 0 ] || ! command -v sudo >/dev/null || sudo=sudo
  (cd "$src" && $sudo bash scripts/setup.sh)
  rm -rf "$prefix"
  $sudo cmake --install "$src/build" --prefix "$prefix" --strip >/dev/null
  [ -z "$sudo" ] || $sudo chown -R "$(id -u):$(id -g)" "$prefix"
  use "$prefix/bin"
  ;;
*)
  echo "install.sh: unknown mode '$mode' (download or build)" >&2; exit 2 ;;
esac
