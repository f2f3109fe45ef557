#!/usr/bin/env bash
# Checks that no SIMD intrinsic is left out of line in a user's binary: builds
# scripts/outlined/main.rs (which calls every slice function, the directed ones included,
# and the Divisor's) as a crate of its own against this tree, in release, and looks for
# out-of-line bodies of core::arch's AVX, AVX2, AVX-512 or FMA intrinsics in its disassembly. A
# generic loop run through a closure that the inliner leaves out of line is compiled without
# the backend's features and calls every intrinsic as a function (Divisor::divide_in_place
# measured 45 times slower so, and `div_bounds` on 64 elements 40 times, when a closure of
# its short loop grew a second arm); std's own feature detection (xgetbv) is the only
# allowed one.
#
# Binaries named after it are checked too: the inliner's choices differ from binary to
# binary (when the directed loops from the mixes were added, the `fmadiv` tool called every
# intrinsic of `div_bounds`' and `div_rounded`'s per-vector closures as a function, 13 to 28
# times slower than two divider passes at 8 and 16 elements, while this harness inlined
# them; the closures are `#[inline(always)]` since).
#
#   scripts/outlined.sh [binary...]   # exit 0: none; 1: the symbols found
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/harness.sh
bin=$(build_harness scripts/outlined/main.rs "$PWD" '[]' "${CARGO_TARGET_DIR:-target}/outlined")
status=0
for b in "$bin" "$@"; do
    found=$(objdump -d --no-show-raw-insn -C "$b" | grep -E '^[0-9a-f]+ <core::core_arch::x86::(avx|avx2|avx512[a-z]*|fma|sse[0-9.]*|ssse3)::' || true)
    if [ -n "$found" ]; then
        echo "intrinsics left out of line in $b:"
        echo "$found"
        status=1
    else
        echo "no SIMD intrinsic out of line in $(basename "$b")"
    fi
done
exit $status
