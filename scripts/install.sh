#!/usr/bin/env bash
# Builds a release `skylift` with the Swift runtime (stdlib, Foundation, Dispatch) linked into the binary and
# installs it as PREFIX/bin/skylift (default PREFIX: ~/.local, so ~/.local/bin/skylift).
#
#   scripts/install.sh [--debug-symbols] [PREFIX]
#
# The installed binary is stripped (symbol tables and debug sections removed: about a quarter of its size);
# with --debug-symbols they are kept beside it as PREFIX/bin/skylift.debug, which gdb and lldb find through
# the binary's .gnu_debuglink.
#
# The installed binary needs no Swift toolchain: it loads only Debian 12 libraries, from the packages in
# RUNTIME_PKGS below (libmicrohttpd, SQLite, libcrypto and libcurl stay shared system libraries; libvips with GLib is opened on the first thumbnail). They
# are installed here with apt (as root, or through sudo), and the script refuses to finish if `ldd` shows
# any library that would come from the toolchain or from a package not in that list.
set -euo pipefail
cd "$(dirname "$0")/.."
DEBUG_SYMBOLS=no
if [ "${1:-}" = --debug-symbols ]; then DEBUG_SYMBOLS=yes; shift; fi
PREFIX=${1:-$HOME/.local}
case "$PREFIX" in /*) ;; *) PREFIX="$PWD/$PREFIX" ;; esac
RUNTIME_PKGS=(libc6 libgcc-s1 libstdc++6 libmicrohttpd12 libsqlite3-0 libssl3 libcurl4 libvips42 libglib2.0-0)

# binutils: readelf, to list the libraries the binary names; strip and objcopy.
scripts/deps.sh binutils "${RUNTIME_PKGS[@]}"
TOOLCHAIN=$(dirname "$(dirname "$(readlink -f "$(command -v swift)")")")
# Its own build folder (shared with scripts/run.sh, which builds the same binary): never mixed with a dynamic
# `swift build -c release`, and a second install only rebuilds what changed.
BUILD=(swift build -c release --static-swift-stdlib --scratch-path .build/static)
"${BUILD[@]}" --product skylift >&2
BUILT="$("${BUILD[@]}" --show-bin-path)/skylift"

# Every library the binary loads (ldd: the whole tree) must resolve outside the toolchain, and each one it
# names itself (NEEDED) must come from a package in RUNTIME_PKGS; apt brings those packages' own dependencies.
LDD=$(ldd "$BUILT")
if grep -q "not found" <<<"$LDD"; then
    echo "install.sh: $BUILT needs a library that is not installed:" >&2
    grep "not found" <<<"$LDD" >&2
    exit 1
fi
for lib in $(awk '$2 == "=>" { print $3 } $1 ~ /^\// { print $1 }' <<<"$LDD"); do
    case "$(readlink -f "$lib")" in "$TOOLCHAIN"/*)
        echo "install.sh: $BUILT loads $lib from the Swift toolchain ($TOOLCHAIN); it would not run without it" >&2
        exit 1 ;;
    esac
done
needed=()
for soname in $(readelf -d "$BUILT" | sed -nE 's/.*\(NEEDED\).*\[(.*)\]/\1/p'); do
    lib=$(awk -v s="$soname" '$1 == s && $2 == "=>" { print $3 } $1 ~ ("/" s "$") { print $1 }' <<<"$LDD" | head -n 1)
    owner=$(dpkg -S "$lib" 2>/dev/null || dpkg -S "$(readlink -f "$lib")" 2>/dev/null || dpkg -S "${lib#/usr}" 2>/dev/null || true)
    package=${owner%%:*}
    if [ -z "$package" ] || [[ " ${RUNTIME_PKGS[*]} " != *" $package "* ]]; then
        echo "install.sh: $BUILT needs $soname ($lib, package '${package:-none}'), which is not in RUNTIME_PKGS" >&2
        exit 1
    fi
    [[ " ${needed[*]} " == *" $package "* ]] || needed+=("$package")
done

# Replace atomically: a running `skylift` (a service) keeps its old file; the next start gets the new one.
install -d "$PREFIX/bin"
NEW="$PREFIX/bin/.skylift.new.$$"
install -m 0755 "$BUILT" "$NEW"
if [ "$DEBUG_SYMBOLS" = yes ]; then
    objcopy --only-keep-debug "$NEW" "$PREFIX/bin/.skylift.debug.new.$$"
    strip --strip-all "$NEW"
    # The link names the file as it will be called once in place.
    mv -f "$PREFIX/bin/.skylift.debug.new.$$" "$PREFIX/bin/skylift.debug"
    objcopy --add-gnu-debuglink="$PREFIX/bin/skylift.debug" "$NEW"
else
    strip --strip-all "$NEW"
fi
mv -f "$NEW" "$PREFIX/bin/skylift"

size=$(stat -c %s "$PREFIX/bin/skylift")
echo "installed $PREFIX/bin/skylift ($((size / 1048576)) MiB, $("$PREFIX/bin/skylift" --version))"
echo "it needs these Debian packages at run time (installed here): ${needed[*]}"
echo "on another Debian 12 machine: apt-get install ${needed[*]}"
case ":$PATH:" in *":$PREFIX/bin:"*) ;; *) echo "note: $PREFIX/bin is not on PATH; add it, e.g. export PATH=\"$PREFIX/bin:\$PATH\"" ;; esac
