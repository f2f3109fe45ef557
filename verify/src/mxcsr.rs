//! The hardware's quotient under a rounding mode, independent of the library: SSE's `divss`
//! over a slice with MXCSR's rounding field set once and put back inside one `asm!` block
//! (every x86-64 CPU has SSE). What the tests, the self-check and the rounding benchmark
//! compare the directed functions with.

#[cfg(target_arch = "x86_64")]
use fmadiv::Rounding;

/// MXCSR's rounding-control field (bits 13 and 14).
#[cfg(target_arch = "x86_64")]
const ROUNDING_FIELD: u32 = 0b11 << 13;
/// MXCSR's six sticky exception flags (bits 0-5: IE DE ZE OE UE PE).
pub const ALL_FLAGS: u32 = 0x3f;

/// MXCSR now.
#[cfg(target_arch = "x86_64")]
pub fn read_mxcsr() -> u32 {
    let mut csr = 0u32;
    // SAFETY: stmxcsr only stores the control register to the given, valid address.
    unsafe { core::arch::asm!("stmxcsr [{}]", in(reg) &mut csr, options(nostack)) };
    csr
}

/// Loads `csr` into MXCSR: a caller sets another mode or other flags only around
/// non-inlined arithmetic and restores the original before comparing anything.
#[cfg(target_arch = "x86_64")]
pub fn write_mxcsr(csr: u32) {
    // SAFETY: ldmxcsr loads a valid control word (MXCSR as read, its flags, rounding, FTZ or
    // DAZ bits changed); the caller restores the original before comparing anything.
    unsafe { core::arch::asm!("ldmxcsr [{}]", in(reg) &csr, options(nostack)) };
}

/// The sticky flags `f` leaves, run with the flags clear (the caller's put back after).
/// Not inlined, so that `f`'s arithmetic stays between the two MXCSR accesses.
#[cfg(target_arch = "x86_64")]
#[inline(never)]
pub fn flags_of(f: impl FnOnce()) -> u32 {
    let original = read_mxcsr();
    write_mxcsr(original & !ALL_FLAGS);
    f();
    let flags = read_mxcsr() & ALL_FLAGS;
    write_mxcsr(original);
    flags
}

/// The `asm!` template of a block that runs `$body` (template lines) with MXCSR's rounding
/// field set to `{rc}`, then loads the saved control word back (the flags the body raised
/// are dropped: the references do not read them). The caller binds `saved` and `set`
/// (addresses of two `u32` locals), `tmp` (a scratch register), `keep` (the mask of the
/// other fields, a `const`) and `rc` (the new field, in a register). `$v` is `"v"` for the
/// VEX forms of `stmxcsr`/`ldmxcsr`, `""` for SSE's. Written apart from the library's own
/// (the references must not share code with what they check).
#[macro_export]
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
            $v, "ldmxcsr [{saved}]",
        )
    };
}

/// `a[i] / b[i]` by `divss` under rounding direction `mode`, MXCSR's other bits
/// (flush-to-zero, denormals-are-zero) as they are. Panics if the lengths differ.
#[cfg(target_arch = "x86_64")]
pub fn divide_in_mode(a: &[f32], b: &[f32], mode: Rounding) -> Vec<f32> {
    assert_eq!(a.len(), b.len());
    let mut out = vec![0.0f32; a.len()];
    if a.is_empty() {
        return out;
    }
    let (mut saved, mut set) = (0u32, 0u32);
    // SAFETY: reads and writes `a.len()` floats of three slices of that length; MXCSR is
    // saved, its rounding field set, and restored within the block.
    unsafe {
        core::arch::asm!(
            crate::under_rounding!(
                "";
                "2:",
                "movss {x}, [{a}]",
                "divss {x}, [{b}]",
                "movss [{o}], {x}",
                "add {a}, 4",
                "add {b}, 4",
                "add {o}, 4",
                "dec {n}",
                "jnz 2b",
            ),
            saved = in(reg) &mut saved,
            set = in(reg) &mut set,
            tmp = out(reg) _,
            keep = const !ROUNDING_FIELD,
            rc = in(reg) u32::from(mode.control()) << 13,
            a = inout(reg) a.as_ptr() => _,
            b = inout(reg) b.as_ptr() => _,
            o = inout(reg) out.as_mut_ptr() => _,
            n = inout(reg) a.len() => _,
            x = out(xmm_reg) _,
            options(nostack),
        );
    }
    out
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;

    /// 1/3 rounds down under round-down and toward zero, up under round-up; nearest
    /// agrees with `/`; and MXCSR is as it was afterwards (the next `/` rounds to nearest).
    #[test]
    fn each_mode_rounds_its_way_and_mxcsr_is_put_back() {
        let (a, b) = ([1.0f32, -1.0], [3.0f32, 3.0]);
        let nearest = 1.0f32 / 3.0;
        let below = f32::from_bits(0x3eaa_aaaa);
        let above = f32::from_bits(0x3eaa_aaab);
        let q = |m| divide_in_mode(&a, &b, m);
        // 1/3 = 0x1.555555...p-2: its nearest float is the one above.
        assert_eq!(nearest.to_bits(), above.to_bits());
        assert_eq!(q(Rounding::Nearest)[0].to_bits(), nearest.to_bits());
        assert_eq!(q(Rounding::Down), [below, -above]);
        assert_eq!(q(Rounding::Up), [above, -below]);
        assert_eq!(q(Rounding::TowardZero), [below, -below]);
        assert_eq!(
            (std::hint::black_box(1.0f32) / 3.0).to_bits(),
            nearest.to_bits()
        );
    }
}
