#!/usr/bin/env bash
# Builds every libFuzzer target in Fuzz/Targets and runs each for SECONDS (default 30).
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]      e.g. scripts/fuzz.sh 3, scripts/fuzz.sh 600 http-date
#   FUZZ_RUNS=10000000 scripts/fuzz.sh 0 range  run a number of inputs (with SECONDS > 0: whichever ends first)
#   FUZZ_SANITIZE=fuzzer scripts/fuzz.sh ...     libFuzzer without AddressSanitizer (default fuzzer,address):
#                                                Swift's own checks (overflow, bounds, force-unwrap) still trap,
#                                                and inputs run several times faster, for the long runs
#
# The project's modules are compiled here with swiftc (coverage + AddressSanitizer, testable so targets reach
# internal parsers) into .build/fuzz, apart from the SwiftPM build: `swift build`/`swift test` never see them.
# Prints one line per target, `fuzz NAME: N runs, C crashes`; a crashing input is kept in Fuzz/crashes/
# (gitignored) and the script exits non-zero. Replay one with `.build/fuzz/bin/NAME Fuzz/crashes/NAME-crash-…`.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${1:-30}"
shift || true
sanitize="${FUZZ_SANITIZE:-fuzzer,address}"
case "$sanitize" in
    fuzzer,address) out=.build/fuzz ;;
    fuzzer) out=.build/fuzz-noasan ;;
    *) echo "fuzz: FUZZ_SANITIZE must be fuzzer,address or fuzzer, not '$sanitize'" >&2; exit 2 ;;
esac
mkdir -p "$out/mods" "$out/obj" "$out/bin" "$out/logs" Fuzz/crashes

flags=(-parse-as-library -O -sanitize="$sanitize" -enable-testing -swift-version 6 -package-name skylift -I "$out/mods"
       -I Sources/CCrypto -I Sources/CMicroHTTPD -I Sources/CCurl -I Sources/CCRC32C/include -I Sources/CVips/include)
for f in $(pkg-config --cflags-only-I libmicrohttpd libcurl libcrypto 2>/dev/null); do flags+=(-Xcc "$f"); done
libs=(-lmicrohttpd -lcurl -lcrypto)

# Modules in dependency order; a module is rebuilt when one of its sources or an earlier object is newer.
modules=(SkyliftSystem SkyliftCore SkyliftHashing SkyliftHTTPServer SkyliftWebApp SkyliftThumbnails SkyliftHTTPClient SkyliftS3 SkyliftStorageServer SkyliftBlobStream SkyliftRemotes SkyliftRangeCache SkyliftFolderWatch)
built=()
# The project's own C targets (CRC-32C, the libvips loader), every file of them, compiled with the same sanitizers;
# SkyliftHashing's and SkyliftThumbnails' objects need them.
for target in CCRC32C CVips; do
    for c in Sources/$target/*.c; do
        name="$target-$(basename "$c" .c).o"
        if [[ ! -f "$out/obj/$name" || -n "$(find Sources/$target -newer "$out/obj/$name" -print -quit)" ]]; then
            echo "fuzz: compiling $c" >&2
            clang -O2 -fsanitize="$sanitize" -I Sources/$target/include -c "$c" -o "$out/obj/$name"
        fi
        built+=("$name")
    done
done
for m in "${modules[@]}"; do
    obj="$out/obj/$m.o"
    if [[ ! -f "$obj" || -n "$(find "Sources/$m" "${built[@]/#/$out/obj/}" -newer "$obj" -print -quit 2>/dev/null)" ]]; then
        echo "fuzz: compiling $m" >&2
        swiftc "${flags[@]}" -wmo -module-name "$m" -emit-module -emit-module-path "$out/mods/$m.swiftmodule" \
            -c $(find Sources/"$m" -name '*.swift' | sort) -o "$obj"
        touch "$obj" # swiftc keeps an unchanged object's old time, which would make it look stale forever
    fi
    built+=("$m.o")
done
objects=("${built[@]/#/$out/obj/}")

targets=("$@")
if [[ ${#targets[@]} -eq 0 ]]; then
    for f in Fuzz/Targets/*.swift; do targets+=("$(basename "$f" .swift)"); done
fi

failed=0
for t in "${targets[@]}"; do
    bin="$out/bin/$t"
    if [[ ! -f "$bin" || -n "$(find "Fuzz/Targets/$t.swift" Fuzz/Support "${objects[@]}" -newer "$bin" -print -quit)" ]]; then
        echo "fuzz: linking $t" >&2
        swiftc "${flags[@]}" -module-name "Fuzz_${t//-/_}" "Fuzz/Targets/$t.swift" Fuzz/Support/*.swift \
            "${objects[@]}" "${libs[@]}" -o "$bin" 2> "$out/logs/$t.link" || { cat "$out/logs/$t.link" >&2; exit 1; }
    fi
    corpus=.build/fuzz/corpus/$t # one working corpus, whichever sanitizers built the target
    mkdir -p "$corpus" "Fuzz/corpus/$t"
    limit=()
    [[ "$seconds" != 0 ]] && limit+=(-max_total_time="$seconds")
    [[ -n "${FUZZ_RUNS:-}" ]] && limit+=(-runs="$FUZZ_RUNS")
    log="$out/logs/$t.log"
    # New inputs go to the working corpus under .build; the committed seeds are only read.
    set +e
    # SWIFT_BACKTRACE off: Swift's own crash handler would take the signal first and libFuzzer would keep no reproducer.
    SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1 "$bin" "${limit[@]}" -timeout=10 -rss_limit_mb=2048 \
        -max_len=4096 -print_final_stats=1 -artifact_prefix="Fuzz/crashes/$t-" \
        "$corpus" "Fuzz/corpus/$t" > "$log" 2>&1
    status=$?
    set -e
    runs=$(grep -oE '^stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$' | tail -1)
    [[ -z "$runs" ]] && runs=$(grep -oE '^#[0-9]+' "$log" | tail -1 | tr -d '#')
    crashes=0
    if [[ $status -ne 0 ]]; then
        crashes=1
        failed=1
    fi
    echo "fuzz $t: ${runs:-0} runs, $crashes crashes"
    if [[ $crashes -ne 0 ]]; then
        grep -E 'Test unit written to|ERROR|Fatal error|SUMMARY' "$log" | head -5 >&2 || true
        echo "fuzz $t: full log in $log" >&2
    fi
done
exit $failed
