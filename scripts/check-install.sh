#!/usr/bin/env bash
# Tests scripts/install.sh: installs into a fresh temporary PREFIX, then runs the installed binary with the Swift
# toolchain out of reach through --help, --version, `serve` and an upload into it, and checks the uploaded bytes.
#
#   scripts/check-install.sh
#
# Out of reach: as root, every check runs in a private mount namespace with an empty tmpfs over the toolchain
# (`unshare --mount`), so nothing can be loaded from it; otherwise (no root) with PATH, LD_LIBRARY_PATH and the
# rest of the environment scrubbed. Either way `ldd` must show no library under the toolchain and none missing.
# Run by scripts/test.sh after the test suite; the release build lives in .build/static (see install.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${1:-}" != --inside ]; then
    TOOLCHAIN=$(dirname "$(dirname "$(readlink -f "$(command -v swift)")")")
    WORK=$(mktemp -d /tmp/skylift-install-check.XXXXXX)
    trap 'rm -rf "$WORK"' EXIT
    scripts/install.sh "$WORK/prefix" >"$WORK/install.log" || { cat "$WORK/install.log" >&2; exit 1; }
    grep -q "^installed $WORK/prefix/bin/skylift " "$WORK/install.log" || { cat "$WORK/install.log" >&2; exit 1; }
    if [ "$(id -u)" = 0 ]; then
        unshare --mount --propagation private \
            sh -c 'mount -t tmpfs -o size=1m,ro skylift-hides-toolchain "$1" && shift && exec "$@"' \
            hide "$TOOLCHAIN" env -i HOME="$WORK/home" PATH=/usr/bin:/bin "$0" --inside "$WORK" "$TOOLCHAIN" yes
    else
        env -i HOME="$WORK/home" PATH=/usr/bin:/bin "$0" --inside "$WORK" "$TOOLCHAIN" no
    fi
    exit 0
fi

# --inside WORK TOOLCHAIN HIDDEN: the checks themselves, in the scrubbed environment.
WORK=$2 TOOLCHAIN=$3 HIDDEN=$4
BIN="$WORK/prefix/bin/skylift"
fail() { echo "check-install: $*" >&2; exit 1; }
mkdir -p "$HOME"
if [ "$HIDDEN" = yes ] && [ -n "$(ls -A "$TOOLCHAIN")" ]; then fail "the toolchain $TOOLCHAIN is still visible"; fi
[ -z "${LD_LIBRARY_PATH:-}" ] || fail "LD_LIBRARY_PATH is set"

libs=$(ldd "$BIN")
! grep -q "not found" <<<"$libs" || fail "unresolved libraries: $(grep "not found" <<<"$libs")"
! grep -qF "$TOOLCHAIN" <<<"$libs" || fail "libraries from the toolchain: $(grep -F "$TOOLCHAIN" <<<"$libs")"

! readelf -S "$BIN" | grep -q '\.symtab' || fail "the installed binary is not stripped"
"$BIN" --help | grep -q "^usage: skylift <command>" || fail "--help printed no usage"
"$BIN" --version | grep -qE '^skylift [0-9]+\.[0-9]+\.[0-9]+ \(([0-9a-f]{7,}|unknown)\)$' || fail "--version: $("$BIN" --version)"

# serve on a free port, token from a file; then upload a file into it and compare the bytes.
mkdir -p "$WORK/root" "$WORK/state"
printf 'check-install-%s\n' "$RANDOM$RANDOM" >"$WORK/token"
chmod 600 "$WORK/token"
head -c 3000000 /dev/urandom >"$WORK/clip.bin"
"$BIN" serve --root "$WORK/root" --listen 127.0.0.1:0 --token-file "$WORK/token" --quiet >"$WORK/serve.out" 2>"$WORK/serve.err" &
serve=$!
trap 'kill $serve 2>/dev/null || true' EXIT
for _ in $(seq 100); do grep -q "  url:" "$WORK/serve.out" && break; sleep 0.1; done
url=$(sed -n 's/^  url: *//p' "$WORK/serve.out")
[ -n "$url" ] || fail "serve printed no URL: $(cat "$WORK/serve.out" "$WORK/serve.err")"
SKYLIFT_TOKEN=$(cat "$WORK/token") "$BIN" upload "$WORK/clip.bin" --to "${url}in/" --state "$WORK/state" >"$WORK/upload.out" 2>&1 \
    || fail "upload failed: $(cat "$WORK/upload.out")"
cmp -s "$WORK/clip.bin" "$WORK/root/in/clip.bin" || fail "the uploaded file differs from the source"
kill -TERM $serve
wait $serve || fail "serve exited with status $? on SIGTERM"
trap - EXIT
echo "check-install: $BIN ($(stat -c %s "$BIN") bytes) ran --help, --version, serve and an upload with the toolchain $([ "$HIDDEN" = yes ] && echo hidden || echo off PATH)" >&2
