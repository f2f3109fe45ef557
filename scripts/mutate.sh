#!/usr/bin/env bash
# Mutation check: applies deliberate mutations of the shipped code one at a time and shows
# that the tests fail for each. (A mutation must make the code wrong: widening the input
# window by a single exponent at the bottom, for instance, is still exact and rightly
# survives; see TESTING.md, "Mutation check".) Restores the sources afterwards (even on
# Ctrl-C).
#
#   scripts/mutate.sh            # all mutations, each against `cargo test --release`
#   scripts/mutate.sh 3          # only mutation 3
#   MUTATE_TESTS="--test exactness --test backends" scripts/mutate.sh 1
#                                # against those test targets only (cargo test arguments)
#   scripts/mutate.sh --check    # only that every mutation still applies to the sources
#                                # (seconds; CI runs it, so that no mutation goes stale)
#   scripts/mutate.sh --list plan/make.rs
#                                # the numbers, files and names of the mutations whose
#                                # file or name holds the text (all without one)
#
# Prints a table: mutation, whether the tests caught it, and the failing tests.
set -uo pipefail
cd "$(dirname "$0")/.."

# name | file | sed expression (applied once, must change the file)
MUTATIONS=(
  "drop e*e from the Halley step|src/arch/simd/kernel.rs|s/let e2 = w.mul_add(e, e, e);/let e2 = e;/"
  "single Newton step instead of Halley|src/arch/simd/kernel.rs|s/if Variant::of(V).halley {/if false {/"
  "input window moved down to include zeros and subnormals|src/bits.rs|s/INPUT_EXPONENT_MIN: u32 = 127 - 63/INPUT_EXPONENT_MIN: u32 = 0/"
  "input window four exponents higher (overflow)|src/bits.rs|s/INPUT_EXPONENTS: u32 = 126/INPUT_EXPONENTS: u32 = 130/"
  "drop the all-ones divisor fix|src/arch/simd/kernel.rs|s/let (all_ones, field) = if divisors > 0 {/let (all_ones, field) = if false {/"
  "sixteen-lane near-all-ones rule halved (2^4 divisors)|src/bits.rs|s/RCP14_NEAR_ALL_ONES_DIVISORS: u32 = 1 << 5;/RCP14_NEAR_ALL_ONES_DIVISORS: u32 = 1 << 4;/"
  "the model's near-all-ones rule the eight-lane one (exact, 2^15 blocks lost)|src/arch/x86_64/avx512_model.rs|s/const NEAR_ALL_ONES_DIVISORS: u32 = crate::bits::RCP14_NEAR_ALL_ONES_DIVISORS;/const NEAR_ALL_ONES_DIVISORS: u32 = crate::bits::NEAR_ALL_ONES_DIVISORS;/"
  "eight-lane near-all-ones rule narrowed to the sixteen-lane one|src/arch/x86_64/avx2.rs|s/const NEAR_ALL_ONES_DIVISORS: u32 = crate::bits::NEAR_ALL_ONES_DIVISORS;/const NEAR_ALL_ONES_DIVISORS: u32 = crate::bits::RCP14_NEAR_ALL_ONES_DIVISORS;/"
  "check the divisor only (zero, inf, NaN dividends pass)|src/arch/simd/kernel.rs|s/} else if RECIP || !Variant::of(V).dividend_window {/} else if true {/"
  "signed minimum in the block check|src/arch/simd/kernel.rs|s/window: w.max_u32(self.window, other.window),/window: w.min_signed(self.window, other.window),/"
  "drop the residual correction|src/arch/simd/kernel.rs|s/    w.mul_add(y, res, q)$/    w.mul_add(y, w.mul(res, w.splat(0.0)), q)/"
  "Divisor: two products without the candidate test|src/divisor/proof.rs|s/if tail >= f32::MIN_POSITIVE \&\& two_products_exact(significand, unit, reciprocal) {/if tail >= f32::MIN_POSITIVE {/"
  "flags (Divisor, directed): ignore underflow|src/arch/x86_64/mode.rs|s/^pub const UNDERFLOW: u32 = 1 << 4;/pub const UNDERFLOW: u32 = 0;/"
  "flags (Divisor, directed): ignore overflow|src/arch/x86_64/mode.rs|s/^pub const OVERFLOW: u32 = 1 << 3;/pub const OVERFLOW: u32 = 0;/"
  "flags (Divisor, directed): ignore invalid|src/arch/x86_64/mode.rs|s/^pub const INVALID: u32 = 1 << 0;/pub const INVALID: u32 = 0;/"
  "Divisor flags: no zero-sign repair|src/divisor/flagged.rs|s/chunks::<W, SIGN_OF_[A-Z]*>/chunks::<W, NO_REPAIR>/"
  "Divisor flags: sign of a for negative divisors too|src/divisor/flagged.rs|s/chunks::<W, SIGN_OF_PRODUCT>/chunks::<W, SIGN_OF_DIVIDEND>/"
  "flag engine (directed, Divisor): a voided chunk's own flags kept|src/arch/simd/flagged.rs|s/^            drop_voiding_flags(after);$/            let _ = after;/"
  "flag engine (directed, Divisor): a voided attempt's denormal flag kept|src/arch/x86_64/mode.rs|s/write_flags(after \& !(VOIDING | DENORMAL));/write_flags(after \& !VOIDING);/"
  "flag engine (directed, Divisor): cleared flags forgotten|src/arch/simd/flagged.rs|s/write_flags(read_mxcsr() | callers | raised);/write_flags(read_mxcsr() | callers);/"
  "directed: the +0-residual step under round-down too|src/arch/simd/directed.rs|s/^                callers \& ROUNDING_CONTROL == /                false \&\& callers \& ROUNDING_CONTROL == /"
  "directed: +0-residual step's side by xor (exact r)|src/arch/x86_64/avx2.rs|s/let side = _mm256_sign_epi32(_mm256_castps_si256(a), _mm256_castps_si256(r));/let side = _mm256_xor_si256(_mm256_castps_si256(a), _mm256_castps_si256(r));/"
  "directed: toward zero without the signaling compare|src/arch/simd/directed.rs|s/let nearer_zero = w.negative_signaling(w.float(w.xor(w.bits(r), sign_of_a)));/let nearer_zero = w.greater(w.bits(q), w.step_by_signs_plus_zero(w.bits(q), r, a));/"
  "Divisor: the reciprocal strategy for a subnormal power of two (2^-127)|src/divisor/proof.rs|s/if b.is_normal() \&\& zh.is_normal() \&\&/if zh.is_normal() \&\&/"
  "directed from the mixes: no rounding-mode read|src/arch/simd/directed_mixed.rs|s/^        if !rounds_to_nearest() {/        if false \&\& !rounds_to_nearest() {/"
  "directed from the mixes: the kernel block's check ignored|src/arch/simd/directed_mixed.rs|s/^        if check.all_accepted(w) {/        if true || check.all_accepted(w) {/"
  "directed from the mixes: the divider vectors' window ignored|src/arch/simd/directed_mixed.rs|s/match InputCheck::window_of(w, x, y).all_accepted(w) {/match true {/"
  "directed: the blocks' window check ignored|src/arch/simd/directed.rs|s/^            if check.all_accepted(w) {/            if true || check.all_accepted(w) {/"
  "directed: one vector's window check ignored|src/arch/simd/directed.rs|s/^    if InputCheck::window_of(w, a, b).all_accepted(w) {/    if true || InputCheck::window_of(w, a, b).all_accepted(w) {/"
  "Divisor: the proof's flags left in MXCSR|src/divisor.rs|s/^            write_flags(callers);/            let _ = callers;/"
  "divider tail padded with 1/0 (a spurious divide-by-zero flag)|src/arch/simd/divider.rs|s/let vb = w.load_partial(b.add(from), rest, 1.0);/let vb = w.load_partial(b.add(from), rest, 0.0);/"
  "mixed loop: a block checked by its first vector only|src/arch/simd/loops.rs|s/check = Some(check.map_or(c, |acc| acc.merge(w, c)));/check = Some(check.unwrap_or(c));/"
  "mixed loop: the short step's block stored without its check|src/arch/simd/loops.rs|s/^        if check.all_accepted(w) {/        if true || check.all_accepted(w) {/"
  "mixed loop: the kernel under a directed MXCSR mode|src/arch/simd/loops.rs|s/if len < step || crate::arch::x86_64::mode::rounds_to_nearest() {/if true {/"
  "rayon forms: rayon's threads whatever the caller's MXCSR|src/parallel.rs|s/^    len < PAR_MIN_LEN || !default_float_environment()$/    len < PAR_MIN_LEN/"
  "portable: a signalling NaN operand not quieted|src/arch/portable.rs|s/f32::from_bits(propagated.to_bits() | QUIET_NAN_BIT)/f32::from_bits(propagated.to_bits())/"
  "try_: the output's length not checked|src/error.rs|s/^        match dividends == divisors \&\& divisors == out {/        match dividends == divisors {/"
  "ndarray: the divisor's strides not compared (contiguous views of another order)|src/ndarray.rs|s/^        \&\& b.strides() == strides.as_slice()$/        \&\& true/"
  "ndarray: a strided divisor lane taken for a broadcast one|src/ndarray.rs|s/^            \&\& b.strides()\[0\] == 0$/            \&\& true/"
  "Divisor: the proof unguarded up to 2^128 (a huge divisor's tail underflows)|src/divisor.rs|s/RangeInclusive<u32> = 1..=127 + 77;/RangeInclusive<u32> = 1..=254;/"
  "Divisor: Markstein's bound divided before compared (underflow from 2^26)|src/divisor.rs|s/Strategy::Markstein if b.abs() <= pow2(25) => pow2(-100) \/ b.abs(),/Strategy::Markstein => (pow2(-100) \/ b.abs()).max(pow2(-125)),/"
  "mixed loop: every block redone by the divider (the kernel's quotients never stored)|src/arch/simd/loops.rs|s/^            if !check.all_accepted(w) {$/            if true || !check.all_accepted(w) {/"
  "mixed loop: a block that passes does not reset the back-off|src/arch/simd/loops.rs|s/^                backoff.passed();$/                let _ = ();/"
  "mixed loop: the back-off not kept between calls|src/arch/simd/loops.rs|s/^        backoff.store(\&MIX_BACKOFF);$/        let _ = backoff;/"
  "mixed loop: a near-all-ones divisor's block backs off too|src/arch/simd/loops.rs|s/} else if divider_block::<W, RECIP>(w, a, b, out, i) {/} else if { divider_block::<W, RECIP>(w, a, b, out, i); true } {/"
  "flag engine: every chunk voided (the fast work never kept)|src/arch/simd/flagged.rs|s/^            clean = after \& voiding == 0;$/            clean = false;/"
  "flag engine: a voided chunk starts no back-off|src/arch/simd/flagged.rs|s/^            backoff.failed();$/            let _ = ();/"
  "flag engine: a passing chunk does not reset the back-off|src/arch/simd/flagged.rs|s/^                backoff.passed();$/                let _ = ();/"
  "flag engine: the back-off not kept between calls|src/arch/simd/flagged.rs|s/^    backoff.store(backoff_of);$/    let _ = backoff;/"
  "directed blocks: every block sent to the divider|src/arch/simd/directed.rs|s/^            if check.all_accepted(w) {$/            if false \&\& check.all_accepted(w) {/"
  "directed blocks: a block outside the window starts no back-off|src/arch/simd/directed.rs|s/^            backoff.failed();$/            let _ = ();/"
  "directed blocks: a passing block does not reset the back-off|src/arch/simd/directed.rs|s/^                backoff.passed();$/                let _ = ();/"
  "directed blocks: the back-off not kept between calls|src/arch/simd/directed.rs|s/^    backoff.store(\&BACKOFF);$/    let _ = backoff;/"
  "Divisor lanes: a passing block does not reset the back-off|src/divisor/lanes.rs|s/^            backoff.passed();$/            let _ = ();/"
  "Divisor lanes: a block of flagged vectors starts no back-off|src/divisor/lanes.rs|s/^        if unsafe { fix_block::<W, S>(w, consts, a.add(i), out.add(i)) } >= 2 {$/        if unsafe { fix_block::<W, S>(w, consts, a.add(i), out.add(i)) } >= 99 {/"
  "Divisor lanes: a lone flagged vector backs off too|src/divisor/lanes.rs|s/^        if unsafe { fix_block::<W, S>(w, consts, a.add(i), out.add(i)) } >= 2 {$/        if unsafe { fix_block::<W, S>(w, consts, a.add(i), out.add(i)) } >= 1 {/"
  "Divisor lanes: the back-off not kept between calls|src/divisor/lanes.rs|s/^    backoff.store(\&LANES_BACKOFF);$/    let _ = backoff;/"
  "16-lane model: all() true where any lane is set|src/arch/x86_64/avx512_model.rs|s/^        m == u16::MAX$/        m != 0/"
  "16-lane model: blend takes the first vector in the mask's lanes|src/arch/x86_64/avx512_model.rs|s/lanes(|l| if m >> l \& 1 == 1 { b\[l\] } else { a\[l\] })/lanes(|l| if m >> l \& 1 == 1 { a[l] } else { b[l] })/"
  "16-lane model: greater() unsigned|src/arch/x86_64/avx512_model.rs|s/mask_where(|l| (a\[l\] as i32) > (b\[l\] as i32))/mask_where(|l| a[l] > b[l])/"
  "16-lane model: step_by_signs() steps where the residual is a zero|src/arch/x86_64/avx512_model.rs|s/^                _ => q\[l\],$/                _ => q[l].wrapping_add(one_way as u32),/"
  "16-lane model: load_partial() pads with 1.0 whatever the pad|src/arch/x86_64/avx512_model.rs|s/else { pad })$/else { 1.0 })/"
  "16-lane model: mask_and_not() the other way round|src/arch/x86_64/avx512_model.rs|s/^        !a \& b$/        a \& !b/"
  "16-lane model: nonzero() true for NaN lanes|src/arch/x86_64/avx512_model.rs|s/mask_where(|l| !x\[l\].is_nan() \&\& x\[l\] != 0.0)/mask_where(|l| x[l] != 0.0)/"
  "16-lane model: embedded rounding keeps the flags divss raises|src/arch/x86_64/avx512_model.rs|s/^        write_flags(flags);$/        let _ = flags;/"
  "16-lane model: NaN lanes found by a float compare (denormal raised beside a NaN)|src/arch/x86_64/avx512_model.rs|s/\.any(|x| x.to_bits() \& ABS_MASK > INFINITY_BITS)/.any(|x| x.is_nan())/"
  "16-lane model: rcp() keeps the flags of the edge tables' search|src/arch/x86_64/avx512_model.rs|s/^        write_flags(mxcsr \& ALL_FLAGS);$/        let _ = mxcsr;/"
  "AVX2: negative_signaling() by a quiet compare (no invalid for a quiet NaN)|src/arch/x86_64/avx2.rs|s/_mm256_cmp_ps::<_CMP_LT_OS>/_mm256_cmp_ps::<_CMP_LT_OQ>/"
  "AVX2: nonzero() true for NaN lanes (unordered not-equal)|src/arch/x86_64/avx2.rs|s/_mm256_cmp_ps::<_CMP_NEQ_OQ>/_mm256_cmp_ps::<_CMP_NEQ_UQ>/"
  "Divisor flags: inexact voids a chunk (every chunk to the divider)|src/divisor/flagged.rs|s/^            VOIDING,$/            VOIDING | 1 << 5,/"
  "16-lane Divisor: two products flag-checked in place (a voided chunk redone from quotients)|src/divisor/x16.rs|s/\&\& !core::ptr::eq(a, out)$/\&\& true/"
  "schedules: mix-8 mapped to the divider's loop (the plan's choice never runs)|src/schedule.rs|s/Schedule::Mixed(Mix(8)) => entry::mixed::<V, 8, RECIP, GUARDED>,/Schedule::Mixed(Mix(8)) => entry::divider::<RECIP>,/"
  "mixed loop: recip's kernel blocks never stored (every one redone by the divider)|src/arch/simd/loops.rs|s/^            if !check.all_accepted(w) {$/            if RECIP || !check.all_accepted(w) {/"
  "div_bounds: two divider passes at every length (the step never runs)|src/arch/simd/directed.rs|s/if W::EMBEDDED_ROUNDING \&\& len >= form.two_passes_from {/if true {/"
  "div_bounds: two passes at every length with embedded rounding|src/arch/simd/directed.rs|s/if W::EMBEDDED_ROUNDING \&\& len >= form.two_passes_from {/if W::EMBEDDED_ROUNDING {/"
  "div_rounded: short slices rounded down by one pass (the step never runs)|src/rounding.rs|s/(Rounding::Down, false) => step!(mxcsr::DOWN),/(Rounding::Down, false) => entry::div_in_mode::<{ mxcsr::DOWN }>(x, y, o, n),/"
  "div_rounded: the step below 256 elements with embedded rounding too|src/arch/simd/directed.rs|s/^    W::EMBEDDED_ROUNDING || len >= ONE_PASS_FROM$/    len >= ONE_PASS_FROM/"
  "Divisor: public slices never run the sequence (the divider where the plan says the sequence)|src/divisor.rs|s/Some(p) => x86::divide_raw(k, p, slice_check(), x, o, n),/Some(_) => x86::divide_by_divider(k, self.b, x, o, n),/"
  "plan: every length in the small class (the large class's schedules never run)|src/plan/mod.rs|s/^        usize::from(len >= self.small_below)$/        usize::from(len > usize::MAX)/"
  "plan: the small class's loop at every length|src/plan/mod.rs|s/self.runs\[LOOP\]\[self.class(len)\]/self.runs[LOOP][0]/"
  "plan: div's loops made of recip's choices|src/plan/mod.rs|s/d.map(|s| disjoint_variant_fn_on::<V, false>(div, s)),/r.map(|s| disjoint_variant_fn_on::<V, false>(div, s)),/"
  "in-register token: div_ps on vdivps whatever its choice|src/simd.rs|s/if self.div_kernel \&\& /if false \&\& self.div_kernel \&\& /"
  "in-register token: recip_ps on vdivps whatever its choice|src/simd.rs|s/if self.recip_kernel \&\& /if false \&\& self.recip_kernel \&\& /"
  "in-register token: recip's choice taken from div's|src/simd.rs|s/recip_kernel: plan.in_register_recip_kernel(),/recip_kernel: plan.in_register_kernel(),/"
  "plan: one vector at a time takes the large class's kernel|src/plan/mod.rs|s/\[choices.div\[0\], choices.recip\[0\]\]/[choices.div[1], choices.recip[1]]/"
  "par_div: long slices on the calling thread (rayon never used)|src/parallel.rs|s/^    on_pool::div(a, b, out);$/    div(a, b, out);/"
  "rayon forms: rayon's threads at every length (the threshold ignored)|src/parallel.rs|s/^    len < PAR_MIN_LEN || !default_float_environment()$/    !default_float_environment()/"
  "div, try_div: every slice on the short loop (the plan never consulted)|src/slices.rs|/unsafe fn div_disjoint/,/^}/s/    if len < crate::arch::x86_64::short::SHORT {/    if len < usize::MAX {/"
  "div_in_place: every slice on the short loop|src/slices.rs|s/    if a.len() < crate::arch::x86_64::short::SHORT {/    if a.len() < usize::MAX {/"
  "recip: every slice on the short loop|src/slices.rs|/unsafe fn recip_disjoint/,/^}/s/    if len < crate::arch::x86_64::short::SHORT {/    if len < usize::MAX {/"
  "ndarray: one flat division into fresh memory by a plain /|src/ndarray.rs|s/^            crate::slices::div_disjoint(x.as_ptr(), y.as_ptr(), o.as_mut_ptr().cast(), o.len())$/            for i in 0..o.len() { o[i].write(x[i] \/ y[i]); }/"
  "ndarray: contiguous lanes into contiguous memory by a plain / (fresh rows, div_to's lanes)|src/ndarray.rs|s/^        unsafe { crate::slices::div_disjoint(x.as_ptr(), y.as_ptr(), out, x.len()) };$/        unsafe { for i in 0..x.len() { *out.add(i) = x[i] \/ y[i]; } };/"
  "ndarray: gathered pieces divided by a plain / (div_to into a strided output)|src/ndarray.rs|s/^        crate::div_in_place(dividends, divisors);$/        dividends.iter_mut().zip(divisors.iter()).for_each(|(p, d)| *p \/= d);/"
  "ndarray: div_assign's flat path by a plain /|src/ndarray.rs|s/^        crate::div_in_place(x, y);$/        x.iter_mut().zip(y).for_each(|(p, d)| *p \/= d);/"
  "ndarray: a column divisor's lane divided by a plain /|src/ndarray.rs|s/^            crate::div_scalar(x, b\[0\], o);$/            o.iter_mut().zip(x).for_each(|(q, p)| *q = p \/ b[0]);/"
  "ndarray: div_to's flat path by a plain /|src/ndarray.rs|/expect(\"same strides as a contiguous view\");/{n;s/crate::div(x, y, o);/o.iter_mut().zip(x.iter().zip(y)).for_each(|(q, (p, d))| *q = p \/ d);/}"
  "ndarray: gathered pieces into contiguous memory by a plain / (a strided operand)|src/ndarray.rs|s/^        unsafe { crate::slices::div_disjoint(x.as_ptr(), y.as_ptr(), out.add(i \* PIECE), x.len()) };$/        unsafe { for (j, (p, d)) in x.iter().zip(y.iter()).enumerate() { *out.add(i * PIECE + j) = p \/ d; } };/"
  "flag engine (directed, Divisor): a call inside the back-off counted as a whole chunk (per call)|src/arch/simd/flagged.rs|s/^        backoff.skipped(full as u32);$/        backoff.skipped(FLAG_CHUNK as u32);/"
  "directed: the flag-checked chunks from twice their length (64 vectors)|src/arch/simd/directed.rs|s/^    if len >= flagged_from::<W>() {$/    if len >= 2 * flagged_from::<W>() {/"
  "directed blocks: a failing block counted off the back-off with the blocks after it in its region|src/arch/simd/directed.rs|s/^        backoff.skipped(skipped as u32);$/        backoff.skipped((failed + skipped) as u32);/"
  "16-lane model: step_by_signs() without the or 1 (no step where the signs agree)|src/arch/x86_64/avx512_model.rs|s/>> 31) | 1;$/>> 31);/"
  "div_bounds: the families whose step runs at every length take two passes from 4096 too|src/dispatch/families.rs|s/^            true => usize::MAX,$/            true => crate::arch::simd::directed::TWO_PASSES_FROM,/"
  "per entry point: a family's record turns sixteen lanes on for every entry point|src/dispatch.rs|s/EntryPoint::ALL.map(|e| match sixteen.contains(\&e) {/EntryPoint::ALL.map(|_| match !sixteen.is_empty() {/"
  "per entry point: the plan's recip loops on div's backend|src/plan/make.rs|s/^            recip: crate::backend_of(EntryPoint::Recip),$/            recip: crate::backend(),/"
  "per entry point: div_rounded on div_bounds' backend|src/rounding.rs|s/^                crate::backend_of(crate::EntryPoint::DivRounded),$/                crate::backend_of(crate::EntryPoint::DivBounds),/"
  "sixteen lanes: the mixed loop's steps from the slice's start, no head to the output's line|src/arch/simd/loops.rs|s/^    let head = unsafe { line_head::<W, RECIP>(w, a, b, out, len) };$/    let head = 0;/"
  "sixteen lanes: the divisors not moved past the head|src/arch/simd/divider.rs|s/^    let (\[a, b\], \[out\], len) = past_head(\[a, b\], \[out\], len, head);$/    let ([a, _], [out], len) = past_head([a, b], [out], len, head);/"
  "sixteen lanes: the embedded-rounding pass's head rounded to nearest|src/arch/simd/divider.rs|s/let head = unsafe { line_head_by::<W, RECIP>(w, a, b, out, len, divide) };/let head = unsafe { line_head_by::<W, RECIP>(w, a, b, out, len, \|x, y\| w.div(x, y)) };/"
  "in-register token: the choices of the width recip's loops run, not the row's eight-lane column|src/plan/make.rs|s/^    plan.in_register = in_register_of(\&r.choices);$/    plan.in_register = in_register_of(\&plan.choices);/"
  "the directed loops' blocks and chunks from the slice's start, no head|src/arch/simd/directed.rs|s/^        true => vector_head_len::<W>(out\[0\], len),$/        true => 0,/"
  "the directed loops' head at every length, short slices and eight lanes included|src/arch/simd/directed.rs|s/head_from != usize::MAX \&\& len >= head_from \&\& len >= W::LANES/len >= W::LANES/"
  "sixteen lanes: the Divisor's two products chunked from the slice's start, no head|src/divisor/lanes.rs|s/return unsafe { divider_head(w, by, a, out, len) };/return unsafe { divider_head(w, by, a, out, 0) };/"
  "sixteen lanes: the Divisor's head padded with 1.0 (the flags of 1/b)|src/divisor/lanes.rs|s/FLAGLESS_PAD: f32 = f32::NAN;/FLAGLESS_PAD: f32 = 1.0;/"
  "recip by length: a slice of exactly the bound's length still at eight lanes|src/plan/mod.rs|s/if LOOP >= RECIP \&\& len < self.short_recip.below {/if LOOP >= RECIP \&\& len <= self.short_recip.below {/"
  "recip by length: a forced sixteen-lane recip also gives way on short slices|src/plan/make.rs|s/if recip_sixteen \&\& widths.recip_by_default \&\& recip.recip_from > 0 {/if recip_sixteen \&\& recip.recip_from > 0 {/"
  "recip by length: the short slices at the sixteen-lane column's schedules|src/plan/make.rs|s/^        let eight = r.choices.recip;$/        let eight = recip.choices.recip;/"
  "eight lanes: Zen 4's record without div_bounds' head|src/dispatch/families.rs|s/bounds_eight_lane_head_from: Some(ZEN4_BOUNDS_EIGHT_LANE_HEAD_FROM),/bounds_eight_lane_head_from: None,/"
  "eight lanes: the directed head to the output's line, not its vector boundary|src/arch/simd/directed.rs|s/floats_to_boundary(out, W::LANES \* 4).min(len)/floats_to_boundary(out, 64).min(len)/"
  "eight lanes: the directed loop's last whole vector one lane short of the slice's end|src/arch/simd/directed.rs|s/overlapping_vector(w, a, b, out, len - W::LANES, vector)/overlapping_vector(w, a, b, out, len - W::LANES - 1, vector)/"
  "eight lanes: the directed loop's whole-vector head dropped|src/arch/simd/directed.rs|s/^        unsafe { overlapping_vector(w, a, b, out, 0, vector) };$/        let _ = vector;/"
  "div_bounds: the loop without the head whatever the caller chose|src/rounding.rs|s/true => entry::div_bounds::<STEP, true>(a, b, lo, hi, len, form),/true => entry::div_bounds::<STEP, false>(a, b, lo, hi, len, form),/"
  "eight lanes: the directed loop's whole vectors also divide by zero on the side (bits unchanged, flags not)|src/arch/simd/directed.rs|s/^        let v = vector(w.load(a.add(at)), w.load(b.add(at)));$/        core::hint::black_box(w.div(w.load(a.add(at)), w.splat(0.0)));\n        let v = vector(w.load(a.add(at)), w.load(b.add(at)));/"
  "Divisor: the sixteen-lane divider loop's partial last vector padded with 1.0|src/divisor/lanes.rs|s/let x = w.load_partial(a.add(full), rest, FLAGLESS_PAD);/let x = w.load_partial(a.add(full), rest, 1.0);/"
  "Divisor: the eight-lane divider loop's last whole vector divided after the loop (in place from quotients)|src/divisor/lanes.rs|s/^        Some(q) => unsafe { w.store(out.add(len - W::LANES), q) },$/        Some(_) => unsafe { divider_vectors(w, by, a, out, len - W::LANES, 1) },/"
  "Divisor: the eight-lane divider loop's last whole vector one lane short of the slice's end|src/divisor/lanes.rs|s/Some(q) => unsafe { w.store(out.add(len - W::LANES), q) },/Some(q) => unsafe { w.store(out.add(len - W::LANES - 1), q) },/"
  "Divisor: the eight-lane two products without their head (bits unchanged, stores split)|src/divisor/lanes.rs|s/^    if len < W::LANES {$/    if true {/"
  "Divisor: the eight-lane two products' head vector not stored|src/divisor/lanes.rs|s/^        unsafe { w.store(out, w.div(w.load(a), by)) };$/        let _ = (a, by);/"
  "Divisor: the eight-lane two products' head one lane past the boundary (a sequence lane to the divider)|src/divisor/lanes.rs|s/^    let head = floats_to_boundary(out, W::LANES \* 4);$/    let head = floats_to_boundary(out, W::LANES * 4) + 1;/"
  "try_div_bounds: the upper bounds' length not checked|src/error.rs|s/match \[divisors, lower, upper\].iter().all(|\&n| n == dividends) {/match [divisors, lower].iter().all(|\&n| n == dividends) {/"
  "try_recip, try_div_scalar, Divisor::try_divide_slice: a longer output passes the check|src/error.rs|s/^        match input == out {$/        match input <= out {/"
  "panicking forms: a message of their own, not their try_ form's error|src/error.rs|s/panic!(\"fmadiv::{function}: {self}\")/panic!(\"fmadiv::{function}: length mismatch\")/"
  "par_div_in_place: long slices on the calling thread (rayon never used)|src/parallel.rs|s/^    on_pool::div_in_place(a, b);$/    div_in_place(a, b);/"
  "par_recip: long slices on the calling thread (rayon never used)|src/parallel.rs|s/^    on_pool::recip(b, out);$/    recip_slices(b, out);/"
  "par_div_in_place: the divisors' chunks in reverse order|src/parallel.rs|/^    pub(crate) fn div_in_place/,/^    }/s/\.zip(b\.par_chunks(PAR_CHUNK))$/.zip(b.par_chunks(PAR_CHUNK).rev())/"
  "backend setting: backend_of reads none where the build fixes the backend|src/dispatch.rs|/^pub fn backend_of(entry: EntryPoint) -> Backend {/,/^}/s/check_environment();/let _ = ();/"
  "backend setting: a Divisor says nothing of a bad one|src/divisor.rs|/pub fn new(b: f32) -> Divisor {/,/Divisor {/s/crate::dispatch::check_environment();/let _ = ();/"
  "backend setting: FMADIV_FORCE_PORTABLE read as unset whatever its value but 1|src/dispatch.rs|s/^            \"0\" | \"\" => false,$/            _ => false,/"
  "backend setting: FMADIV_FORCE_PORTABLE=1 wins over a disagreeing FMADIV_BACKEND|src/dispatch.rs|s/\.find(|\&(_, b)| b\.is_some_and(|b| b != Backend::Portable));/.find(|_| false);/"
  "backend setting: a build with AVX2 and FMA at compile time ignores the others|src/dispatch.rs|s/^const FIXED_BACKEND: Option<(Backend, \&str)> = if cfg!(fmadiv_static_avx2_fma) {/const FIXED_BACKEND: Option<(Backend, \&str)> = if false {/"
  "backend setting: the directed functions say nothing of a bad one|src/rounding.rs|s/^        crate::dispatch::check_environment();$/    let _ = ();/"
  "backend setting: the unoptimised slice loops say nothing of a bad one|src/slices.rs|s/^\( *\)crate::dispatch::check_environment();$/\1let _ = ();/"
  "ndarray tiles: divided by a plain /|src/ndarray/tiles.rs|s/^            crate::div_in_place(x, y);$/            x.iter_mut().zip(y.iter()).for_each(|(p, d)| *p \/= d);/"
  "ndarray tiles: the column-wise gather reads a transposed tile's last columns (past the bands) reversed|src/ndarray/tiles.rs|s/^            \*d = unsafe { \*tile.uget((r, c)) };$/            *d = unsafe { *tile.uget((r, columns - 1 - c)) };/"
  "ndarray tiles: only the first tile across the lanes|src/ndarray/tiles.rs|s/for k in (0..across).step_by(lanes) {/for k in (0..across).step_by(lanes).take(1) {/"
  "ndarray tiles: the last, partial tile along the lanes left out|src/ndarray/tiles.rs|s/for l in (0..along).step_by(length) {/for l in (0..along - along % length).step_by(length) {/"
  "ndarray: div_assign's gathered pieces divided by a plain /|src/ndarray.rs|s/^                crate::div_in_place(dividends, divisors);$/                dividends.iter_mut().zip(divisors.iter()).for_each(|(p, d)| *p \/= d);/"
  "ndarray: a strided lane's pieces written from its start each (offset i, not i * PIECE)|src/ndarray.rs|s/out.add(i \* PIECE), x.len())/out.add(i), x.len())/"
  "ndarray rayon forms: never cut into blocks (all on the calling thread)|src/ndarray/parallel.rs|s/^    if out.len() < 2 \* PAR_CHUNK {$/    if true || out.len() < 2 * PAR_CHUNK {/"
  "ndarray rayon forms: a block's second half left undivided|src/ndarray/parallel.rs|s/^        || cut(o2, a2, b2, thick, work),$/        || drop((o2, a2, b2)),/"
  "ndarray rayon forms: on the pool under a caller's MXCSR too|src/ndarray/parallel.rs|s/^    if stays_on_caller(a.len()) {$/    if a.len() < crate::parallel::PAR_MIN_LEN {/"
  "ndarray rayon forms: par_div's blocks that need initialised memory zeroed, then not divided|src/ndarray/parallel.rs|s/^            divide(a, b, out);$/            let _ = (a, b, out);/"
  "ndarray: short rows into fresh memory by a plain /|src/ndarray/short_rows.rs|s/unsafe { crate::slices::div_disjoint(x.as_ptr(), y.as_ptr(), o, y.len()) };/unsafe { for (j, d) in y.iter().enumerate() { *o.add(j) = x[j] \/ d; } };/"
  "ndarray: div_to's short rows by a plain /|src/ndarray/short_rows.rs|s/^            crate::div(x.group(start, y.len()), y, \&mut o\[range\]);$/            o[range].iter_mut().zip(x.group(start, y.len()).iter().zip(y)).for_each(|(q, (p, d))| *q = p \/ d);/"
  "ndarray: div_assign's short rows by a plain /|src/ndarray/short_rows.rs|s/^            crate::div_in_place(\&mut x\[start..start + y.len()\], y);$/            x[start..start + y.len()].iter_mut().zip(y).for_each(|(p, d)| *p \/= d);/"
  "ndarray: short rows' groups each written from the array's start|src/ndarray/short_rows.rs|s/^        divide(start, \&buf\[..filled\]);$/        divide(0, \&buf[..filled]);/"
  "ndarray: short rows by one row for all where the divisor varies across some rows|src/ndarray/short_rows.rs|s/^    if one_row(\&b) {$/    if b.strides()[..last.index()].iter().any(|\&s| s == 0) {/"
  "ndarray: short rows into the columns of a wider output by a plain /|src/ndarray/short_rows.rs|s/^        crate::div(x.group(start, y.len()), y, q);$/        q.iter_mut().zip(x.group(start, y.len()).iter().zip(y)).for_each(|(q, (p, d))| *q = p \/ d);/"
  "ndarray: div_assign on the columns of a wider array by a plain /|src/ndarray/short_rows.rs|s/^        crate::div_in_place(x, y);$/        x.iter_mut().zip(y).for_each(|(p, d)| *p \/= d);/"
  "ndarray: short rows written back into the first rows of the output each group|src/ndarray/short_rows.rs|s/^        let first = start \/ columns;$/        let first = start * 0;/"
  "ndarray: short rows gathered for each group from the first rows|src/ndarray/short_rows.rs|s/let part = rows_of(rows.view(), start, len);/let part = rows_of(rows.view(), 0, len);/"
  "ndarray: a short row's last eight floats taken from its start|src/ndarray/short_rows.rs|s/^            chunk(8, n - 8);$/            chunk(8, 0);/"
  "ndarray: a short row of three copied without its middle float|src/ndarray/short_rows.rs|s/for at in \[0, n \/ 2, n - 1\] {/for at in [0, 0, n - 1] {/"
  "ndarray: rows with steps gathered as rows that step by one|src/ndarray/short_rows.rs|s/ \&\& by_one(a.strides())).then_some(reversed)/ \&\& true).then_some(reversed)/"
  "ndarray: both operands with steps gathered in one pass, the dividends into both buffers|src/ndarray.rs|s/\.for_each(|x, y, \&a, \&b| (\*x, \*y) = (a, b));/.for_each(|x, y, \&a, \&b| (*x, *y) = (a, a + 0.0 * b));/"
  "ndarray tiles: a band of a transposed tile read from its columns in reverse|src/ndarray/tiles.rs|s/array::from_fn(|k| unsafe { \*heads\[k\].offset(r as isize \* down) });/array::from_fn(|k| unsafe { *heads[BAND - 1 - k].offset(r as isize * down) });/"
  "ndarray recip: the flat path into fresh memory by a plain /|src/ndarray/reciprocals.rs|s/^        unsafe { recip_disjoint(y.as_ptr(), o.as_mut_ptr().cast(), o.len()) };$/        for (r, y) in o.iter_mut().zip(y) { r.write(1.0 \/ y); }/"
  "ndarray recip: a contiguous lane by a plain /|src/ndarray/reciprocals.rs|s/^        unsafe { recip_disjoint(y.as_ptr(), out, y.len()) };$/        unsafe { for (j, y) in y.iter().enumerate() { *out.add(j) = 1.0 \/ y; } };/"
  "ndarray recip: a lane's gathered pieces each written from its start (offset i, not i * PIECE)|src/ndarray/reciprocals.rs|s/out.add(i \* PIECE), y.len())/out.add(i), y.len())/"
  "ndarray recip_to: the flat path by a plain /|src/ndarray/reciprocals.rs|s/^        crate::recip(y, o);$/        o.iter_mut().zip(y).for_each(|(r, y)| *r = 1.0 \/ y);/"
  "ndarray recip_to: a strided output's pieces by a plain /|src/ndarray/reciprocals.rs|s/^                crate::recip(y, r);$/                r.iter_mut().zip(y.iter()).for_each(|(r, y)| *r = 1.0 \/ y);/"
  "ndarray par_recip_to: its blocks left unwritten|src/ndarray/parallel.rs|s/^        reciprocals(b, out);$/        let _ = (b, out);/"
  "ndarray div_to, recip_to and their rayon forms: an output of another shape taken|src/ndarray.rs|s/^    match out == input {$/    match true {/"
  "ndarray recip: short rows into fresh memory by a plain /|src/ndarray/short_rows.rs|s/unsafe { crate::slices::recip_disjoint(y.as_ptr(), o, y.len()) };/unsafe { for (j, d) in y.iter().enumerate() { *o.add(j) = 1.0 \/ d; } };/"
  "ndarray recip_to: short rows into the columns of a wider output by a plain /|src/ndarray/short_rows.rs|s/^        crate::recip(y, rows.buffer(y.len()));$/        rows.buffer(y.len()).iter_mut().zip(y).for_each(|(r, d)| *r = 1.0 \/ d);/"
  "ndarray recip: a transposed operand's tiles divide twos, not ones|src/ndarray/reciprocals.rs|s/let one = ::ndarray::arr0(1.0f32);/let one = ::ndarray::arr0(2.0f32);/"
  "ndarray: short rows' divisors copied for each group from the first rows|src/ndarray/short_rows.rs|s/copy(\&rows_of(matrix.view(), start, filled), \&mut buf\[..filled\]);/copy(\&rows_of(matrix.view(), 0, filled), \&mut buf[..filled]);/"
  "plan: recip_in_place's loops from div's choices|src/plan/mod.rs|s/^        r.map(|s| variant_fn_on::<V, true, true>(recip, s)),$/        d.map(|s| variant_fn_on::<V, true, true>(recip, s)),/"
  "plan: recip_in_place's short slices on recip's own width, not the eight lanes|src/plan/mod.rs|s/if LOOP >= RECIP \&\& len < self.short_recip.below {/if LOOP == RECIP \&\& len < self.short_recip.below {/"
  "plan: recip_in_place's loops without the rounding-mode guard|src/plan/mod.rs|s/^        r.map(|s| variant_fn_on::<V, true, true>(recip, s)),$/        r.map(|s| variant_fn_on::<V, true, false>(recip, s)),/"
  "recip_in_place: a short slice's last element left as it was|src/slices.rs|s/short::div_raw(None, p, p, len) };/short::div_raw(None, p, p, len.saturating_sub(1)) };/"
  "ndarray recip_assign: a strided lane's pieces by a plain /|src/ndarray/reciprocals.rs|s/^            crate::recip(divisors, r);$/            r.iter_mut().zip(divisors.iter()).for_each(|(r, y)| *r = 1.0 \/ y);/"
  "ndarray recip_assign: a contiguous lane by a plain /|src/ndarray/reciprocals.rs|s/^            crate::recip_in_place(y);$/            y.iter_mut().for_each(|v| *v = 1.0 \/ *v);/"
  "ndarray recip_assign: the flat path by a plain /|src/ndarray/reciprocals.rs|s/^        return crate::recip_in_place(y);$/        return y.iter_mut().for_each(|v| *v = 1.0 \/ *v);/"
  "ndarray recip_assign: short rows of a wider matrix by a plain /|src/ndarray/short_rows.rs|s/^        crate::recip_in_place(rows.gathered(start, group.min(total - start)));$/        rows.gathered(start, group.min(total - start)).iter_mut().for_each(|v| *v = 1.0 \/ *v);/"
  "ndarray par_recip_assign: its blocks left undone|src/ndarray/parallel.rs|s/\&|b, _, _| reciprocals_in_place(b));/\&|b, _, _| drop(b));/"
  "par_recip_in_place: its chunks left undone|src/parallel.rs|s/\.for_each(slices::recip_in_place);/.for_each(drop);/"
  "portable: reciprocals in place divide by one|src/arch/portable.rs|s/\*o = div_one(1.0, \*o);/*o = div_one(*o, 1.0);/"
  "a missing plan file said only in the plan, not on stderr|src/plan/make.rs|s/if let (Some(why), Some(path)) = (\&plan.file_unused, \&file) {/if let (Some(why), Some(path)) = (\&plan.file_unused, \&file) \&\& Path::new(path).exists() {/"
  "sixteen lanes: the head to the output's line at every length (LINE_HEAD_FROM ignored)|src/arch/simd/divider.rs|s/^    if !aligns || len < LINE_HEAD_FROM {$/    if !aligns {/"
  "div_bounds: the chunks whatever flags the caller holds|src/arch/simd/directed.rs|s/^    let window_if_held = len < window_if_flags_held_below;$/    let window_if_held = false;/"
  "div_bounds: the window check for held flags at every length, the form's length ignored|src/arch/simd/directed.rs|s/^    let window_if_held = len < window_if_flags_held_below;$/    let window_if_held = window_if_flags_held_below > 0;/"
  "div_bounds: a record's length for held flags not taken|src/dispatch/families.rs|s/window_if_flags_held_below: family.bounds_window_if_flags_held_below.unwrap_or(0),/window_if_flags_held_below: 0,/"
  "Divisor window: its lower end sixteen times lower (a·zl subnormal)|src/divisor.rs|s/^    let lo = |b: f64, _zh: f64, min_quotient: f64| 2.0 \* min_normal.max(min_quotient \* b);$/    let lo = |b: f64, _zh: f64, min_quotient: f64| 0.125 * min_normal.max(min_quotient * b);/"
  "Divisor window: no upper end|src/divisor.rs|s/^    ((lo as f32).to_bits(), (hi.min(max) as f32).to_bits())$/    ((lo as f32).to_bits(), f32::MAX.to_bits())/"
  "Divisor window: the dividend's sign bit read as magnitude|src/divisor/lanes.rs|s/w.greater(w.add(w.and(w.bits(x), self.abs), self.offset), self.limit)/w.greater(w.add(w.bits(x), self.offset), self.limit)/"
  "Divisor window: a rejected block's vectors all to the divider|src/divisor/lanes.rs|s/let q = if w.any(window.outside_but_zeros(w, x)) {/let q = if true {/"
  "Divisor window: no block check|src/divisor/lanes.rs|s/^            if !w.any(rejected) {$/            if true || !w.any(rejected) {/"
  "Divisor window: zero quotients without the sign repair|src/divisor/lanes.rs|s/^    w.float(w.or(w.bits(q), w.and(w.bits(w.mul(x, d.zh)), sign)))$/    q/"
  "Divisor window: a vector with a zero dividend to the divider|src/divisor/lanes.rs|s/let q = if w.any(window.outside_but_zeros(w, x)) {/let q = if w.any(window.outside(w, x)) {/"
  "Divisor window: a rejected block fixed vector by vector at eight lanes too (zeros by the sequence)|src/divisor/lanes.rs|s/^const BY_VECTOR_FROM_LANES: usize = 16;/const BY_VECTOR_FROM_LANES: usize = 8;/"
  "Divisor: the chunks whatever flags the caller holds (the check's length ignored)|src/divisor/flagged.rs|s/^    len < held_below \&\& read_mxcsr() \& VOIDING != 0$/    false/"
  "Divisor: the window for a held flag at every length|src/divisor/flagged.rs|s/^    len < held_below \&\& read_mxcsr() \& VOIDING != 0$/    held_below > 0 \&\& read_mxcsr() \& VOIDING != 0/"
  "Divisor: the window below the check's length whatever the caller's flags|src/divisor/flagged.rs|s/^    len < held_below \&\& read_mxcsr() \& VOIDING != 0$/    len < held_below/"
  "Divisor: public slices ignore the plan's length for held flags|src/divisor.rs|s/below: crate::plan().choices().divisor.window_if_flags_held_below,/below: 0,/"
  "plan file: the length for held flags not read back|src/plan/file.rs|s/window_if_flags_held_below: number(\"divisor.window_if_flags_held_below\")?,/window_if_flags_held_below: 0,/"
  "Divisor window: a block with zeros runs the sequence whatever else is outside|src/divisor/lanes.rs|s/} else if !w.any(window.outside_but_zeros_in(w, \&x)) {/} else if true {/"
  "Divisor window: a block of zeros without the sign repair|src/divisor/lanes.rs|s/^                        with_zero_signs::<W, S>(w, consts, x, sign),$/                        sequence::<W, S>(w, consts, x),/"
  "recip: failed blocks back to the divider at eight lanes too|src/arch/simd/loops.rs|s/^const RECIPROCALS_BY_VECTOR_BELOW_LANES: usize = 16;/const RECIPROCALS_BY_VECTOR_BELOW_LANES: usize = 8;/"
  "recip: failed blocks fixed vector by vector at sixteen lanes too|src/arch/simd/loops.rs|s/^const RECIPROCALS_BY_VECTOR_BELOW_LANES: usize = 16;/const RECIPROCALS_BY_VECTOR_BELOW_LANES: usize = 32;/"
  "recip by vector: a refused lane's vector on the divider whole|src/arch/simd/loops.rs|s/w.blend(r, w.div(one, y), refused)/w.div(one, y)/"
  "back-off: a lone special never backs off|src/backoff.rs|s/^        if self.after_failure() {$/        if false {/"
  "Divisor window: a rejected block to the divider whole at sixteen lanes too|src/divisor/lanes.rs|s/^const BY_VECTOR_FROM_LANES: usize = 16;/const BY_VECTOR_FROM_LANES: usize = 32;/"
  "flag engine (directed, Divisor): the caller's flags not put back|src/arch/simd/flagged.rs|s/write_flags(read_mxcsr() | callers | raised);/write_flags(read_mxcsr());/"
  "flag engine (directed, Divisor): the last chunk's flags not put back|src/arch/simd/flagged.rs|s/write_flags(read_mxcsr() | callers | raised);/write_flags(callers | raised);/"
  "Divisor lanes: the run stores a flagged block (no block check)|src/divisor/lanes.rs|s/^            if w.any(flagged) {$/            if false \&\& w.any(flagged) {/"
  "Divisor lanes: the run's merged mask only the last vector's|src/divisor/lanes.rs|s/^                    flagged = w.mask_or(flagged, bad);$/                    flagged = bad;/"
  "Divisor lanes: a fixed block keeps the sequence's quotients in its flagged lanes|src/divisor/lanes.rs|s/^                        w.blend(q, w.div(x, consts.b), bad)$/                        q/"
  "Divisor: Markstein's slices on the divider, as before|src/divisor.rs|s/^        self.strategy != Strategy::Hardware$/        matches!(self.strategy, Strategy::TwoProducts | Strategy::Reciprocal)/"
  "Divisor window: Markstein's without the residual's lower end (2^-78)|src/divisor.rs|s/\.max(MARKSTEIN_RESIDUAL_NORMAL_FROM)$//"
  "Divisor: Markstein's slices lane-checked at eight lanes (no window)|src/divisor/x86.rs|s/(Strategy::TwoProducts | Strategy::Markstein, _) if check != Check::Lanes => {/(Strategy::TwoProducts, _) if check != Check::Lanes => {/"
  "Divisor: Markstein's slices lane-checked at sixteen lanes (no window)|src/divisor/x16.rs|s/Some(p) if p.strategy == Strategy::Markstein => match check {/Some(p) if p.strategy == Strategy::Markstein => match Check::Lanes {/"
)

if [ "${1:-}" = "--list" ]; then
    for i in "${!MUTATIONS[@]}"; do
        IFS='|' read -r name file _ <<<"${MUTATIONS[$i]}"
        case "$file $name" in
            *"${2:-}"*) printf '%-4s %-32s %s\n' "$((i + 1))" "$file" "$name" ;;
        esac
    done
    exit 0
fi

if [ "${1:-}" = "--check" ]; then
    stale=0
    for i in "${!MUTATIONS[@]}"; do
        IFS='|' read -r name file expr <<<"${MUTATIONS[$i]}"
        if [ ! -f "$file" ] || cmp -s "$file" <(sed "$expr" "$file"); then
            echo "mutation $((i + 1)) ($name) no longer applies to $file" >&2
            stale=1
        fi
    done
    [ "$stale" = 0 ] && echo "all ${#MUTATIONS[@]} mutations apply"
    exit "$stale"
fi

if [ -n "$(git status --porcelain src)" ]; then
    echo "scripts/mutate.sh: src/ has uncommitted changes; commit or stash them first" >&2
    exit 2
fi
trap 'git checkout -- src' EXIT INT TERM

only="${1:-}"
printf '%-4s %-55s %-8s %s\n' "#" "mutation" "caught" "failing tests"
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
    # The ndarray paths and their tests need the feature.
    features=""
    case "$file" in src/ndarray.rs | src/ndarray/*) features="--features ndarray" ;; esac
    # shellcheck disable=SC2086 # MUTATE_TESTS and features are lists of arguments.
    if cargo test --release --no-fail-fast $features ${MUTATE_TESTS:-} >"$log" 2>&1; then
        verdict="NO"
        first="(tests passed)"
        caught_all=1
    else
        verdict="yes"
        # Every failing test, or the first compile error.
        first=$(grep -E '^test .* FAILED$' "$log" | sed 's/^test //; s/ \.\.\. FAILED$//' | paste -sd, - | sed 's/,/, /g')
        [ -n "$first" ] || first=$(grep -m1 -E 'error(\[E[0-9]+\])?:' "$log")
    fi
    printf '%-4s %-55s %-8s %s\n' "$n" "$name" "$verdict" "$first"
    rm -f "$log"
    git checkout -- src
done
exit $caught_all
