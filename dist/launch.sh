#!/bin/sh
# baseline-resolver launcher: runs the prebuilt binary for this runner's OS and
# architecture after checking it against dist/SHA256SUMS. Without a prebuilt
# binary for the platform it builds from source when cargo is there (minutes),
# and otherwise fails with a message that says what to do.
set -eu

# Shell builtins only on the hot path: every fork costs a millisecond.
case $0 in
  */*) here=${0%/*} ;;
  *) here=. ;;
esac

# The runner's names first (RUNNER_OS: Linux/macOS/Windows, RUNNER_ARCH:
# X64/ARM64/...), uname otherwise (a local run).
os=${RUNNER_OS:-$(uname -s)}
arch=${RUNNER_ARCH:-$(uname -m)}
case "$os" in
  Linux | linux) os=linux ;;
  macOS | Darwin | darwin) os=macos ;;
  *) os=$(printf '%s' "$os" | tr 'A-Z' 'a-z') ;;
esac
case "$arch" in
  X64 | x86_64 | amd64) arch=x86_64 ;;
  ARM64 | aarch64 | arm64) arch=aarch64 ;;
  *) arch=$(printf '%s' "$arch" | tr 'A-Z' 'a-z') ;;
esac
name="baseline-resolver-$os-$arch"
bin="$here/$name"

fail() {
  echo "::error title=baseline-resolver::$1"
  echo "baseline-resolver: error: $1" >&2
  exit 1
}

# Sets $actual to the SHA-256 of $1. openssl first: it uses the CPU's SHA
# instructions (about 12 ms for the binary here, against 50 ms for
# coreutils' sha256sum).
sha256() {
  if command -v openssl >/dev/null 2>&1; then
    sum=$(openssl dgst -sha256 -r "$1")
  elif command -v sha256sum >/dev/null 2>&1; then
    sum=$(sha256sum "$1")
  elif command -v shasum >/dev/null 2>&1; then
    sum=$(shasum -a 256 "$1")
  else
    fail "none of openssl, sha256sum or shasum is installed, so $name cannot be verified"
  fi
  actual=${sum%% *}
}

if [ -f "$bin" ]; then
  [ -f "$here/SHA256SUMS" ] || fail "$here/SHA256SUMS is missing, so $name cannot be verified"
  expected=
  while read -r sum file; do
    [ "${file#\*}" = "$name" ] && expected=$sum
  done <"$here/SHA256SUMS"
  [ -n "$expected" ] || fail "$name is not listed in $here/SHA256SUMS"
  sha256 "$bin"
  [ "$expected" = "$actual" ] || fail "checksum mismatch for $name: expected $expected, got $actual. Do not run it; re-pin the action to a release's full commit SHA"
  [ -x "$bin" ] || chmod +x "$bin" 2>/dev/null || fail "$bin is not executable"
  exec "$bin" "$@"
fi

if command -v cargo >/dev/null 2>&1; then
  echo "::warning title=baseline-resolver::no prebuilt binary for $os-$arch in this version of the action; building from source with cargo (this takes minutes)"
  cargo build --release --locked --quiet --manifest-path "$here/../Cargo.toml" >&2 ||
    fail "building from source failed (cargo build --release --locked)"
  exec "$here/../target/release/baseline-resolver" "$@"
fi

fail "no prebuilt binary for $os-$arch in this version of the action, and no cargo to build one. Use a Linux x86_64 runner, pin a release tag or full commit SHA that ships $name, or install Rust (rustup) on the runner to build from source"
