#!/usr/bin/env bash
# Builds the DocC documentation of every library product (Package.swift's `.library(name:` lines) with the
# toolchain's `docc`, from the public symbol graphs of the existing debug build, into .build/docs/<M>.doccarchive.
# Every library product must have a catalog, Sources/<M>/<M>.docc; any docc warning (an unresolved ``link``,
# an undocumented parameter, a malformed topic group …) fails the run, naming the module and printing docc's output.
set -euo pipefail
cd "$(dirname "$0")/.."

# The toolchain's docc: on PATH, else beside the `swift` driver.
docc=$(command -v docc || true)
if [[ -z "$docc" ]]; then
    docc="$(dirname "$(readlink -f "$(command -v swift)")")/docc"
    [[ -x "$docc" ]] || { echo "docs.sh: no docc on PATH or beside swift" >&2; exit 1; }
fi

modules=($(sed -n 's/^[[:space:]]*\.library(name:[[:space:]]*"\([^"]*\)".*/\1/p' Package.swift))
((${#modules[@]})) || { echo "docs.sh: no .library products found in Package.swift" >&2; exit 1; }

missing=0
for m in "${modules[@]}"; do
    if [[ ! -d "Sources/$m/$m.docc" ]]; then
        echo "docs.sh: $m: no Sources/$m/$m.docc (every library product has a DocC catalog)" >&2
        missing=1
    fi
done
((missing == 0)) || exit 1

log=$(mktemp)
trap 'rm -f "$log"' EXIT

# Reuses the debug build; the last line of its output names the folder the graphs went to.
if ! swift package dump-symbol-graph --minimum-access-level public >"$log" 2>&1; then
    cat "$log" >&2
    echo "docs.sh: swift package dump-symbol-graph failed" >&2
    exit 1
fi
graphs=$(sed -n 's/^.*Files written to \(.*\)$/\1/p' "$log" | tail -n 1)
graphs=${graphs%% }
if [[ -z "$graphs" || ! -d "$graphs" ]]; then
    cat "$log" >&2
    echo "docs.sh: could not find the symbol graph folder in dump-symbol-graph's output" >&2
    exit 1
fi

mkdir -p .build/docs
failed=()
for m in "${modules[@]}"; do
    dir=.build/docs/symbolgraphs/$m
    rm -rf "$dir" ".build/docs/$m.doccarchive"
    mkdir -p "$dir"
    if [[ ! -f "$graphs/$m.symbols.json" ]]; then
        echo "docs.sh: $m: no symbol graph $graphs/$m.symbols.json" >&2
        failed+=("$m")
        continue
    fi
    cp "$graphs/$m.symbols.json" "$dir/"
    # Extensions the module makes to other modules' types (Foundation, the standard library) come as M@Other.
    for extension in "$graphs/$m"@*.symbols.json; do
        if [[ -e "$extension" ]]; then cp "$extension" "$dir/"; fi
    done
    if "$docc" convert "Sources/$m/$m.docc" \
            --additional-symbol-graph-dir "$dir" \
            --fallback-display-name "$m" \
            --fallback-bundle-identifier "dev.skylift.$m" \
            --output-path ".build/docs/$m.doccarchive" \
            --warnings-as-errors >"$log" 2>&1; then
        echo "docs: $m -> .build/docs/$m.doccarchive"
    else
        cat "$log" >&2
        echo "docs.sh: $m: docc convert failed (every warning counts as an error)" >&2
        failed+=("$m")
    fi
done
if ((${#failed[@]})); then
    echo "docs.sh: documentation failed for: ${failed[*]}" >&2
    exit 1
fi
