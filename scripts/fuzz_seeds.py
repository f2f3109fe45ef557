#!/usr/bin/env python3
"""Writes the fuzz seeds whose every vector lies inside the kernel's input window.

The kernel's fast path is block-granular: a block with one lane outside the window goes to
the divider. Arbitrary bytes almost never give a whole block inside it (each float is inside
with probability about 1/2, and a sixteen-lane block of four vectors checks 128 of them), so
without these seeds the fuzzer would fuzz the divider paths and the one-vector token only.
From them, mutations move single lanes in and out of the window and change significands.

    python3 scripts/fuzz_seeds.py           # (re)writes fuzz/seeds/divide/in_window*
    python3 scripts/fuzz_seeds.py --check   # only that the committed ones are these (CI)

Layout (fuzz/fuzz_targets/divide.rs): offsets of the dividends and divisors, the divisor
pick, the caller's MXCSR byte, then the dividends and the divisors as little-endian f32s.
"""

import random
import struct
import sys
from pathlib import Path

SEEDS = Path(__file__).resolve().parent.parent / "fuzz" / "seeds" / "divide"
# Pairs per seed: whole blocks at sixteen lanes with the widest mix (4 kernel vectors and 8
# divider vectors: 192 lanes), twice, and a tail.
PAIRS = 2 * 192 + 13
# Pairs of the long seeds: past 512, where `div_bounds` and the `Divisor`'s two products run
# their flag-checked chunks (and beyond the 4096 bytes libFuzzer writes without -max_len).
LONG_PAIRS = 2 * 512 + 77
# A divisor proven for two products (`Divisor::new(3.0).strategy()`), at the pick of the
# header: the `Divisor`'s flag-checked chunks run for it.
TWO_PRODUCTS_DIVISOR = 0x40400000
# A divisor proven for Markstein's sequence (1.5847477: `Divisor::new(..).strategy()`, the
# tests' `MARKSTEIN`), at the pick: its slices run the window-checked loop.
MARKSTEIN_DIVISOR = 0x3FCAD903
# Biased exponents of dividends just inside the window of Markstein's sequence by that
# divisor (src/divisor.rs, `markstein_window`): from 2^-78 (the residual normal) up to
# |a/b| = f32::MAX / 2, about 1.58 * 2^127; and the exponent just below it.
MARKSTEIN_LOW_EDGE = range(127 - 78, 127 - 78 + 4)
MARKSTEIN_HIGH_EDGE = range(251, 255)
MARKSTEIN_BELOW = 127 - 79
# Largest significand at the top exponent inside that window (1.5 < 1.5847477), and the
# smallest one outside it (1.625).
MARKSTEIN_TOP_INSIDE, MARKSTEIN_TOP_OUTSIDE = 0x400000, 0x500000
# Biased exponents of the kernel's input window (src/bits.rs: unbiased -63 ..= 62).
WINDOW = range(127 - 63, 127 - 63 + 126)
# Significands of the near-all-ones divisors the kernel sends to the divider (src/bits.rs).
NEAR_ALL_ONES_MIN = 0x7FFFFF + 1 - (1 << 15)
# MXCSR byte of the layout: rounding field in bits 0-1 (1 = down); bits 4-6 the caller holds
# the invalid, overflow and underflow flags (any one makes the `Divisor`'s two products and
# the directed step take their window-checked blocks below the plan's length instead of
# flag-checked chunks).
NEAREST, DOWN = 0, 1
HOLDS_INVALID, HOLDS_VOIDING_FLAGS = 0x10, 0x70
# A pair the shipped kernel gets right and a single Newton step does not (newton_pair).
NEWTON_PAIR = (0x3F80002F, 0x3FF32F2C)


def in_window(rng: random.Random, significand: int | None = None) -> int:
    """A random float inside the window, with a random sign (and the given significand)."""
    m = rng.getrandbits(23) if significand is None else significand
    return rng.getrandbits(1) << 31 | rng.choice(WINDOW) << 23 | m


def markstein_edge(rng: random.Random, i: int) -> int:
    """A dividend at an edge of the window of Markstein's sequence by MARKSTEIN_DIVISOR:
    inside it, but every 97th just outside (its block to the divider; sparse enough that
    some blocks of 64 lanes hold none) and every 23rd a signed zero (the window loop's
    sign OR)."""
    sign = rng.getrandbits(1) << 31
    if i % 23 == 0:
        return sign
    if i % 97 == 0:
        outside = (MARKSTEIN_BELOW << 23 | rng.getrandbits(23), 254 << 23 | MARKSTEIN_TOP_OUTSIDE)
        return sign | rng.choice(outside)
    e = rng.choice([*MARKSTEIN_LOW_EDGE, *MARKSTEIN_HIGH_EDGE])
    m = rng.randrange(MARKSTEIN_TOP_INSIDE) if e == 254 else rng.getrandbits(23)
    return sign | e << 23 | m


def seed(mode: int, dividends: list[int], divisors: list[int]) -> bytes:
    header = bytes([0, 0, 7, mode])
    return header + struct.pack(f"<{len(dividends)}I", *dividends) + struct.pack(
        f"<{len(divisors)}I", *divisors
    )


def main() -> None:
    rng = random.Random(0xF3AD1)
    a = [in_window(rng) for _ in range(PAIRS)]
    b = [in_window(rng) for _ in range(PAIRS)]
    near = [
        in_window(rng, NEAR_ALL_ONES_MIN + rng.getrandbits(15)) if i % 37 == 0 else b[i]
        for i in range(PAIRS)
    ]
    long_a = [in_window(rng) for _ in range(LONG_PAIRS)]
    long_b = [in_window(rng) for _ in range(LONG_PAIRS)]
    long_b[7] = TWO_PRODUCTS_DIVISOR
    # The short seed with the two-products divisor at the pick, for the window-checked path.
    b_two = b[:7] + [TWO_PRODUCTS_DIVISOR] + b[8:]
    # The same with Markstein's divisor at the pick, and dividends at its window's edges.
    b_markstein = b[:7] + [MARKSTEIN_DIVISOR] + b[8:]
    long_b_markstein = long_b[:7] + [MARKSTEIN_DIVISOR] + long_b[8:]
    edges = [markstein_edge(rng, i) for i in range(PAIRS)]
    seeds = {
        "in_window_long": seed(NEAREST, long_a, long_b),
        "in_window_long_down": seed(DOWN, long_a, long_b),
        "in_window": seed(NEAREST, a, b),
        "in_window_down": seed(DOWN, a, b),
        "in_window_near_all_ones": seed(NEAREST, a, near),
        "in_window_newton_pair": seed(
            NEAREST, [NEWTON_PAIR[0]] * PAIRS, [NEWTON_PAIR[1]] * PAIRS
        ),
        "in_window_held_invalid": seed(NEAREST | HOLDS_INVALID, a, b_two),
        "in_window_long_held_flags": seed(NEAREST | HOLDS_VOIDING_FLAGS, long_a, long_b),
        "in_window_markstein": seed(NEAREST, a, b_markstein),
        "in_window_long_markstein": seed(NEAREST, long_a, long_b_markstein),
        "markstein_window_edges": seed(NEAREST, edges, b_markstein),
    }
    if "--check" in sys.argv[1:]:
        stale = [
            n for n, d in seeds.items() if not (SEEDS / n).is_file() or (SEEDS / n).read_bytes() != d
        ]
        if stale:
            sys.exit(f"fuzz seeds not what scripts/fuzz_seeds.py writes: {', '.join(stale)}")
        print(f"{len(seeds)} in-window fuzz seeds as scripts/fuzz_seeds.py writes them")
        return
    for name, data in seeds.items():
        (SEEDS / name).write_bytes(data)
        print(f"{SEEDS / name}: {len(data)} bytes")


if __name__ == "__main__":
    main()
