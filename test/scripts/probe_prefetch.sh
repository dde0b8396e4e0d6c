#!/usr/bin/env bash
# The index's batched probe (mih_probe_values) still asks the CPU for the cache lines of the values
# ahead: GCC once found the helper that does it free of effects and dropped every call, and nearest
# neighbours took 1.5x-2x the time with no test failing. Reads the installed library's machine code
# (objdump), its parts a compiler split off included; x86-64 only, where the prefetch is one
# instruction family. Needs no server.
set -euo pipefail
[ "$(uname -m)" = x86_64 ] || { echo "skipped: not x86-64"; exit 77; }
command -v objdump >/dev/null || { echo "skipped: no objdump"; exit 77; }
lib="$(pg_config --pkglibdir)/simhash.so"
[ -f "$lib" ] || { echo "no $lib: install the extension first" >&2; exit 1; }
count=$(objdump -d --no-show-raw-insn "$lib" |
    awk '/^[0-9a-f]+ <.*>:$/ { fn = $2 } fn ~ /^<mih_probe_values(\.[a-z0-9.]+)?>:$/ && /prefetch/ { n++ }
         END { print n + 0 }')
echo "mih_probe_values: $count prefetch instructions"
[ "$count" -gt 0 ]
echo "1 passed, 0 failed"
