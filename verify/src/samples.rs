//! Sample inputs shared by the tests, the self-check and the benchmarks.

/// SplitMix64: small, seeded, good enough to draw bit patterns.
#[derive(Clone, Debug)]
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// A float with 32 random bits.
    pub fn next_f32_bits(&mut self) -> f32 {
        f32::from_bits(self.next_u64() as u32)
    }
    /// A normal float of random sign within ±30 binades of 1 ([`normal_from`]).
    pub fn next_normal(&mut self) -> f32 {
        normal_from(self.next_u64())
    }
}

/// A normal float of random sign and fraction within ±30 binades of 1, from 64 random bits:
/// the quotient of two is normal, and both lie inside the kernel's input window.
pub fn normal_from(r: u64) -> f32 {
    // Sign and fraction from the low word; a biased exponent 97..=157 from the high word.
    f32::from_bits((r as u32 & 0x807f_ffff) | (97 + (r >> 32) as u32 % 61) << 23)
}

/// Positive edge values: zeros, subnormals, the normal range's ends, powers of two near
/// 2^±126 and 2^±127, all-ones and near-all-ones mantissas, infinities, NaNs with payloads.
/// [`edge_values`] adds the negatives.
pub const EDGE_BITS: &[u32] = &[
    0x0000_0000, // 0
    0x0000_0001, // smallest subnormal
    0x0000_0002,
    0x0040_0000, // 2^-127 (subnormal)
    0x007f_fffe,
    0x007f_ffff, // largest subnormal
    0x0080_0000, // MIN_POSITIVE = 2^-126
    0x0080_0001,
    0x0080_0002,
    0x00ff_ffff, // all-ones mantissa at 2^-126
    0x0100_0000, // 2^-125
    0x0100_0001,
    0x3f7f_fffe,
    0x3f7f_ffff, // 1 - 2^-24
    0x3f80_0000, // 1
    0x3f80_0001,
    0x3f80_0002,
    0x3fc0_0000, // 1.5
    0x3fff_7fff, // just below the near-all-ones divisors
    0x3fff_8000, // first near-all-ones divisor
    0x3fff_fffd,
    0x3fff_fffe,
    0x3fff_ffff, // 0x1.fffffep+0: the all-ones divisor
    0x4000_0000, // 2
    0x4040_0000, // 3
    0x3dcc_cccd, // 0.1
    0x3eaa_aaab, // 1/3
    0x4b7f_ffff, // 2^24 - 1
    0x7e00_0000, // 2^125
    0x7e7f_ffff, // just below 2^126
    0x7e80_0000, // 2^126
    0x7e80_0001,
    0x7eff_ffff, // all-ones mantissa at 2^126
    0x7f00_0000, // 2^127
    0x7f00_0001,
    0x7f7f_fffe,
    0x7f7f_ffff, // MAX
    0x7f80_0000, // inf
    0x7f80_0001, // signalling NaN, smallest payload
    0x7fa0_0000, // signalling NaN
    0x7fbf_ffff, // signalling NaN, largest payload
    0x7fc0_0000, // quiet NaN
    0x7fc1_2345, // quiet NaN with payload
    0x7fff_ffff, // quiet NaN, all payload bits
];

/// Both signs of every edge value.
pub fn edge_values() -> Vec<f32> {
    EDGE_BITS
        .iter()
        .flat_map(|&b| [f32::from_bits(b), f32::from_bits(b | 0x8000_0000)])
        .collect()
}

/// Every pair of [`edge_values`], as dividends and divisors of equal length.
pub fn edge_pairs() -> (Vec<f32>, Vec<f32>) {
    let edges = edge_values();
    let a = edges
        .iter()
        .flat_map(|&x| edges.iter().map(move |_| x))
        .collect();
    let b = edges.iter().flat_map(|_| edges.iter().copied()).collect();
    (a, b)
}

/// `dst.copy_from_slice(src)` by a plain vector loop, for benchmarks that restore their
/// dividends before each in-place division. glibc's `memcpy` moves more than 2 KiB with
/// `rep movsb`, which on AMD family 0x19 can run ten times slower than this loop when
/// source and destination are close modulo 4 KiB (8 KiB measured at 3.7 µs against
/// 0.2 µs): the copy, on both sides of a comparison, would otherwise drown the division
/// it is there for.
///
/// # Panics
/// If the lengths differ.
#[inline(never)]
pub fn restore(dst: &mut [f32], src: &[f32]) {
    assert_eq!(dst.len(), src.len(), "samples::restore: length mismatch");
    #[cfg(fmadiv_x86)]
    {
        use core::arch::x86_64::{__m128, _mm_loadu_ps, _mm_storeu_ps};
        let full = dst.len() - dst.len() % 4;
        let mut i = 0;
        while i < full {
            // SAFETY: i + 4 <= len, inside both slices; SSE is part of every x86-64 CPU.
            let mut v: __m128 = unsafe { _mm_loadu_ps(src.as_ptr().add(i)) };
            // An empty asm over the vector: the compiler can no longer see a copy loop and
            // turn it back into a call to `memcpy`.
            // SAFETY: the asm is empty; it only claims to read and write `v`'s register.
            unsafe {
                core::arch::asm!("/* {0} */", inout(xmm_reg) v, options(pure, nomem, nostack))
            };
            // SAFETY: as the load.
            unsafe { _mm_storeu_ps(dst.as_mut_ptr().add(i), v) };
            i += 4;
        }
        dst[full..].copy_from_slice(&src[full..]);
    }
    #[cfg(not(fmadiv_x86))]
    dst.copy_from_slice(src);
}

/// Floats per 64-byte cache line.
const CACHE_LINE_FLOATS: usize = 16;
/// Gaps between the arrays, in floats: cache-line aligned, and different modulo 4 KiB (1024
/// floats), so that the loads and stores of the three arrays meet at different offsets of
/// their pages from layout to layout (4K aliasing changes these loops' speed by 10–30%).
const LAYOUT_GAPS: [(usize, usize); 4] = [(16, 16), (272, 528), (528, 784), (784, 272)];

/// Separate allocations the layouts rotate over. A process keeps the physical pages its
/// buffers lie on, and on the shared machines some pages slow the loops on them for as long
/// as the process runs (BENCHMARKS.md, "One process is one sample"): so each round's arrays
/// lie in another allocation as well as another layout. Three, coprime to the four layouts,
/// so that twelve rounds meet every layout in every allocation.
const PLACES: usize = 3;
/// Floats of room past each allocation's arrays, so that the next allocation's arrays start
/// on another page (a page is 1024 floats).
const PLACE_SLACK: usize = 1024;

/// Buffers holding three arrays (dividends, divisors, output) at several relative layouts,
/// each in three separate allocations (`PLACES`), for measurements that layout and the pages
/// under the arrays must not decide: `fmadiv plan --measure`, the floors and rounding
/// benchmarks rotate `k` from round to round.
///
/// Every layout's output overlaps the other layouts' dividends or divisors, so
/// [`Layouts::arrays`] copies the inputs in each time: without it, the quotients of one
/// round become the divisors of the next, their range widens round after round, and the
/// measured loops end up timing out-of-window lanes and set exception flags.
pub struct Layouts {
    /// Each allocation, and the offset of its first array: its first cache line, and the
    /// floats past it that [`Layouts::past_line`] asks for.
    places: Vec<(Vec<f32>, usize)>,
    a: Vec<f32>,
    b: Vec<f32>,
}

/// Where the system allocator puts a `Vec<f32>`: 16 bytes past a cache line's start (its
/// chunk header), so that a 64-byte vector spans two lines.
pub const ALLOCATOR_PAST_LINE: usize = 16;

impl Layouts {
    /// Room for every layout of three arrays of `a.len()` floats, the first on a cache
    /// line's start (the others too where `a.len()` is a whole number of lines: the gaps
    /// are), in each of the three allocations; every layout's inputs are `a` and `b`.
    pub fn new(a: Vec<f32>, b: Vec<f32>) -> Layouts {
        Layouts::past_line(a, b, 0)
    }

    /// [`Layouts::new`] with the arrays `bytes` past a cache line's start instead (the gaps
    /// between them unchanged): [`ALLOCATOR_PAST_LINE`] where a `Vec<f32>` usually lies.
    /// Panics unless `bytes` is a multiple of 4 below 64 (see [`check_past_line`]).
    pub fn past_line(a: Vec<f32>, b: Vec<f32>, bytes: usize) -> Layouts {
        assert_eq!(a.len(), b.len(), "Layouts::new: length mismatch");
        if let Err(message) = check_past_line(bytes) {
            panic!("Layouts::past_line: {message}");
        }
        let widest = LAYOUT_GAPS.iter().map(|(g, h)| g + h).max().unwrap_or(0);
        let places = (0..PLACES)
            .map(|_| {
                let buffer =
                    vec![0.0f32; 3 * a.len() + widest + 2 * CACHE_LINE_FLOATS + PLACE_SLACK];
                let line = buffer
                    .as_ptr()
                    .align_offset(CACHE_LINE_FLOATS * 4)
                    .min(CACHE_LINE_FLOATS);
                (buffer, line + bytes / 4)
            })
            .collect();
        Layouts { places, a, b }
    }

    /// The three arrays of layout `k` (any `k`: the layouts repeat, each in turn in another
    /// allocation), the inputs copied in.
    pub fn arrays(&mut self, k: usize) -> (&[f32], &[f32], &mut [f32]) {
        let (gap_b, gap_out) = LAYOUT_GAPS[k % LAYOUT_GAPS.len()];
        let len = self.a.len();
        let (buffer, skip) = &mut self.places[k % PLACES];
        let rest = &mut buffer[*skip..];
        let (a, rest) = rest.split_at_mut(len + gap_b);
        let (b, rest) = rest.split_at_mut(len + gap_out);
        a[..len].copy_from_slice(&self.a);
        b[..len].copy_from_slice(&self.b);
        (&a[..len], &b[..len], &mut rest[..len])
    }
}

/// Whether `bytes` past a cache line's start is a place for an `f32` array: a multiple of 4
/// (an `f32`'s alignment) below 64 (a line).
pub fn check_past_line(bytes: usize) -> Result<(), String> {
    match bytes.is_multiple_of(4) && bytes < CACHE_LINE_FLOATS * 4 {
        true => Ok(()),
        false => Err(format!(
            "an array can start 0 to 60 bytes past a cache line, a multiple of 4 (an f32's \
             alignment): not {bytes}"
        )),
    }
}

/// The seed for random tests: `FMADIV_TEST_SEED` or a fixed default, printed either way.
///
/// # Panics
/// If `FMADIV_TEST_SEED` is set to anything but a decimal `u64` (never silently the default).
pub fn seed() -> u64 {
    let seed = match std::env::var("FMADIV_TEST_SEED") {
        Ok(v) => v
            .parse()
            .unwrap_or_else(|_| panic!("FMADIV_TEST_SEED={v:?} is not a decimal u64")),
        Err(_) => 0x5eed_f00d_1234_5678,
    };
    eprintln!("random seed: {seed} (set FMADIV_TEST_SEED to change)");
    seed
}

/// Says once per test process that something was skipped on this CPU (never a silent
/// pass).
pub fn skipped_once(what: &str) {
    use std::collections::HashSet;
    use std::sync::Mutex;
    static SAID: Mutex<Option<HashSet<String>>> = Mutex::new(None);
    let mut said = SAID.lock().unwrap_or_else(|e| e.into_inner());
    if said
        .get_or_insert_with(HashSet::new)
        .insert(what.to_string())
    {
        // Straight to the process's stderr: the test harness captures `eprintln!` of
        // passing tests, and a skip must never look like a silent pass.
        use std::io::Write;
        let _ = writeln!(std::io::stderr(), "SKIPPED on this CPU: {what}");
    }
}

#[cfg(test)]
mod tests {
    use super::{ALLOCATOR_PAST_LINE, LAYOUT_GAPS, Layouts, PLACES, check_past_line};

    #[test]
    fn past_line_puts_every_array_that_far_past_a_line_in_every_layout() {
        // A whole number of lines (the gaps between the arrays are too).
        let n = 1024;
        let (a, b) = (vec![1.0f32; n], vec![2.0f32; n]);
        for bytes in [0, 4, ALLOCATOR_PAST_LINE, 60] {
            let mut layouts = Layouts::past_line(a.clone(), b.clone(), bytes);
            for k in 0..4 {
                let (x, y, out) = layouts.arrays(k);
                for p in [x.as_ptr(), y.as_ptr(), out.as_ptr()] {
                    assert_eq!(p as usize % 64, bytes, "layout {k}, {bytes} bytes past");
                }
            }
        }
        for bad in [2, 18, 64, 100] {
            assert!(check_past_line(bad).is_err(), "{bad} accepted");
        }
    }

    #[test]
    fn the_rounds_rotate_over_separate_pages_and_every_layout_meets_every_place() {
        let n = 256;
        let mut layouts = Layouts::new(vec![1.0f32; n], vec![2.0f32; n]);
        // The pages each round's three arrays touch.
        let pages = |layouts: &mut Layouts, k: usize| {
            let (x, y, out) = layouts.arrays(k);
            let mut pages: Vec<usize> = [x.as_ptr_range(), y.as_ptr_range(), out.as_ptr_range()]
                .iter()
                .flat_map(|r| (r.start as usize >> 12)..=((r.end as usize - 1) >> 12))
                .collect();
            pages.dedup();
            pages
        };
        for k in 0..PLACES {
            for j in 0..k {
                let (p, q) = (pages(&mut layouts, k), pages(&mut layouts, j));
                assert!(
                    p.iter().all(|page| !q.contains(page)),
                    "rounds {k} and {j} share a page"
                );
            }
        }
        // Every layout in every allocation within PLACES * LAYOUT_GAPS.len() rounds.
        let mut seen = std::collections::HashSet::new();
        for k in 0..PLACES * LAYOUT_GAPS.len() {
            let (x, y, out) = layouts.arrays(k);
            seen.insert((x.as_ptr(), y.as_ptr(), out.as_ptr()));
        }
        assert_eq!(seen.len(), PLACES * LAYOUT_GAPS.len());
    }

    #[test]
    fn every_layout_gets_the_inputs_whatever_the_others_wrote() {
        let n = 1500;
        let a: Vec<f32> = (0..n).map(|i| i as f32).collect();
        let b: Vec<f32> = (0..n).map(|i| -(i as f32)).collect();
        let mut layouts = Layouts::new(a.clone(), b.clone());
        for k in 0..8 {
            let (x, y, out) = layouts.arrays(k);
            assert_eq!((x, y), (&a[..], &b[..]), "layout {k}");
            // Each layout's output overlaps other layouts' inputs: write over it all.
            out.fill(f32::NAN);
        }
    }
}
