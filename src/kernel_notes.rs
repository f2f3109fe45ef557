//! Why the kernel is exact (documentation only).
//!
//! # The fast path
//!
//! For eight lanes at once, with `a` the dividend and `b` the divisor:
//!
//! 1. `r = rcp(b)`: `vrcpps`, about 12 bits.
//! 2. Halley's step: `e = 1 - b·r`, `e2 = e + e·e`, `y = r + r·e2` (three FMAs). The error
//!    of `y` before its last rounding is about `e³` plus the roundings of `e2`.
//! 3. `q = y·a`, `res = a - q·b` (one FMA, exact), `q' = q + y·res` (one FMA).
//! 4. The check, on the inputs only: a lane is accepted when both `|a|` and `|b|` lie in
//!    the window `[2^-63, 2^63)` (biased exponent fields 64 ..= 189) and `b`'s top eight
//!    fraction bits are not all ones. Everything else — zeros, subnormals, infinities,
//!    NaNs, inputs outside the window, the near-all-ones divisors — is recomputed by
//!    `vdivps`, whose bits we promise.
//!
//! Seven FP-pipe operations per vector (`vrcpps`, five FMAs, one multiply). The check is
//! eight integer operations (two shifts, two subtractions, three unsigned maxima, one
//! and), folded over a block of four vectors into two running maxima and tested once per
//! block (five more operations and one branch per 32 lanes). The kernel of crate 0.1
//! split the dividend into mantissa and power-of-two scale, multiplied the scale back and
//! checked the quotient's range after the arithmetic: about 23 vector operations per
//! vector, a longer dependency chain, and one branch per vector.
//!
//! # Why the window makes the mantissa sweep cover every accepted lane
//!
//! Write `a = ±ma·2^ea`, `b = ±mb·2^eb` with `ma, mb` in [1, 2) and `ea, eb` in
//! [-63, 62]. Then, step by step, each value is the mantissa pair's value times a power of
//! two, because every intermediate is a normal number (IEEE-754 rounding commutes with
//! scaling by powers of two while no result is subnormal or overflows) and the signs
//! follow the usual rules (round-to-nearest-even is symmetric):
//!
//! - `rcp(±mb·2^eb) = ±rcp(mb)·2^-eb`: a property of AMD's table, checked for every
//!   mantissa, every exponent of the window and both signs by
//!   `fmadiv_verify::sweep::check_rcp_scaling` (at the start of every own-table
//!   `fmadiv verify mantissa` run and in the test suite). The every-table proof below does
//!   not need it: there, whatever seed a table gives `±mb·2^eb`, that seed times `±2^eb`
//!   is itself a conforming seed of `mb`, and every seed of `mb` is swept;
//! - `e`, `e2` do not depend on the scale at all; `y = y(mb)·2^-eb`, in (2^-64, 2^64);
//! - `q = RN(y·a) = q(ma, mb)·2^(ea-eb)`, in [2^-126, 2^126]: `ea - eb` is in
//!   [-125, 125] and `q(ma, mb)` in [1/2, 2];
//! - `res = (ma - q0·mb)·2^ea`. The mantissa residual `r0` is an exact multiple of
//!   `2^-47` (a multiple of `ulp(q0)·ulp(mb)`) and below 2 in magnitude, so scaled by
//!   `2^ea >= 2^-63` it is either zero or at least `2^-110`: normal, hence exact
//!   (Boldo–Daumas: the residual is exact when `e_b + e_q >= e_min + p - 1`);
//! - `q' = RN(q + y·res) = q'(ma, mb)·2^(ea-eb)`: one rounding of an exact value that
//!   scales, and the result is normal.
//!
//! So an accepted lane returns exactly what the kernel returns for the mantissa pair
//! `(ma, mb)`, scaled by `±2^(ea-eb)`; and the correctly rounded quotient scales the same
//! way (the quotient is normal). `fmadiv verify mantissa` compares all 2^46 mantissa
//! pairs with the hardware; `fmadiv verify edges` and the tests cover the window's edges
//! and every exponent pair. A zero dividend is outside the window on purpose: without a
//! scale, `fma(y, res, q)` would turn `-0 / b` into `+0`.
//!
//! # Why the accepted mantissa pairs are correctly rounded
//!
//! **Markstein's theorem** (checked as `markstein-lemma` in the ACL2 RTL library,
//! `books/rtl/rel11/lib/div.lisp`): for p-bit `a, b` in [1, 2), a p-bit `y` with
//! `|1 - b·y| < 2^-p`, and a p-bit `q` within one ulp of `a/b`
//! (`|a/b - q| < 2^(1+e-p)`, `e = 0` if `a >= b`, else `-1`), the residual `a - b·q` is
//! exactly representable and `RN(q + y·(a - b·q)) = RN(a/b)`. Here p = 24.
//!
//! - **Rows proven whole.** If `|1 - b·y| < 2^-25` then `q = RN(y·a)` is within one ulp
//!   for *every* dividend: `|y·a - a/b| = (a/b)·|1 - b·y| < 2^-24` when `a/b < 2` (and
//!   `< 2^-25` when `a/b < 1`), and rounding adds at most half an ulp (`2^-24`, or
//!   `2^-25` below 1); at the ulp change at 1 the same sums stay below the bound. Both
//!   hypotheses then hold for the whole row of 2^23 dividends. `b·y` has at most 48
//!   significant bits and lies within a factor two of 1, so `1 - b·y` is exact in binary64:
//!   `fmadiv_verify::sweep::markstein_row_proven` decides the condition exactly. On AMD's table
//!   (fingerprint `877ee81e5312491d`) it holds for about 69% of the divisors;
//!   `fmadiv verify mantissa --prune` proves those rows and compares the rest pair by pair.
//! - **The other rows** have `2^-25 <= |1 - b·y| < 2^-24` (see below), where `q` may miss
//!   the one-ulp hypothesis for some dividends: the sweep compares every such pair.
//! - **The near-all-ones divisors.** Harrison's lemma (same library): if `y = RN(y_p)` and
//!   `|1 - b·y_p| <= ep < 2^-25`, then `|1 - b·y| < 2^-24` except possibly for divisors
//!   `b = 2 - k·2^-23`, `k = 1 ..= ceil(2^48·ep)`. For any `rcpps` within its specified
//!   `1.5·2^-12`, the Halley step gives `ep < 6.4·2^-36`, so `k <= 26 140`; measured on AMD
//!   EPYC (families 0x19 and 0x1a), `ep = 2^-33.96` and only `k = 1` really misses: there
//!   `rcp(0x1.fffffep+0)` is exactly 0.5, Halley's `y` lands on a tie and rounds back to
//!   0.5, `|1 - b·y| = 2^-24`, and the final correction of `1 / 0x1.fffffep+0` is an exact
//!   tie that rounds to even: `0x1p-1` instead of `0x1.000002p-1`. The kernel sends every
//!   divisor whose top eight fraction bits are ones (`k <= 2^15`, 0.4% of mantissas) to
//!   the slow path: a bound that holds for every table within the specification.
//! - **A single Newton step** (`y = r + r·e`) leaves `|1 - b·y|` up to about `2^-22`; the
//!   sweep finds wrong quotients (58 in dividend mantissas [0, 8192), the first
//!   0x1.00005ep+0 / 0x1.e65e58p+0), in both modes.
//!
//! # The block check
//!
//! Per lane, `w = max((|a| << 1) - LO, (|b| << 1) - LO)` (unsigned, wrapping) is at most
//! `SPAN - 1` exactly when both inputs are inside the window (shifting the sign out puts
//! the biased exponent on top; exponents below the window wrap to huge values, NaNs and
//! infinities are above it), and `b & 0x7f8000` equals `0x7f8000` exactly for the
//! near-all-ones divisors, the largest value that field can take. A lane-wise unsigned
//! maximum over the block keeps both properties: the block is accepted iff every lane of
//! the maximum passes. A failed block is recomputed by the divider (in `div`) or lane by
//! lane with the same per-lane check (in the verification entry point).
//!
//! # For every conforming `rcpps` table
//!
//! Intel's SDM and AMD's APM specify `rcpps` by one bound: `|1 - b·r| <= 1.5·2^-12` for
//! the seed `r` of `b`. Nothing else about the table is promised, and tables differ
//! (Intel's and AMD's do). Every operation after the seed is IEEE-754 and the same on
//! every CPU. So the sweeps of `crate::sweep::conforming` replace "this CPU's seed" by
//! "every seed the bound allows":
//!
//! **Theorem.** On any x86-64 CPU with AVX2 and FMA whose `vrcpps` returns, for every input
//! `x` with `|x|` in `[2^-63, 2^63)`, a float `r` with `|1 - x·r| <= 1.5·2^-12`, the
//! division kernel returns `RN(a/b)` for every lane it accepts, and the reciprocal kernel
//! returns `RN(1/b)`.
//!
//! *Proof, division.* By the window argument above (with "a conforming seed of `mb`" in
//! place of `rcp(mb)`), an accepted lane computes the mantissa pair's result with some
//! seed `r` of `mb` within the bound, scaled by `±2^(ea-eb)`. For each of the 2^23 divisor
//! mantissas, the seeds within the bound are one run of consecutive floats (decided exactly
//! in binary64); every one goes through the kernel's own refinement, giving the set
//! `Y(b)` of every `y` any conforming CPU can produce. Each row `(b, y)` of a divisor the
//! kernel keeps is either proven for all 2^23 dividends by the row lemma (`|1 - b·y| <
//! 2^-25`, decided exactly) or compared with `vdivps` pair by pair. A full run with no
//! mismatch (`fmadiv verify mantissa --rcp any --prune`, the report
//! `docs/verification/conforming-division.json`) completes the proof.
//!
//! What the run found on the way (all 2^23 divisors, 71 453 787 987 seeds, 6 146 to
//! 12 284 per divisor): `|Y(b)| = 1` for 8 374 273 divisors and 2 for 14 335, never 3;
//! of the 8 370 067 rows the kernel keeps, 5 796 397 (69.25%) are proven and 2 573 670
//! compared; the largest `|1 - b·y|` over them is 0.9991·2^-24, so Markstein's hypothesis
//! holds for every kept row under every conforming table; only rows of near-all-ones
//! divisors (the divider's) reach 2^-24 (83 rows, up to 1.0012·2^-24).
//!
//! *Proof, reciprocal.* The reciprocal kernel is the division kernel with `a = 1` (its
//! `q = y·1` is `y`), so the division proof covers it; by the numbers above every kept
//! divisor has `|1 - b·y| < 2^-24` for every `y`, hence `y` is within one ulp of `1/b` and
//! Markstein's lemma applies directly. `fmadiv verify reciprocals --rcp any` checks it by
//! exhaustion as well: every divisor mantissa with every allowed seed, 7.1·10^10 pairs in
//! about 11 s on two cores (`docs/verification/conforming-reciprocals.json`).
//!
//! *What is assumed*: the bound itself, inside the window (checked at run time on a sample
//! by `crate::seeds::this_cpu` before the plan lets a kernel run, and on every input of
//! the window by `fmadiv fingerprint`); IEEE-754 FMA and multiply in round-to-nearest-even;
//! `vdivps` as the reference. *What is not covered*: another bound looser than 1.5·2^-12
//! (2^-14 seeds are covered: see "Sixteen lanes with AVX-512F"), and other rounding modes.
//!
//! The digests: a report of this kind names the **arithmetic digest**
//! (`fmadiv_verify::digest::arithmetic_digest`), a hash of the kernel run from software-chosen
//! seeds (conforming ones, the extremes of the bound, and deliberately poor ones, which
//! tell apart sequences that agree wherever they are exact). No table enters it, so shards
//! run on different CPUs merge.
//!
//! # Sixteen lanes with AVX-512F
//!
//! The 512-bit backend (`arch::x86_64::avx512`) runs the same generic kernel
//! (`arch::simd::kernel`) with `vrcp14ps` as the seed. Its documented bound, relative error
//! below 2^-14, is inside the theorem's `|1 - x·r| <= 1.5·2^-12` (2^-14 < 1.5·2^-12 = 6·2^-14),
//! so every seed a conforming `vrcp14ps` may return is among the seeds the every-table sweep
//! already ran through the refinement: the set of `(b, y)` rows a 2^-14 seed produces is a
//! subset of `Y(b)` above, and `docs/verification/conforming-division.json` (arithmetic digest
//! d432cf61aa21a762) covers it with no new sweep. The same holds for the reciprocal kernel
//! (`conforming-reciprocals.json`). Nor does the closer seed let one Newton step replace
//! Halley's: the any-table sweep under the 2^-14 bound (`fmadiv verify mantissa --rcp any
//! --rcp-bound 2^-14 --kernel newton`) finds `0x3f8000de / 0x3ffee17f` with the conforming
//! seed `0x3f008de0` rounded to `0x3f0090c0` instead of `0x3f0090c1` (`cli/tests/cli.rs`).
//! So the sixteen-lane kernel runs the shipped arithmetic.
//!
//! **Its near-all-ones rule is narrower.** The closer seed does shrink the set Harrison's
//! lemma leaves open, and the sweep under 2^-14 measures it exactly: over the 2^15
//! divisors the eight-lane rule sends to the divider, Markstein's hypothesis fails only for
//! `b = 2 - k·2^-23` with odd `k <= 31` (16 rows, up to 1.0000554·2^-24), and the kernel
//! rounds wrongly only for odd `k <= 27` other than 23 (each with a seed at the low edge,
//! one dividend each; `k = 1` is Intel's reference table's `0.5` too). So the sixteen-lane
//! backends (`Vector::NEAR_ALL_ONES_DIVISORS`) send `k <= 2^5` to the divider, the divisors
//! whose top eighteen fraction bits are ones: one random divisor in 2^18 instead of one in
//! 256, which at sixteen lanes had sent a block of four vectors in 4.5 to the divider on
//! normal data. The check is the same integer operations with another constant. Its proof is
//! a sweep of its own, the shipped arithmetic with this rule (`--kernel vrcp14`, the same
//! code run on eight lanes) over all 2^46 pairs and every seed within 2^-14:
//! `docs/verification/conforming-division-vrcp14.json` (`fmadiv verify mantissa --rcp any
//! --rcp-bound 2^-14 --prune --kernel vrcp14`, arithmetic digest 6c01c3d146e0456a: no
//! mismatch, 2 576 532 rows compared pair by pair and 5 812 783 proven, the largest kept
//! `|1 - b·y|` 0.99993·2^-24; 48 min on two cores) and `conforming-reciprocals-vrcp14.json`
//! (`fmadiv verify reciprocals --rcp any --rcp-bound 2^-14 --kernel vrcp14`, digest
//! abc357482b22db10: 1.2·10^10 seeds, none wrong; the reciprocal alone would need only
//! `k = 1`). Half the rule, `k <= 16`
//! (`--kernel vrcp14-narrowed`), is caught: `k = 17, 19, 21, 25, 27` come out one ulp low
//! (`verify/tests/sweep.rs`; on the model with the low-edge table, `tests/backends.rs`).
//! And the rule is no good for `rcpps`' looser bound, which is why eight lanes keep 2^15:
//! the same sweep under 1.5·2^-12 finds wrong rows among `k = 33 ..= 64`.
//!
//! What the proof needs of the sixteen-lane code, beyond the arithmetic: that each lane
//! computes exactly what one lane of the eight-lane code computes (the same IEEE operations
//! in the same order, an FMA where the eight-lane code has one), and that the lanes the
//! check accepts are the same but for the rule's constant: the window and the near-all-ones
//! rule are the same integer operations on each lane, only the mask is a `k` register
//! (`Vector::M`), combined by `kandn`-like operations instead of vector ands; the blend
//! takes the divider's quotient in the flagged lanes; masked loads pad a tail's absent
//! lanes with 1.0 (inside the window) and masked stores write only the present ones. Those
//! are properties of the code, not of the data, and the software model of the instructions
//! (`arch::x86_64::avx512_model`, which implements the same `Vector` trait with one scalar
//! IEEE operation per lane) runs the same generic code on every machine: TestFloat,
//! in-window pairs, random bits, every tail, FTZ/DAZ and the four rounding modes on the
//! model with Intel's reference table and with the two worst tables of the 2^-14 bound. The
//! masks, blends, partial loads and stores and every other operation are held, lane by lane
//! and with their flags, to the trait's contract on each backend
//! (`every_backend_keeps_the_vector_contract`), so a native run checks the real
//! instructions against the statements the model was written from, and compares the two
//! (`the_native_16_lane_backend_and_the_model_agree`).
//!
//! # The reciprocal kernel
//!
//! `recip` runs `r = rcp(b)`, Halley's `y` (as in division), then `y + y·(1 - b·y)`
//! (Markstein's correction with the dividend 1): the division kernel with `a = 1` minus its
//! multiply by one. Proven above for every conforming table. Crate 0.2.0 used one Newton
//! step for `y` instead (one FMA less): exact on AMD's table (all 2^32 inputs compared),
//! but the every-table sweep found 48 037 conforming `(b, r)` pairs where it is wrong, over
//! 30 divisors, the first `1 / 0x1.0d3226p+0` with the seed `0x3f735ca0` (it gives
//! `0x3f737372`, not `0x3f737373`); that sequence survives as the Newton variant, which
//! the sweep catches. Inside the input window the reciprocal kernel scales exactly like
//! the division kernel, and `fmadiv verify reciprocals` still compares it on every lane with
//! `1 / b` for all 2^32 inputs on this CPU's table (also `recip_of_every_float` in the
//! tests); without the near-all-ones fix `±0x1.fffffep+e` is wrong there (the tie above).
//!
//! # Rounding modes and MXCSR
//!
//! The FMA sequences (the kernel, the `Divisor`'s two products and Markstein's correction)
//! give `vdivps`'s bits under round-to-nearest-even only: under round-toward-zero, for
//! instance, Halley's `y` for `b = 4` rounds to just below 1/4 and `recip(4.0)` would return
//! `0x3e7fffff`. So every entry point that can run one of them first asks whether MXCSR
//! rounds to nearest — one SSE addition of constants hidden from the optimiser, `1 + 0.75
//! ulp` and `-(1 + 0.75 ulp)`, which round to `(1 + ulp, -(1 + ulp))` under that mode only
//! (no `stmxcsr`, which waits for every operation in flight) — and divides with `vdivps`,
//! which obeys the mode, where it does not: the kernel's schedules (slices longer than one
//! step of the loop), the `Divisor`'s sequences (whose proof is made only under
//! round-to-nearest: its constants are rounded in the mode in force), the in-register
//! token (once per `vectorize`). One multiplication by an exact reciprocal rounds once,
//! as the divider does, in every mode. `par_div` divides on the calling thread where its
//! MXCSR is not the default (rayon's threads hold the default one). Flush-to-zero and
//! denormals-are-zero cannot change an accepted lane: its inputs, intermediates and result
//! are all normal. `tests/mxcsr.rs` checks every entry point and every schedule under all
//! sixteen combinations of the four rounding modes with FTZ and DAZ.
//!
//! # Directed rounding without MXCSR
//!
//! `div_rounded` and `div_bounds` return `RD(a/b)`, `RU(a/b)` or `RZ(a/b)` — the bits of
//! `vdivps` with MXCSR's rounding field set to that mode — without writing MXCSR where the
//! inputs lie inside the window:
//!
//! 1. `q = vdivps(a, b)`: a *faithful* rounding of `a/b` (the nearest or the next one over)
//!    under any rounding mode in force;
//! 2. `r = a - q·b`, one FMA: exact, by the residual lemma above (Boldo–Daumas: `q` faithful
//!    and, inside the window, `r` either zero or at least `2^-110`, normal), so also exact
//!    under any rounding mode and under flush-to-zero;
//! 3. the exact quotient lies on the side of `q` given by the residual: `a/b - q = r/b`, so
//!    `sign(a/b - q) = sign(r)·sign(b)`, and as `q` has the sign of `a/b`, which is
//!    `sign(a)·sign(b)` (q is not a zero inside the window), `|a/b|` exceeds `|q|` exactly
//!    where `sign(r)·sign(a) > 0`; `r` is a zero exactly where `q` is exact (`+0`, or `-0`
//!    under round-down: an ordered compare with zero finds both);
//! 4. `n`, `q`'s neighbour on that side, is `q`'s bit pattern plus `sign(r)·sign(a)` (`q`
//!    itself where `r` is a zero): inside the window `q` lies in `(2^-126, 2^126)` and so do
//!    its neighbours, so one ulp is one step of the pattern, whatever `q`'s sign. Computed
//!    (`Vector::step_by_signs`) on AVX2 as two `psignd` (`-1` where `r` is not a zero, its
//!    sign flipped by `r`'s and by `a`'s) and one subtraction; on AVX-512, which has no
//!    `psignd`, as `(bits(r) ^ bits(a)) >> 31 | 1` (an arithmetic shift: `-1` where the sign
//!    bits differ, `+1` where they agree) added under the mask of the lanes where `r` is not
//!    a zero — the same integer wherever `a` is not a zero, as inside the window;
//! 5. the exact quotient lies between `q` and `n` (`q` is faithful: one of the two floats
//!    around `a/b`, the other being its neighbour on `a/b`'s side),
//!    so `RD(a/b) = min(q, n)`, `RU(a/b) = max(q, n)`, and `RZ(a/b)` is the one of smaller
//!    magnitude — the signed-integer minimum of the two patterns, which share a sign.
//!    `div_bounds` takes both of the same `n`.
//!
//! Every lane is the mantissa pair's computation scaled by a power of two (as for the
//! kernel: `q` normal, `r` exact, the step on the bit pattern unchanged by the exponent),
//! so the mantissa pairs cover the window. `fmadiv verify mantissa --rounding down|up|
//! toward-zero` compares the step from the kernel's round-to-nearest quotient (the divider's
//! for the near-all-ones divisors, as in `div`; the two are the same bits inside the window,
//! by the sweeps above) with `vdivps` under that mode, set and restored inside one `asm!`
//! block, pair by pair, each pair with one of the four sign combinations (by the parity of
//! the mantissas). Lanes outside the window — zeros, infinities, NaNs, subnormals,
//! quotients that may under- or overflow — take `vdivps` under the mode, MXCSR set and
//! restored inside one `asm!` block (as `core::arch`'s `_mm_setcsr` documentation asks of
//! code that runs under another mode): sound, and the hardware's bits by construction. The
//! portable path computes the same in software (`arch::portable::div_rounded_one`: binary64
//! quotient, then the binary32 neighbour on its side), checked against TestFloat's vectors
//! of all four modes and against the hardware.
//!
//! ## Flag-checked chunks
//!
//! Slices of 32 vectors and more (256 elements at eight lanes, 512 at sixteen; the proof
//! below holds at any length) skip the window check (six operations a vector, as many as
//! the step): chunks of 4096 run steps 1–5 on every lane, and MXCSR's sticky flags,
//! clear before a chunk, judge it after; a chunk that raised underflow (UE), overflow (OE)
//! or invalid (IE) is redone by `vdivps` under the mode, as the lanes outside the window
//! are. Only where MXCSR neither flushes to zero nor reads denormals as zero (else the
//! window check runs: a sufficient condition, not a known necessary one — with it removed
//! the tests still pass). Why no flag means every lane is right, lane by lane, with `q`
//! the divider's quotient under the mode in force and `r = RN(a - q·b)` (or its rounding
//! under that mode):
//!
//! - `a`, `b` finite, `b` not a zero, `q` finite and not from an inexact underflow (no OE,
//!   no UE from the division): `q` is a faithful rounding of `a/b`, normal, or subnormal
//!   and then exact. The step needs of `r` only its sign and whether it is a zero. If
//!   `a - q·b` is a zero, `r` is a zero. Otherwise `r` has its sign unless it rounded to a
//!   zero, which is an inexact tiny result: UE. So without UE step 3 holds, and the rest
//!   follows: where `q` is exact, `r` is a zero and the result is `q`; where `q` is normal
//!   and inexact, step 4's neighbour is one step of the pattern — in the subnormal range
//!   too, and from the largest finite `q` to the infinity (where the exact quotient lies
//!   above the largest finite value and `q` was rounded down to it without overflow, the
//!   mode's rounding up is that infinity);
//! - `q` an infinity or a NaN from finite `a` and a zero or infinite `b`, or `a` infinite:
//!   then `q·b` is `0·∞` or `∞ - ∞` meets `a`: the FMA raises IE (and `0/0`, `∞/∞` raise
//!   it in the division);
//! - `a` or `b` a quiet NaN: no flag, `q` is the NaN `vdivps` returns in every mode, `r` a
//!   NaN, and the ordered compare of step 3 says "zero": the step leaves `q` as it is (for
//!   down and up `min`/`max` meet the NaN and raise IE, so those chunks go to the divider;
//!   toward zero keeps them); a signaling NaN raises IE;
//! - `a` a zero: `q` is the correctly signed zero in every mode, `r` a zero, the result `q`.
//!
//! The flags say nothing about which operations ran unless the operations and the reads
//! keep their order: each read (`stmxcsr`) sits in an `asm!` block that may write memory
//! (so every store of the chunk's results, and so every operation they depend on, stays
//! before it) and that hands the input pointers back as outputs (so every load of the next
//! chunk, and every operation on what it loads, stays after it); the clearing of the flags
//! before a chunk is fenced the same way. The caller's flags are put back at the end of the
//! call; a voided chunk's own UE, OE and IE are dropped before the divider redoes it, which
//! raises those `vdivps` raises. `tests/rounding.rs` (`flag_checked_chunks_keep_only_what_
//! the_flags_prove`) checks quiet specials in clean chunks and inexact underflows in every
//! mode and entry point, and that a loop ignoring the underflow flag is caught;
//! `tests/mxcsr.rs` runs the same pairs under every caller mode, flush-to-zero and
//! denormals-are-zero included. Steps 1–5 are the swept ones: inside the window nothing
//! changed.
//!
//! ## From the kernel's quotient, beside the divider (feature `verify`, measured first)
//!
//! The step needs of `q` only that it be faithful; steps 2–5 do not ask where it came from.
//! `arch::simd::directed_mixed` takes it from the mixed schedules' loop shape: a block of
//! kernel vectors and `d` divider vectors a step, each quotient then stepped. Exact because:
//! for every lane the kernel's check accepts, its quotient is `RN(a/b)` under
//! round-to-nearest, for every conforming seed, `vrcp14ps`' within 2^-14 included (the
//! sections above; at sixteen lanes with that backend's own near-all-ones rule), so
//! faithful; the check holds the step's window (the same window, and the near-all-ones
//! divisors besides); MXCSR is read once per call and the loop runs only
//! where it rounds to nearest (the kernel's FMAs give `RN(a/b)` there alone; elsewhere the
//! call runs the shipped form), so an exact residual is `+0` and the step of the next
//! section serves. Flush-to-zero and denormals-are-zero change nothing inside the window
//! (no input, quotient or residual there is subnormal). The divider vectors are the shipped
//! loop's: the step where their lanes lie in the window, `vdivps` under the mode elsewhere
//! (with embedded rounding, `div_rounded`'s are `vdivps` under the mode outright). So the
//! arithmetic is the one `fmadiv verify mantissa --rounding` sweeps pair by pair (the step
//! from the kernel's round-to-nearest quotient), and no new proof is needed for it.
//!
//! Because only faithfulness is asked, the weakened kernels of `div` are not what catches
//! a weakened loop here: on rows where one Newton step or the missing near-all-ones rule
//! gives wrong quotients, their bounds came out right (`tests/backends.rs`,
//! `weakened_kernels_under_the_directed_step`, `--ignored`). A shorter arithmetic for the
//! directed loop (Newton's step, no near-all-ones rule) would need a sweep of
//! faithfulness over all pairs and seeds, which has not been run; the loop keeps the
//! shipped kernel. What is caught: a step that ignores the divisor's sign, a loop without
//! the rounding-mode read (exact quotients under round-down: `-0` residuals), a wrong
//! quotient in the kernel block (`tests/backends.rs`, `scripts/mutate.sh`).
//!
//! ## The step where an exact residual is `+0`
//!
//! The compare of step 3 is there for one value: an exact zero sum is `-0` under
//! round-down and `+0` under the three other modes (IEEE 754, 6.3), so `r` is `-0` only
//! where MXCSR rounds down. The flag-checked chunks read MXCSR before the first chunk; where
//! its rounding field is not round-down they run `round_from_plus_zero`, which drops the
//! compare:
//!
//! - down, up and both bounds: `side = psignd(bits(a), bits(r))` is `a`'s pattern where
//!   `r > 0`, its negation where `r < 0`, and `0` where `r` is `+0`. Inside the window `a`
//!   is neither zero nor `-0`, so its pattern is neither `0` nor `i32::MIN` and the negation
//!   flips its sign: `side` has the sign of `sign(r)·sign(a)` and is zero exactly where `q`
//!   is exact, and `n = q + psignd(1, side)` is step 4's neighbour, bit for bit (four
//!   operations instead of five; `min`/`max` as in step 5). AVX-512's form of step 4 needs
//!   its compare anyway (it is the mask), so there this form is step 4's
//!   (`Vector::step_by_signs_plus_zero`);
//! - toward zero: `q - 1` on the pattern exactly where `|a/b| < |q|`, i.e. where
//!   `sign(r) ≠ sign(a)` and `r` is not a zero: `r` with `a`'s sign bit xored in is below
//!   zero exactly there (`+0` xor a sign bit is a zero, which is not below zero), and a
//!   compare with zero gives the `-1` to add (four operations after the FMA: and, xor,
//!   compare, add).
//!
//! So inside the window both forms give the same bits, which `fmadiv_verify`'s
//! `both_forms_of_the_directed_step_hash_alike` checks on the digest's 2.2 million pairs (a
//! form that differed would change the directed digests) and the directed sweep checks on
//! every pair it visits (a pair is a mismatch if either form is wrong). In the chunks, the
//! lanes outside the window keep the argument above: `r` rounded to a zero raises UE; a
//! NaN `q` meets `min` or `max` (down, up, bounds), or, toward zero, the compare, which is
//! the signaling one (`_CMP_LT_OS`) for this reason, all of which raise IE for a quiet NaN
//! and void the chunk — with the quiet compare, `1 / -NaN` came out as the NaN's pattern
//! minus one, since the NaN `r` carries `b`'s sign, not `a`'s (`tests/mxcsr.rs` has the
//! pair; `scripts/mutate.sh` has both mutations). A zero `a` (`+0` or `-0`) gives `r = +0`
//! and the result `q`.
