#!/usr/bin/env bash
# Installs the Debian packages Skylift builds against (run as root, or with sudo available).
# Idempotent: skips apt entirely when everything is already there.
set -euo pipefail
# libvips42 is not built against: thumbnails open it with dlopen at run time (Sources/CVips), and tests make them.
BUILD_PKGS=(pkg-config libmicrohttpd-dev libsqlite3-dev libssl-dev libcurl4-openssl-dev libvips42)
missing=()
for p in "${BUILD_PKGS[@]}" "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
    SUDO=""
    [ "$(id -u)" = 0 ] || SUDO="sudo"
    echo "installing: ${missing[*]}" >&2
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
