//! A plan measured on request and kept in a file: `FMADIV_PLAN_FILE=PATH`.
//!
//! `fmadiv plan --measure` times the schedules on the machine at hand and writes the
//! choices it measured to a file; a process started with `FMADIV_PLAN_FILE` naming it runs
//! those instead of its table row (FFTW's "wisdom"). A file is used only where it was made
//! for this CPU and this version of the crate (its `for:` line); the check of this CPU's
//! `rcpps` runs before it is read, so a file never enables the kernels where they are not
//! proven. A file that is missing, made for another CPU, or not a plan is reported in the
//! plan and once on stderr, left as it is, and the table row runs.

use std::path::Path;

use super::{Choices, DivisorChoices};
use crate::cpu::Cpu;
use crate::schedule::Schedule;

/// The environment variable that names the plan file (read once, at the first division).
pub const PLAN_FILE_ENV: &str = "FMADIV_PLAN_FILE";

/// The first line of every plan file, with the format's version.
const MAGIC: &str = "# fmadiv plan, format 4";
/// The last line: a file cut short lacks it, even where its last line still parses.
const END: &str = "# end of plan";

/// Why a file gave no plan.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum NotLoaded {
    /// There is no such file.
    Missing,
    /// A plan for another CPU or version (what it was for).
    Foreign(String),
    /// Not a plan this version reads, or unreadable.
    Unreadable(String),
}

impl core::fmt::Display for NotLoaded {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            NotLoaded::Missing => f.write_str("no such file (`fmadiv plan --measure` writes one)"),
            NotLoaded::Foreign(why) => write!(f, "{why}, not for this CPU and version"),
            NotLoaded::Unreadable(why) => f.write_str(why),
        }
    }
}

/// What a plan file must be made for to be used here.
fn identity(cpu: &Cpu) -> String {
    format!(
        "fmadiv {} | {} | {} | cpuid {} | L1d {}",
        crate::build_info::VERSION,
        cpu.vendor_id(),
        cpu.brand(),
        cpu.signature(),
        cpu.l1d_bytes()
            .map_or("unknown".to_string(), |b| format!("{b} bytes"))
    )
}

/// A length, `max` for "never".
fn length(n: usize) -> String {
    match n {
        usize::MAX => "max".to_string(),
        n => n.to_string(),
    }
}

/// The text of a plan file holding `choices` for `cpu`, with `note` (what was measured) as
/// comment lines.
pub(super) fn render(choices: &Choices, cpu: &Cpu, note: &str) -> String {
    let schedules = |s: &[Schedule; 2]| format!("{} {}", s[0].name(), s[1].name());
    let d = &choices.divisor;
    let mut lines = vec![MAGIC.to_string()];
    lines.extend(note.lines().map(|l| format!("# {l}")));
    lines.extend([
        format!("for: {}", identity(cpu)),
        format!("div: {}", schedules(&choices.div)),
        format!("recip: {}", schedules(&choices.recip)),
        format!("divisor.sequence_from: {}", length(d.sequence_from)),
        format!("divisor.first_proof_from: {}", length(d.first_proof_from)),
        format!("divisor.in_place_from: {}", length(d.in_place_from)),
        format!(
            "divisor.window_if_flags_held_below: {}",
            length(d.window_if_flags_held_below)
        ),
        END.to_string(),
    ]);
    lines.join("\n") + "\n"
}

/// Every key of a plan file.
const KEYS: [&str; 7] = [
    "for",
    "div",
    "recip",
    "divisor.sequence_from",
    "divisor.first_proof_from",
    "divisor.in_place_from",
    "divisor.window_if_flags_held_below",
];

/// The choices in `text`, if it is a plan file made for `cpu`.
pub(super) fn parse(text: &str, cpu: &Cpu) -> Result<Choices, NotLoaded> {
    let bad = NotLoaded::Unreadable;
    if text.lines().next() != Some(MAGIC) {
        return Err(bad(format!("its first line is not {MAGIC:?}")));
    }
    if text.lines().last() != Some(END) {
        return Err(bad(format!(
            "it is cut short: its last line is not {END:?}"
        )));
    }
    let mut fields = std::collections::BTreeMap::new();
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let (key, value) = line
            .split_once(": ")
            .ok_or_else(|| bad(format!("not a `key: value` line: {line:?}")))?;
        if !KEYS.contains(&key) {
            return Err(bad(format!("unknown line {key:?}")));
        }
        if fields.insert(key, value).is_some() {
            return Err(bad(format!("{key:?} given twice")));
        }
    }
    let field = |key: &str| {
        fields
            .get(key)
            .copied()
            .ok_or_else(|| bad(format!("no {key:?} line")))
    };
    let made_for = field("for")?;
    if made_for != identity(cpu) {
        return Err(NotLoaded::Foreign(format!("a plan for {made_for:?}")));
    }
    let schedules = |key: &str| -> Result<[Schedule; 2], NotLoaded> {
        let value = field(key)?;
        let parsed: Option<Vec<Schedule>> = value
            .split_whitespace()
            .map(|w| Schedule::from_name(w).ok())
            .collect();
        parsed
            .and_then(|v| <[Schedule; 2]>::try_from(v).ok())
            .ok_or_else(|| bad(format!("{key}: {value:?} is not two schedules")))
    };
    let number = |key: &str| -> Result<usize, NotLoaded> {
        let value = field(key)?;
        let max = (value == "max").then_some(usize::MAX);
        let n = max.or_else(|| value.parse().ok());
        n.ok_or_else(|| bad(format!("{key}: {value:?} is not a length or max")))
    };
    Ok(Choices {
        div: schedules("div")?,
        recip: schedules("recip")?,
        divisor: DivisorChoices {
            sequence_from: number("divisor.sequence_from")?,
            first_proof_from: number("divisor.first_proof_from")?,
            in_place_from: number("divisor.in_place_from")?,
            window_if_flags_held_below: number("divisor.window_if_flags_held_below")?,
        },
    })
}

/// The choices in the file at `path`, if it is a plan made for `cpu`.
pub(super) fn load(path: &Path, cpu: &Cpu) -> Result<Choices, NotLoaded> {
    match std::fs::read_to_string(path) {
        Ok(text) => parse(&text, cpu),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(NotLoaded::Missing),
        Err(e) => Err(NotLoaded::Unreadable(format!("cannot read it: {e}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schedule::mixed;

    fn sample() -> Choices {
        Choices {
            div: [Schedule::Kernel, mixed(4)],
            recip: [Schedule::Divider, mixed(16)],
            divisor: DivisorChoices {
                sequence_from: 512,
                first_proof_from: 16384,
                in_place_from: usize::MAX,
                window_if_flags_held_below: 2048,
            },
        }
    }

    #[test]
    fn a_plan_reads_back_as_itself() {
        let cpu = Cpu::this();
        let text = render(&sample(), &cpu, "measured: a test\nsecond line");
        assert_eq!(parse(&text, &cpu), Ok(sample()));
        assert_eq!(
            render(
                &parse(&text, &cpu).unwrap(),
                &cpu,
                "measured: a test\nsecond line"
            ),
            text
        );
    }

    #[test]
    fn a_plan_for_another_cpu_or_version_is_foreign() {
        let cpu = Cpu::this();
        let text = render(&sample(), &cpu, "");
        let other = text.replace(&format!("cpuid {}", cpu.signature()), "cpuid 0x6/0x55/0x4");
        assert!(matches!(parse(&other, &cpu), Err(NotLoaded::Foreign(_))));
        let older = text.replace(crate::build_info::VERSION, "0.0.1");
        assert!(matches!(parse(&older, &cpu), Err(NotLoaded::Foreign(_))));
    }

    #[test]
    fn every_damaged_file_is_refused_with_its_reason() {
        let cpu = Cpu::this();
        let text = render(&sample(), &cpu, "note");
        // Every cut point of a whole file.
        for cut in 0..text.len() - 1 {
            if text.is_char_boundary(cut) {
                let r = parse(&text[..cut], &cpu);
                assert!(
                    matches!(r, Err(NotLoaded::Unreadable(_))),
                    "cut at {cut}: {r:?}"
                );
            }
        }
        let cases = [
            (
                "div: divider divider",
                "div: divider mix-3",
                "is not two schedules",
            ),
            (
                "div: divider divider",
                "div: divider",
                "is not two schedules",
            ),
            (
                "divisor.sequence_from: 512",
                "divisor.sequence_from: -1",
                "not a length",
            ),
            (
                "divisor.in_place_from: max\n",
                "divisor.in_place_from: max\nspeed: 3\n",
                "unknown line",
            ),
            (
                "recip: divider mix-16\n",
                "recip: divider mix-16\nrecip: divider divider\n",
                "given twice",
            ),
            (
                "divisor.in_place_from: max\n",
                "",
                "no \"divisor.in_place_from\" line",
            ),
            (
                "divisor.window_if_flags_held_below: 2048\n",
                "",
                "no \"divisor.window_if_flags_held_below\" line",
            ),
        ];
        let text = render(
            &Choices {
                div: [Schedule::Divider; 2],
                ..sample()
            },
            &cpu,
            "",
        );
        for (from, to, why) in cases {
            assert!(text.contains(from), "{from}");
            let damaged = text.replacen(from, to, 1);
            match parse(&damaged, &cpu) {
                Err(NotLoaded::Unreadable(reason)) => assert!(reason.contains(why), "{reason}"),
                other => panic!("{to:?}: {other:?}"),
            }
        }
    }

    #[test]
    fn a_missing_file_is_missing() {
        let path = std::env::temp_dir().join(format!("fmadiv-no-plan-{}", std::process::id()));
        assert_eq!(load(&path, &Cpu::this()), Err(NotLoaded::Missing));
    }
}
