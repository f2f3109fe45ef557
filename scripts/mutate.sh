#!/usr/bin/env bash
# Mutation check: applies deliberate kernel mutations one at a time and shows that
# `cargo test --release` fails for each. Restores the sources afterwards (even on Ctrl-C).
#
#   scripts/mutate.sh            # all mutations (about 2 minutes each on 2 cores)
#   scripts/mutate.sh 3          # only mutation 3
#
# Prints a table: mutation, whether the suite caught it, and the first failing test.
set -uo pipefail
cd "$(dirname "$0")/.."

if [ -n "$(git status --porcelain src)" ]; then
    echo "scripts/mutate.sh: src/ has uncommitted changes; commit or stash them first" >&2
    exit 2
fi
trap 'git checkout -- src' EXIT INT TERM

# name | file | sed expression (applied once, must change the file)
MUTATIONS=(
  "drop e*e from the Halley step|src/arch/x86_64/avx2.rs|s/let e2 = _mm256_fmadd_ps(e, e, e);/let e2 = e;/"
  "single Newton step instead of Halley|src/arch/x86_64/avx2.rs|s/if Variant::of(V).halley {/if false {/"
  "widen the quotient range by one ulp (accept 2^-126)|src/bits.rs|s/QUOTIENT_MIN_BITS: u32 = 0x0080_0001/QUOTIENT_MIN_BITS: u32 = 0x0080_0000/"
  "skip the slow path for NaN and inf lanes|src/bits.rs|s/QUOTIENT_MAX_BITS: u32 = 0x7f7f_ffff/QUOTIENT_MAX_BITS: u32 = 0x7fff_ffff/"
  "drop the all-ones divisor fix|src/bits.rs|s/NEAR_ALL_ONES_DIVISORS: u32 = 1 << 15/NEAR_ALL_ONES_DIVISORS: u32 = 0/"
  "accept zero quotients of nonzero dividends (underflow)|src/arch/x86_64/avx2.rs|s/let zero_mark = _mm256_and_si256(a_is_zero,/let zero_mark = _mm256_and_si256(_mm256_set1_epi32(-1),/"
  "round the scale wrongly (stray fraction bit)|src/bits.rs|s/SIGN_EXPONENT_MASK: u32 = 0xff80_0000/SIGN_EXPONENT_MASK: u32 = 0xff80_0001/"
  "drop the residual correction|src/arch/x86_64/avx2.rs|s/let q1 = _mm256_fmadd_ps(y, res, q);/let q1 = _mm256_add_ps(q, _mm256_mul_ps(res, _mm256_setzero_ps()));/"
  "Divisor: two products without the candidate test|src/divisor.rs|s/if tail >= f32::MIN_POSITIVE \&\& two_products_exact(significand, unit) {/if tail >= f32::MIN_POSITIVE {/"
  "Divisor: trust infinite two-product quotients|src/bits.rs|s/QUOTIENT_MAX_BITS: u32 = 0x7f7f_ffff/QUOTIENT_MAX_BITS: u32 = 0x7f80_0000/"
)

only="${1:-}"
printf '%-4s %-55s %-8s %s\n' "#" "mutation" "caught" "first failing test"
caught_all=0
for i in "${!MUTATIONS[@]}"; do
    n=$((i + 1))
    [ -n "$only" ] && [ "$only" != "$n" ] && continue
    IFS='|' read -r name file expr <<<"${MUTATIONS[$i]}"
    before=$(md5sum "$file")
    sed -i "$expr" "$file"
    if [ "$before" = "$(md5sum "$file")" ]; then
        printf '%-4s %-55s %-8s %s\n' "$n" "$name" "ERROR" "the mutation did not apply"
        caught_all=1
        git checkout -- src
        continue
    fi
    log=$(mktemp)
    if cargo test --release --no-fail-fast >"$log" 2>&1; then
        verdict="NO"
        first="(suite passed)"
        caught_all=1
    else
        verdict="yes"
        first=$(grep -m1 -E '^test .* FAILED$|error(\[E[0-9]+\])?:' "$log" | sed 's/^test //; s/ \.\.\. FAILED$//')
    fi
    printf '%-4s %-55s %-8s %s\n' "$n" "$name" "$verdict" "$first"
    rm -f "$log"
    git checkout -- src
done
exit $caught_all
