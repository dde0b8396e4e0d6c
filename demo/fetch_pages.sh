#!/usr/bin/env bash
# Fetches the HTML documentation of a few Debian packages (apt-get download: nothing is installed)
# and unpacks it into DIR. Prints one line per page: package<TAB>path inside the package<TAB>file.
#   demo/fetch_pages.sh DIR [PACKAGE ...]
set -euo pipefail
dir=${1:?usage: fetch_pages.sh DIR [PACKAGE ...]}
shift
packages=("$@")
[ ${#packages[@]} -gt 0 ] || packages=(postgresql-doc-15 python3.11-doc sqlite3-doc libstdc++-12-doc)

mkdir -p "$dir/debs" "$dir/unpacked"
chmod 755 "$dir" "$dir/unpacked"
cd "$dir/debs"
need=()
for p in "${packages[@]}"; do ls "${p}"_*.deb >/dev/null 2>&1 || need+=("$p"); done
if [ ${#need[@]} -gt 0 ]; then
    apt-get download -q "${need[@]}" >/dev/null 2>&1 || { apt-get update -qq && apt-get download -q "${need[@]}" >/dev/null; }
fi
for p in "${packages[@]}"; do
    deb=$(ls "${p}"_*.deb | head -n1)
    mkdir -p "$dir/unpacked/$p"
    [ -n "$(ls -A "$dir/unpacked/$p")" ] || dpkg-deb -x "$deb" "$dir/unpacked/$p"
    (cd "$dir/unpacked/$p" && find . -type f -name '*.html' | LC_ALL=C sort) | while read -r f; do
        printf '%s\t%s\t%s\n' "$p" "${f#.}" "$dir/unpacked/$p/${f#./}"
    done
done
chmod -R a+rX "$dir/unpacked"
