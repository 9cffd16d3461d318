#!/usr/bin/env bash
# bench/install: the installable binary (scripts/install.sh, Swift runtime linked in) against the dynamic
# release build (`swift build -c release`, runtime from the toolchain), in the same run:
#   file size (as built, and stripped), idle RSS of `skylift serve` 2 s after it printed its URL (best of ROUNDS),
#   and the wall time of `skylift --version` (best of ROUNDS; process start-up and dynamic linking).
# Usage: bench/install/run.sh            (ROUNDS=5 by default). Builds both (minutes the first time).
set -euo pipefail
. "$(dirname "$0")/../quiet.sh"
quiet_begin
cd "$(dirname "$0")/../.."
ROUNDS=${ROUNDS:-5}
scripts/deps.sh bc binutils >/dev/null
WORK=$(mktemp -d /tmp/skylift-bench-install.XXXXXX)
pid=""
trap 'quiet_end; [ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$WORK"' EXIT

swift build -c release --product skylift >&2
cp "$(swift build -c release --show-bin-path)/skylift" "$WORK/dynamic"
scripts/install.sh "$WORK/prefix" >&2
cp "$WORK/prefix/bin/skylift" "$WORK/static"

idle_rss_kib() {
    local best=""
    for _ in $(seq "$ROUNDS"); do
        rm -rf "$WORK/root" && mkdir -p "$WORK/root"
        "$1" serve --root "$WORK/root" --listen 127.0.0.1:0 --no-auth --quiet >"$WORK/out" 2>/dev/null &
        pid=$!
        for _ in $(seq 100); do grep -q "  url:" "$WORK/out" && break; sleep 0.1; done
        sleep 2
        local rss
        rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status")
        kill "$pid"; wait "$pid" || true; pid=""
        if [ -z "$best" ] || [ "$rss" -lt "$best" ]; then best=$rss; fi
    done
    echo "$best"
}

version_ms() {
    local best=""
    for _ in $(seq "$ROUNDS"); do
        local start end ms
        start=$(date +%s%N); "$1" --version >/dev/null; end=$(date +%s%N)
        ms=$(( (end - start) / 1000000 ))
        if [ -z "$best" ] || [ "$ms" -lt "$best" ]; then best=$ms; fi
    done
    echo "$best"
}

printf '%-8s %12s %14s %14s %12s %14s\n' build "size (MiB)" "stripped (MiB)" "Swift libs" "idle RSS" "--version"
for build in dynamic static; do
    bin="$WORK/$build"
    strip -o "$WORK/$build.stripped" "$bin"
    swift_libs=$(ldd "$bin" | grep -c "/swift/" || true)
    printf '%-8s %12.1f %14.1f %14s %9s MB %11s ms\n' "$build" \
        "$(echo "$(stat -c %s "$bin") / 1048576" | bc -l)" "$(echo "$(stat -c %s "$WORK/$build.stripped") / 1048576" | bc -l)" \
        "$swift_libs" "$(( $(idle_rss_kib "$bin") / 1024 ))" "$(version_ms "$bin")"
done
echo "dynamic: $(ldd "$WORK/dynamic" | grep -c "=>") shared libraries loaded; static: $(ldd "$WORK/static" | grep -c "=>")"
