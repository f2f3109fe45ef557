//! What the examples share.

/// Normal `f32` values, the same sequence in every run: random signs and mantissas,
/// exponents within ±30 of 1.
#[allow(dead_code)] // only the examples that time normal data take it
pub fn normal_values() -> impl FnMut() -> f32 {
    let mut state = 0x5eed_u64;
    move || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let r = state >> 11;
        f32::from_bits((r as u32 & 0x807f_ffff) | (97 + (r >> 32) as u32 % 61) << 23)
    }
}

/// This CPU as "cpu family F model M" (decimal, from /proc/cpuinfo), for the examples'
/// output; "unknown CPU" where there is no such file.
#[allow(dead_code)] // not every example names the CPU this way
pub fn cpu() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            let get = |key: &str| {
                s.lines()
                    .find(|l| l.starts_with(key))
                    .and_then(|l| l.split(':').nth(1))
                    .map(|v| v.trim().to_string())
            };
            Some(format!(
                "cpu family {} model {}",
                get("cpu family")?,
                get("model\t")?
            ))
        })
        .unwrap_or_else(|| "unknown CPU".into())
}

#[cfg(target_arch = "x86_64")]
#[allow(unused_imports)] // not every example reads or writes MXCSR
pub use fmadiv_verify::mxcsr::{ALL_FLAGS, flags_of, read_mxcsr, write_mxcsr};

/// The lengths on the command line (whole numbers, none of them 0), or `default` where there
/// are none; otherwise a message naming `example` and exit code 2.
#[allow(dead_code)] // only the examples timed by length take lengths
pub fn lengths_or(example: &str, default: &[usize]) -> Vec<usize> {
    lengths_and_options(example, &[], default).0
}

/// [`lengths_or`] with options `--NAME=N` (a whole number) for each name in `known`: the
/// lengths, and each option's value where given. An unknown option, a value that is not a
/// whole number or a length of 0 is a message naming `example` and exit code 2.
#[allow(dead_code)]
pub fn lengths_and_options(
    example: &str,
    known: &[&str],
    default: &[usize],
) -> (Vec<usize>, Vec<Option<usize>>) {
    let (lengths, options, _) = lengths_options_and_flags(example, known, &[], default);
    (lengths, options)
}

/// [`lengths_and_options`] with flags `--NAME` (no value) for each name in `flags` too:
/// whether each was given. A flag given a value is a message and exit code 2.
#[allow(dead_code)]
pub fn lengths_options_and_flags(
    example: &str,
    known: &[&str],
    flags: &[&str],
    default: &[usize],
) -> (Vec<usize>, Vec<Option<usize>>, Vec<bool>) {
    let fail = |message: String| -> ! {
        eprintln!("{example}: {message}");
        std::process::exit(2);
    };
    let mut options = vec![None; known.len()];
    let mut given = vec![false; flags.len()];
    let mut lengths = Vec::new();
    for arg in std::env::args().skip(1) {
        if let Some(option) = arg.strip_prefix("--") {
            if let Some(k) = flags.iter().position(|&f| f == option) {
                given[k] = true;
                continue;
            }
            let (name, value) = option.split_once('=').unwrap_or((option, ""));
            let Some(k) = known.iter().position(|&n| n == name) else {
                let takes: Vec<String> = known
                    .iter()
                    .map(|n| format!("--{n}=N"))
                    .chain(flags.iter().map(|f| format!("--{f}")))
                    .collect();
                fail(match takes.as_slice() {
                    [] => format!("unknown option --{option} (it takes none)"),
                    _ => format!("unknown option --{option} (it takes {})", takes.join(", ")),
                });
            };
            match value.parse() {
                Ok(v) => options[k] = Some(v),
                Err(e) => fail(format!("--{name}=N takes a whole number ({e})")),
            }
            continue;
        }
        match arg.parse() {
            Ok(0) => fail("a length of 0 times nothing".into()),
            Ok(n) => lengths.push(n),
            Err(e) => fail(format!("lengths are whole numbers ({e})")),
        }
    }
    if lengths.is_empty() {
        lengths = default.to_vec();
    }
    (lengths, options, given)
}

/// Floats per 4 KiB page, and per cache line.
#[allow(dead_code)]
pub const PAGE: usize = 1024;
#[allow(dead_code)]
pub const LINE: usize = 16;

/// An input and an output of `len` floats in one buffer, each in a span of pages of its own,
/// the output's start 2 KiB past the input's modulo 4 KiB (no 4K aliasing between them),
/// both `past` floats past a line's start ([`Apart::arrays`]).
#[allow(dead_code)] // only the examples timed by length lay out their arrays this way
pub struct Apart {
    buffer: Vec<f32>,
    page: usize,
    span: usize,
    len: usize,
}

#[allow(dead_code)]
impl Apart {
    /// The output's start past the input's modulo 4 KiB, in floats (2 KiB).
    const OUTPUT_APART: usize = PAGE / 2;

    /// Room for two arrays of `len` floats.
    pub fn new(len: usize) -> Self {
        let span = (len + Self::OUTPUT_APART + LINE).next_multiple_of(PAGE) + PAGE;
        let buffer = vec![0.0f32; 2 * span + PAGE];
        let page = buffer.as_ptr().align_offset(PAGE * 4);
        Apart {
            buffer,
            page,
            span,
            len,
        }
    }

    /// The input and the output, both `past` floats (fewer than a line's) past a line.
    pub fn arrays(&mut self, past: usize) -> (&mut [f32], &mut [f32]) {
        let (a_at, out_at) = (
            self.page + past,
            self.page + self.span + Self::OUTPUT_APART + past,
        );
        let base = self.buffer.as_ptr() as usize;
        assert!(
            [a_at, out_at]
                .iter()
                .all(|&i| (base + 4 * i) % (LINE * 4) == past * 4)
        );
        let (head, rest) = self.buffer.split_at_mut(out_at);
        (&mut head[a_at..a_at + self.len], &mut rest[..self.len])
    }
}

/// The best of `samples` timings of `rounds` passes over `windows` calls (`call(w)` for each
/// window `w` in turn), in ns per call.
#[allow(dead_code)] // only the examples timed by length time windows this way
pub fn best_ns_per_call(
    samples: usize,
    rounds: usize,
    windows: usize,
    mut call: impl FnMut(usize),
) -> f64 {
    let mut best = f64::MAX;
    for _ in 0..samples {
        let t = std::time::Instant::now();
        for _ in 0..rounds {
            for w in 0..windows {
                call(w);
            }
        }
        best = best.min(t.elapsed().as_secs_f64() / (rounds * windows) as f64);
    }
    best * 1e9
}
