#!/usr/bin/env bash
# The index's batched probe (mih_probe_values) still asks the CPU for the cache lines of the values
# ahead: GCC once found the helper that does it free of effects and dropped every call, and nearest
# neighbours took 1.5x-2x the time with no test failing. Reads the installed library's machine code
# (objdump), its parts a compiler split off included; x86-64 only, where the prefetch is one
# instruction family. Needs no server.
# A packaged library is stripped of its local symbols: they are then read from its debug file
# (the -dbgsym package, found by the library's build id) and the code between their addresses
# disassembled in the library itself.
set -euo pipefail
[ "$(uname -m)" = x86_64 ] || { echo "skipped: not x86-64"; exit 77; }
command -v objdump >/dev/null || { echo "skipped: no objdump"; exit 77; }
lib="$(pg_config --pkglibdir)/simhash.so"
[ -f "$lib" ] || { echo "no $lib: install the extension first" >&2; exit 1; }

symbols=$lib
if ! nm "$lib" 2>/dev/null | grep ' mih_probe_values$' >/dev/null; then   # (-q: nm's SIGPIPE fails pipefail)
    id=$(readelf -n "$lib" | awk '/Build ID:/ { print $3 }')
    symbols=/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug
    [ -n "$id" ] && [ -f "$symbols" ] ||
        { echo "$lib is stripped and its debug file ($symbols) is not installed" >&2; exit 1; }
fi

# Each part of the function (mih_probe_values and what GCC split off it: .cold, .part.N ...):
# its start and size, then the prefetches between them.
count=0 parts=0
while read -r start size; do
    stop=$(printf '0x%x' $((0x$start + 0x$size)))
    n=$(objdump -d --no-show-raw-insn --start-address="0x$start" --stop-address="$stop" "$lib" | grep -c prefetch || true)
    count=$((count + n)) parts=$((parts + 1))
done < <(nm -S --defined-only "$symbols" | awk '$4 ~ /^mih_probe_values(\.[a-z0-9.]+)?$/ { print $1, $2 }')
[ "$parts" -gt 0 ] || { echo "no mih_probe_values in $symbols" >&2; exit 1; }
echo "mih_probe_values ($parts parts, symbols from $symbols): $count prefetch instructions"
[ "$count" -gt 0 ]
echo "1 passed, 0 failed"
