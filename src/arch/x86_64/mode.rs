//! The rounding mode MXCSR holds, and division under a mode of the caller's choosing:
//! x86 facts that do not depend on the vector width (SSE is part of every x86-64 CPU).

use core::arch::x86_64::*;

/// The rounding directions, numbered as MXCSR's rounding-control field numbers them.
pub const NEAREST: u8 = 0;
/// Toward −∞.
pub const DOWN: u8 = 1;
/// Toward +∞.
pub const UP: u8 = 2;
/// Toward zero.
pub const TOWARD_ZERO: u8 = 3;

/// MXCSR's rounding-control field.
pub const ROUNDING_CONTROL: u32 = 0b11 << ROUNDING_CONTROL_SHIFT;
/// Its position.
pub const ROUNDING_CONTROL_SHIFT: u32 = 13;

/// The `asm!` template of a block that runs `$body` (template lines) with MXCSR's rounding
/// field set to `{rc}` and then loads the saved control word back, the exception flags the
/// body raised (MXCSR's low six bits) OR-ed into it: Rust code never runs under the other
/// mode. The caller binds `saved` and `set` (addresses of two `u32` locals), `tmp` (a
/// scratch register), `keep` (`const !ROUNDING_CONTROL`) and `rc` (the new field, in a
/// register). `$v` is `"v"` for the VEX forms of `stmxcsr`/`ldmxcsr`, `""` for SSE's.
/// Keeping the flags costs the second `stmxcsr`, which waits for the body's last division:
/// about 10 ns a call on family 0x19, against a region that drops them.
macro_rules! under_rounding {
    ($v:literal; $($body:literal),+ $(,)?) => {
        concat!(
            $v, "stmxcsr [{saved}]\n",
            "mov {tmp:e}, [{saved}]\n",
            "and {tmp:e}, {keep}\n",
            "or {tmp:e}, {rc:e}\n",
            "mov [{set}], {tmp:e}\n",
            $v, "ldmxcsr [{set}]\n",
            $($body, "\n",)+
            $v, "stmxcsr [{set}]\n",
            "mov {tmp:e}, [{set}]\n",
            "and {tmp:e}, 0x3f\n",
            "or [{saved}], {tmp:e}\n",
            $v, "ldmxcsr [{saved}]",
        )
    };
}
pub(crate) use under_rounding;

/// Whether MXCSR rounds to nearest now. `1 + 0.75 ulp` and `-(1 + 0.75 ulp)` round to
/// `1 + ulp` and `-(1 + ulp)` under round-to-nearest only (down gives `1`, up `-1`, toward
/// zero both). One SSE addition of values hidden from the optimiser (so that it runs, under
/// the MXCSR in force), a compare and a branch: no `stmxcsr`, which waits for every
/// operation in flight (measured on family 0x19: 20–30% of a 64-element `div`; this probe:
/// about 5%). Flush-to-zero and denormals-are-zero do not touch these normal values.
#[inline(always)]
pub fn rounds_to_nearest() -> bool {
    // 0.75·2^-23: three quarters of an ulp of 1.
    const THREE_QUARTERS_ULP: f32 = 3.0 / (1u32 << 25) as f32;
    // SAFETY: SSE and SSE2 are part of every x86-64 CPU.
    unsafe {
        let mut x = _mm_setr_ps(1.0, -1.0, 0.0, 0.0);
        // SAFETY: the asm is empty; it only claims to read and write `x`'s register.
        core::arch::asm!("/* {0} */", inout(xmm_reg) x, options(pure, nomem, nostack, preserves_flags));
        let sum = _mm_add_ps(
            x,
            _mm_setr_ps(THREE_QUARTERS_ULP, -THREE_QUARTERS_ULP, 0.0, 0.0),
        );
        let nearest = _mm_castsi128_ps(_mm_setr_epi32(0x3f80_0001, 0xbf80_0001u32 as i32, 0, 0));
        let same = _mm_cmpeq_epi32(_mm_castps_si128(sum), _mm_castps_si128(nearest));
        _mm_movemask_ps(_mm_castsi128_ps(same)) == 0xf
    }
}

/// MXCSR's invalid-operation flag.
pub const INVALID: u32 = 1 << 0;
/// MXCSR's denormal-operand flag (set when an operand is subnormal and DAZ is off).
pub const DENORMAL: u32 = 1 << 1;
/// MXCSR's overflow flag.
pub const OVERFLOW: u32 = 1 << 3;
/// MXCSR's underflow flag (set, with exceptions masked, for a tiny inexact result, and for
/// every result flush-to-zero flushes).
pub const UNDERFLOW: u32 = 1 << 4;
/// The flags that void a stretch of work judged by them (the `Divisor`'s flag-checked
/// chunks, the directed functions' flag-checked chunks).
pub const VOIDING: u32 = INVALID | OVERFLOW | UNDERFLOW;
/// All six sticky exception flags.
pub const ALL_FLAGS: u32 = 0x3f;
/// Denormals-are-zero: subnormal operands read as zeros.
pub const DENORMALS_ARE_ZERO: u32 = 1 << 6;
/// Flush-to-zero: tiny results written as zeros.
pub const FLUSH_TO_ZERO: u32 = 1 << 15;

/// MXCSR now. `stmxcsr` waits for every operation in flight: read it once per stretch of
/// work, not per vector.
#[inline]
pub fn read_mxcsr() -> u32 {
    let mut csr = 0u32;
    // SAFETY: stmxcsr stores the 32-bit register to the given local. (Not `nomem`, so the
    // compiler keeps every store before it ahead of it; where the order of loads after it
    // matters, the directed loops' fenced reads hand the input pointers through the block.)
    unsafe {
        core::arch::asm!("stmxcsr [{}]", in(reg) &mut csr, options(nostack, preserves_flags))
    };
    csr
}

/// Loads `csr`, whose control bits must be MXCSR's own: only the flags may differ.
#[inline(always)]
fn load_flags_of(csr: u32) {
    // SAFETY: only the sticky status flags change (the callers pass MXCSR's rounding,
    // masks, FTZ and DAZ back as they were), which Rust's floating-point model allows.
    unsafe { core::arch::asm!("ldmxcsr [{}]", in(reg) &csr, options(nostack, preserves_flags)) };
}

/// Writes MXCSR's exception flags, keeping its control bits.
#[inline]
pub fn write_flags(flags: u32) {
    load_flags_of((read_mxcsr() & !ALL_FLAGS) | (flags & ALL_FLAGS));
}

/// MXCSR's flags as `after` holds them, less the ones that void a flag-checked chunk and
/// the denormal-operand flag (a subnormal intermediate of the voided attempt, read by the
/// next operation, raises it; the divider raises it again where an input is subnormal).
/// Out of line: a voided chunk is the rare path of both flag-checked loops.
#[cold]
#[inline(never)]
pub fn drop_voiding_flags(after: u32) {
    write_flags(after & !(VOIDING | DENORMAL));
}

/// `out[i] = a[i] / b[i]` by SSE's `divss` under rounding direction `mode`, MXCSR set once
/// and put back inside one `asm!` block (SSE is part of every x86-64 CPU): the directed
/// functions where AVX2+FMA is missing or not in use. Panics if the lengths differ.
pub fn div_in_mode_sse(a: &[f32], b: &[f32], out: &mut [f32], mode: u8) {
    assert!(a.len() == b.len() && b.len() == out.len());
    if out.is_empty() {
        return;
    }
    let mut saved = 0u32;
    let mut set = 0u32;
    // SAFETY: the loop reads `len` floats of `a` and `b` and writes `len` floats of `out`,
    // all of that length (checked); MXCSR is read, set and restored inside the block, with
    // the flags the divisions raised kept; the locals are valid.
    unsafe {
        core::arch::asm!(
            under_rounding!(
                "";
                // The loop starts a 64-byte line (as `avx2::region`).
                ".p2align 6",
                "2:",
                "movss {t}, [{a}]",
                "divss {t}, [{b}]",
                "movss [{out}], {t}",
                "add {a}, 4",
                "add {b}, 4",
                "add {out}, 4",
                "dec {n}",
                "jnz 2b",
            ),
            saved = in(reg) &mut saved,
            set = in(reg) &mut set,
            tmp = out(reg) _,
            keep = const !ROUNDING_CONTROL,
            rc = in(reg) u32::from(mode) << ROUNDING_CONTROL_SHIFT,
            a = inout(reg) a.as_ptr() => _,
            b = inout(reg) b.as_ptr() => _,
            out = inout(reg) out.as_mut_ptr() => _,
            n = inout(reg) out.len() => _,
            t = out(xmm_reg) _,
            options(nostack),
        );
    }
}
