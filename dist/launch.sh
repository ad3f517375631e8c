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
# Both names end up in messages (workflow commands) and a file name: only
# letters, digits, '.', '_' and '-' pass, so a runner variable holding a
# line break cannot start a command of its own.
case "$os" in *[!a-z0-9._-]*) os=$(printf '%s' "$os" | tr -c 'a-z0-9._-' '?') ;; esac
case "$arch" in *[!a-z0-9._-]*) arch=$(printf '%s' "$arch" | tr -c 'a-z0-9._-' '?') ;; esac
name="baseline-resolver-$os-$arch"
bin="$here/$name"

# A message is the data of a workflow command, on stdout and stderr alike
# (the runner reads both): %, CR and LF escaped as @actions/core escapes
# them. Only the failure path pays for the awk.
escape() {
  printf '%s' "$1" | awk '{ gsub(/%/, "%25"); gsub(/\r/, "%0D"); if (NR > 1) printf "%%0A"; printf "%s", $0 }'
}

fail() {
  message=$(escape "$1")
  echo "::error title=baseline-resolver::$message"
  echo "baseline-resolver: error: $message" >&2
  exit 1
}

# Sets $actual to the SHA-256 of $1. openssl first: it uses the CPU's SHA
# instructions (about 12 ms for the binary here, against 50 ms for
# coreutils' sha256sum). A tool that is there but fails (a broken openssl,
# a FIPS policy refusing the digest) hands over to the next one.
sha256() {
  actual=
  for tool in openssl sha256sum shasum; do
    command -v "$tool" >/dev/null 2>&1 || continue
    case $tool in
      openssl) sum=$(openssl dgst -sha256 -r "$1" 2>/dev/null) || continue ;;
      sha256sum) sum=$(sha256sum "$1" 2>/dev/null) || continue ;;
      shasum) sum=$(shasum -a 256 "$1" 2>/dev/null) || continue ;;
    esac
    actual=${sum%% *}
    case $actual in
      *[!0-9a-f]* | '') actual= ;;
      *) [ ${#actual} -eq 64 ] && return 0 ;;
    esac
  done
  fail "none of openssl, sha256sum or shasum could compute a SHA-256, so $name cannot be verified"
}

if [ -f "$bin" ]; then
  [ -f "$here/SHA256SUMS" ] || fail "$here/SHA256SUMS is missing, so $name cannot be verified"
  expected=
  listed=0
  # `|| [ -n "$file" ]`: the last line counts even without a final newline.
  # A list saved with CRLF line ends (an editor on Windows) is read the
  # same: the CR is not part of the name. sha256sum's binary-mode `*` is
  # not either.
  cr=$(printf '\r')
  while read -r sum file || [ -n "$file" ]; do
    file=${file%"$cr"}
    if [ "${file#\*}" = "$name" ]; then
      listed=$((listed + 1))
      expected=$sum
    fi
  done <"$here/SHA256SUMS"
  [ "$listed" -gt 0 ] || fail "$name is not listed in $here/SHA256SUMS"
  [ "$listed" -eq 1 ] || fail "$name is listed $listed times in $here/SHA256SUMS; refusing to guess which checksum is meant"
  # Digests compare case-insensitively (some tools print upper case).
  case $expected in
    *[A-F]*) expected=$(printf '%s' "$expected" | tr 'A-F' 'a-f') ;;
  esac
  case $expected in
    *[!0-9a-f]* | '') fail "the checksum listed for $name in $here/SHA256SUMS is not a SHA-256 (64 hex digits)" ;;
  esac
  [ ${#expected} -eq 64 ] || fail "the checksum listed for $name in $here/SHA256SUMS is not a SHA-256 (64 hex digits)"
  sha256 "$bin"
  [ "$expected" = "$actual" ] || fail "checksum mismatch for $name: expected $expected, got $actual. Do not run it; re-pin the action to a release's full commit SHA"
  [ -x "$bin" ] || chmod +x "$bin" 2>/dev/null || fail "$bin is not executable"
  exec "$bin" "$@"
fi

# The platforms releases ship a binary for.
case "$os-$arch" in
  linux-x86_64 | linux-aarch64) shipped=yes ;;
  *) shipped=no ;;
esac

# On stderr (the runner reads commands there too): stdout may be the
# command's JSON or SARIF.
if command -v cargo >/dev/null 2>&1; then
  if [ "$shipped" = yes ]; then
    echo "::warning title=baseline-resolver::no prebuilt binary in this version of the action (it is pinned to a commit without release binaries, such as main); building from source with cargo, which takes minutes. Pin a release's full commit SHA instead" >&2
  else
    echo "::warning title=baseline-resolver::no prebuilt binary for $os-$arch in this version of the action; building from source with cargo (this takes minutes)" >&2
  fi
  # The build goes to a directory of the action's own, whatever
  # CARGO_TARGET_DIR says, so the binary run is the one just built.
  target="$here/../target"
  cargo build --release --locked --quiet --manifest-path "$here/../Cargo.toml" --target-dir "$target" >&2 ||
    fail "building from source failed (cargo build --release --locked)"
  exec "$target/release/baseline-resolver" "$@"
fi

if [ "$shipped" = yes ]; then
  fail "no prebuilt binary in this version of the action: it is pinned to a commit without release binaries (such as main). Pin a release's full commit SHA (see the README), or install Rust (rustup) on the runner to build from source"
fi
fail "no prebuilt binary for $os-$arch in this version of the action, and no cargo to build one. Use a Linux x86_64 or aarch64 runner with a release of the action, or install Rust (rustup) on the runner to build from source"
