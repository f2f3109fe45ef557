//! A plan kept in a file between processes: `FMADIV_PLAN_FILE=PATH`.
//!
//! A calibration decides close calls by measurement, so two fresh processes can land on
//! different sides of the threshold where a candidate measures near it (the plan's
//! `Display` shows such near ties). Where the same choice in every process matters more
//! than a fresh measurement — reproducible benchmarks, services started many times —
//! `FMADIV_PLAN_FILE` names a file that keeps one calibration's decisions: the first
//! process calibrates and writes it, later ones read it instead of calibrating (FFTW's
//! "wisdom", for one plan).
//!
//! A file is used only where it was made for this CPU and this version of the crate (its
//! `for:` line: vendor, brand, cpuid signature, L1 data cache, crate version); a file made
//! for another is replaced by this process's calibration. The check of this CPU's `rcpps`
//! runs in every process before the file is read: a file never enables the kernels where
//! they are not proven. A file that is not a plan (or that no longer parses) is reported
//! and left as it is; so is one that cannot be read. Writing goes to a temporary file in
//! the same folder, renamed over the target: a reader never sees half a plan.

use std::path::{Path, PathBuf};

use super::{DivisorBreakEven, Plan};
use crate::schedule::Schedule;

/// The environment variable that names the plan file (read once, at the first division).
pub const PLAN_FILE_ENV: &str = "FMADIV_PLAN_FILE";

/// The first line of every plan file, with the format's version.
const MAGIC: &str = "# fmadiv plan, format 1";
/// The last line of every plan file: a file cut short (not by us: we rename whole files
/// into place) lacks it, even where its last line still parses.
const END: &str = "# end of plan";

/// What became of the plan file this process was given.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum FileUse {
    /// The plan was read from it: no calibration here.
    Loaded(PathBuf),
    /// This process calibrated and wrote it (replacing a plan made for another CPU or
    /// version, where `replaced` says so). Set before the calibration ends, as what is
    /// to be done; the plan's maker writes the file once the plan is whole.
    Saved {
        path: PathBuf,
        replaced: Option<String>,
    },
    /// This process calibrated; the file is not a plan it can read, and is left as it is.
    Kept { path: PathBuf, why: String },
    /// This process calibrated; writing the file failed.
    NotSaved { path: PathBuf, why: String },
    /// Neither read nor written: the plan is not a calibration (forced, or no kernel).
    Unused { path: PathBuf, why: &'static str },
}

impl FileUse {
    /// Whether this is worth a line on stderr (the plan file did not do its job).
    pub(super) fn is_problem(&self) -> bool {
        matches!(self, FileUse::Kept { .. } | FileUse::NotSaved { .. })
    }
}

impl core::fmt::Display for FileUse {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let show = |p: &Path| p.display().to_string();
        match self {
            FileUse::Loaded(p) => write!(f, "{PLAN_FILE_ENV}={:?}: loaded", show(p)),
            FileUse::Saved { path, replaced } => {
                write!(f, "{PLAN_FILE_ENV}={:?}: saved", show(path))?;
                match replaced {
                    Some(old) => write!(f, ", replacing {old}"),
                    None => Ok(()),
                }
            }
            FileUse::Kept { path, why } => write!(
                f,
                "{PLAN_FILE_ENV}={:?} not used, left as it is: {why}",
                show(path)
            ),
            FileUse::NotSaved { path, why } => {
                write!(f, "{PLAN_FILE_ENV}={:?} not saved: {why}", show(path))
            }
            FileUse::Unused { path, why } => {
                write!(f, "{PLAN_FILE_ENV}={:?} not used: {why}", show(path))
            }
        }
    }
}

/// Why a file gave no plan.
#[derive(Debug, PartialEq)]
pub(super) enum NotLoaded {
    /// There is no file yet: calibrate and write it.
    Missing,
    /// A plan for another CPU or version (what it was for): calibrate and replace it.
    Foreign(String),
    /// Not a plan this version reads, or unreadable: calibrate, leave the file alone.
    Unreadable(String),
}

/// What a plan file must be made for to be used here: crate version, CPU vendor, brand,
/// cpuid signature and L1 data cache size.
pub(super) fn this_identity() -> String {
    let cpu = crate::fingerprint::cpu();
    format!(
        "fmadiv {} | {} | {} | cpuid {} | L1d {} bytes",
        crate::build_info::VERSION,
        cpu.vendor,
        cpu.model,
        cpu.signature,
        super::l1_data_bytes().0
    )
}

/// The decisions a plan file holds: what [`Plan`] needs to run, and the measurements
/// behind the `Divisor`'s choices (shown by the loaded plan's `Display`).
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Saved {
    pub(super) small_below: usize,
    pub(super) div: [Schedule; 2],
    pub(super) recip: [Schedule; 2],
    pub(super) short_below: [usize; 2],
    /// The lengths the calibration timed for the two classes.
    pub(super) lens: [usize; 2],
    pub(super) divisor: DivisorBreakEven,
}

/// The text of a plan file for `saved`, made for `identity`.
pub(super) fn render(saved: &Saved, identity: &str) -> String {
    let schedules = |s: &[Schedule; 2]| format!("{} {}", s[0].name(), s[1].name());
    let number = |n: usize| match n {
        usize::MAX => "max".to_string(),
        n => n.to_string(),
    };
    let windows = |w: &[(usize, usize); 3]| {
        w.map(|(from, to)| format!("{}..{}", number(from), number(to)))
            .join(" ")
    };
    let ratio = |r: Option<f64>| r.map_or("none".to_string(), |r| format!("{r:?}"));
    let d = &saved.divisor;
    let ratios = d
        .ratios
        .iter()
        .map(|side| {
            side.iter()
                .map(|(n, r)| format!("{n}:{r:?}"))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect::<Vec<_>>()
        .join(" | ");
    [
        MAGIC.to_string(),
        "# Made by one calibration on the CPU below; later processes given this file read it \
         instead of calibrating. Delete it to calibrate again."
            .to_string(),
        format!("for: {identity}"),
        format!("small_below: {}", saved.small_below),
        format!("div: {}", schedules(&saved.div)),
        format!("recip: {}", schedules(&saved.recip)),
        format!(
            "short_below: {} {}",
            saved.short_below[0], saved.short_below[1]
        ),
        format!("lens: {} {}", saved.lens[0], saved.lens[1]),
        format!("divisor.proof: {}", windows(&d.proof)),
        format!("divisor.sequence: {}", windows(&d.sequence)),
        format!("divisor.in_place: {}", windows(&d.in_place)),
        format!("divisor.proof_ns: {}", ratio(d.measured)),
        format!("divisor.ratios: {ratios}"),
        format!("divisor.in_place_ratio: {}", ratio(d.in_place_ratio)),
        format!("divisor.lanes_ratio: {}", ratio(d.lanes_ratio)),
        END.to_string(),
    ]
    .join("\n")
        + "\n"
}

/// The plan in `text`, if it is a plan file made for `identity`.
pub(super) fn parse(text: &str, identity: &str) -> Result<Saved, NotLoaded> {
    let bad = |why: String| NotLoaded::Unreadable(why);
    let mut lines = text.lines();
    if lines.next() != Some(MAGIC) {
        return Err(bad(format!("its first line is not {MAGIC:?}")));
    }
    if text.lines().last() != Some(END) {
        return Err(bad(format!(
            "it is cut short: its last line is not {END:?}"
        )));
    }
    let mut fields: Vec<(&str, &str)> = Vec::new();
    for line in lines.filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
        let (key, value) = line
            .split_once(": ")
            .ok_or_else(|| bad(format!("not a `key: value` line: {line:?}")))?;
        if fields.iter().any(|(k, _)| *k == key) {
            return Err(bad(format!("{key:?} given twice")));
        }
        fields.push((key, value));
    }
    let fields = Fields(fields);
    let made_for = fields.field("for")?;
    if made_for != identity {
        return Err(NotLoaded::Foreign(format!("a plan for {made_for:?}")));
    }
    if let Some((key, _)) = fields.0.iter().find(|(k, _)| !KEYS.contains(k)) {
        return Err(bad(format!("unknown line {key:?}")));
    }
    fields.saved()
}

/// Every key of a plan file.
const KEYS: [&str; 13] = [
    "for",
    "small_below",
    "div",
    "recip",
    "short_below",
    "lens",
    "divisor.proof",
    "divisor.sequence",
    "divisor.in_place",
    "divisor.proof_ns",
    "divisor.ratios",
    "divisor.in_place_ratio",
    "divisor.lanes_ratio",
];

/// The `key: value` lines of a plan file, parsed by key.
struct Fields<'a>(Vec<(&'a str, &'a str)>);

impl Fields<'_> {
    /// The value of `key`.
    fn field(&self, key: &str) -> Result<&str, NotLoaded> {
        self.0
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| *v)
            .ok_or_else(|| NotLoaded::Unreadable(format!("no {key:?} line")))
    }

    fn bad(key: &str, value: &str, what: &str) -> NotLoaded {
        NotLoaded::Unreadable(format!("{key}: {value:?} is not {what}"))
    }

    /// Exactly `N` whitespace-separated words of `key`, each parsed by `one`.
    fn words<T, const N: usize>(
        &self,
        key: &str,
        what: &str,
        one: impl Fn(&str) -> Option<T>,
    ) -> Result<[T; N], NotLoaded> {
        let value = self.field(key)?;
        let parsed: Option<Vec<T>> = value.split_whitespace().map(one).collect();
        parsed
            .and_then(|v| <[T; N]>::try_from(v).ok())
            .ok_or_else(|| Self::bad(key, value, what))
    }

    fn number(word: &str) -> Option<usize> {
        match word {
            "max" => Some(usize::MAX),
            w => w.parse().ok(),
        }
    }

    fn window(word: &str) -> Option<(usize, usize)> {
        let (from, to) = word.split_once("..")?;
        Some((Self::number(from)?, Self::number(to)?))
    }

    fn ratio(&self, key: &str) -> Result<Option<f64>, NotLoaded> {
        match self.field(key)? {
            "none" => Ok(None),
            v => v
                .parse::<f64>()
                .ok()
                .filter(|r| r.is_finite() && *r >= 0.0)
                .map(Some)
                .ok_or_else(|| Self::bad(key, v, "a ratio or none")),
        }
    }

    /// The three classes' `(length, ratio)` lists, separated by `|`.
    fn ratios(&self) -> Result<[Vec<(usize, f64)>; 3], NotLoaded> {
        let key = "divisor.ratios";
        let value = self.field(key)?;
        let side = |text: &str| -> Option<Vec<(usize, f64)>> {
            text.split_whitespace()
                .map(|pair| {
                    let (n, r) = pair.split_once(':')?;
                    Some((n.parse().ok()?, r.parse().ok()?))
                })
                .collect()
        };
        let sides: Option<Vec<_>> = value.split('|').map(side).collect();
        sides
            .and_then(|s| <[_; 3]>::try_from(s).ok())
            .ok_or_else(|| Self::bad(key, value, "three lists of length:ratio"))
    }

    fn saved(&self) -> Result<Saved, NotLoaded> {
        let schedule = |w: &str| Schedule::from_name(w).ok();
        let windows = "three windows FROM..TO";
        let [small_below] = self.words("small_below", "a length", Self::number)?;
        let mut divisor = DivisorBreakEven {
            proof: self.words("divisor.proof", windows, Self::window)?,
            sequence: self.words("divisor.sequence", windows, Self::window)?,
            in_place: self.words("divisor.in_place", windows, Self::window)?,
            measured: self.ratio("divisor.proof_ns")?,
            ratios: self.ratios()?,
            in_place_ratio: self.ratio("divisor.in_place_ratio")?,
            lanes_ratio: self.ratio("divisor.lanes_ratio")?,
            ..DivisorBreakEven::never()
        };
        divisor.set_earliest();
        Ok(Saved {
            small_below,
            div: self.words("div", "two schedules", schedule)?,
            recip: self.words("recip", "two schedules", schedule)?,
            short_below: self.words("short_below", "two lengths", Self::number)?,
            lens: self.words("lens", "two lengths", Self::number)?,
            divisor,
        })
    }
}

/// The plan in the file at `path`, if it is one made for `identity`.
pub(super) fn load(path: &Path, identity: &str) -> Result<Saved, NotLoaded> {
    match std::fs::read_to_string(path) {
        Ok(text) => parse(&text, identity),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(NotLoaded::Missing),
        Err(e) => Err(NotLoaded::Unreadable(format!("cannot read it: {e}"))),
    }
}

/// Writes `text` to `path` through a temporary file in the same folder renamed over it, so
/// that a reader sees the old file or the whole new one.
pub(super) fn store(path: &Path, text: &str) -> Result<(), String> {
    let name = path
        .file_name()
        .ok_or_else(|| "it names no file".to_string())?;
    let mut temporary = name.to_owned();
    temporary.push(format!(".{}.tmp", std::process::id()));
    let temporary = path.with_file_name(temporary);
    let written = std::fs::write(&temporary, text).and_then(|()| std::fs::rename(&temporary, path));
    written.map_err(|e| {
        // Nothing half-written stays behind (the rename is what failed, or the write).
        let _ = std::fs::remove_file(&temporary);
        e.to_string()
    })
}

impl Saved {
    /// The decisions of `plan`, if it is a calibration (with the lengths it timed).
    pub(super) fn of(plan: &Plan) -> Option<Saved> {
        Some(Saved {
            small_below: plan.small_below,
            div: plan.div,
            recip: plan.recip,
            short_below: plan.short_below,
            lens: plan.timed_lens()?,
            divisor: plan.divisor.clone(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schedule::Mix;

    fn example() -> Saved {
        let mut divisor = DivisorBreakEven::never();
        divisor.proof = [(12687, usize::MAX), (usize::MAX, usize::MAX), (2048, 8192)];
        divisor.sequence = [(512, usize::MAX), (1024, 8192), (usize::MAX, usize::MAX)];
        divisor.in_place = [
            (512, 4096),
            (usize::MAX, usize::MAX),
            (usize::MAX, usize::MAX),
        ];
        divisor.measured = Some(54.25);
        divisor.ratios = [
            vec![(128, 0.53), (512, 4.0 / 3.0)],
            vec![],
            vec![(8192, 1.17)],
        ];
        divisor.in_place_ratio = Some(0.93);
        divisor.lanes_ratio = None;
        divisor.set_earliest();
        Saved {
            small_below: 2730,
            div: [Schedule::Divider, Schedule::Kernel],
            recip: [Schedule::Mixed(Mix::new(16).unwrap()), Schedule::Divider],
            short_below: [0, 640],
            lens: [1024, 11008],
            divisor,
        }
    }

    const HERE: &str =
        "fmadiv 0.0.0 | GenuineTest | Test CPU | cpuid 0x6/0x1/0x0 | L1d 32768 bytes";

    #[test]
    fn a_plan_file_reads_back_as_the_plan_it_was_made_from() {
        let saved = example();
        let text = render(&saved, HERE);
        let back = parse(&text, HERE).unwrap();
        assert_eq!(back, saved);
        assert_eq!(back.divisor.shortest_sequence, 512);
        assert_eq!(back.divisor.first_proof_min, 2048);
        assert_eq!(back.recip[0], Schedule::Mixed(Mix::new(16).unwrap()));
        // Rendering is deterministic: the same plan, the same bytes.
        assert_eq!(render(&back, HERE), text);
    }

    #[test]
    fn a_plan_for_another_cpu_or_version_is_foreign() {
        let text = render(&example(), HERE);
        let elsewhere = HERE.replace("0x6/0x1/0x0", "0x6/0x2/0x0");
        match parse(&text, &elsewhere) {
            Err(NotLoaded::Foreign(why)) => assert!(why.contains("0x6/0x1/0x0"), "{why}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn anything_but_a_whole_plan_is_unreadable_and_says_why() {
        let text = render(&example(), HERE);
        let cases: Vec<(String, &str)> = vec![
            (String::new(), "first line"),
            ("div: kernel kernel\n".into(), "first line"),
            (
                text.replace("div: divider kernel", "div: divider mix-3"),
                "div",
            ),
            (text.replace("div: divider kernel", "div: divider"), "div"),
            (
                text.replace("short_below: 0 640", "short_below: 0 -1"),
                "short_below",
            ),
            (
                text.replace("512..max 1024", "512.. 1024"),
                "divisor.sequence",
            ),
            (
                text.replace("lanes_ratio: none", "lanes_ratio: NaN"),
                "lanes_ratio",
            ),
            (text.replace("lens: 1024 11008\n", ""), "lens"),
            (
                text.replace(END, &format!("{}{END}", "lens: 1 2\n")),
                "twice",
            ),
            (
                text.replace(END, &format!("{}{END}", "speed: fast\n")),
                "speed",
            ),
            (
                text.replace(END, &format!("{}{END}", "garbage\n")),
                "garbage",
            ),
            (text.replace("1.17", "1.17 | 3:1.0"), "divisor.ratios"),
        ];
        for (bad, names) in cases {
            match parse(&bad, HERE) {
                Err(NotLoaded::Unreadable(why)) => assert!(why.contains(names), "{names}: {why}"),
                other => panic!("{names}: {other:?}"),
            }
        }
    }

    #[test]
    fn a_file_cut_anywhere_is_unreadable() {
        let text = render(&example(), HERE);
        let whole = text.trim_end().len();
        for cut in (MAGIC.len()..whole).filter(|&n| text.is_char_boundary(n)) {
            match parse(&text[..cut], HERE) {
                Err(NotLoaded::Unreadable(why)) => assert!(why.contains("cut short"), "{why}"),
                other => panic!("cut at {cut}: {other:?}"),
            }
        }
    }

    #[test]
    fn files_are_written_whole_and_missing_ones_say_so() {
        let dir = std::env::temp_dir().join(format!("fmadiv-saved-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("plan");
        assert_eq!(load(&path, HERE), Err(NotLoaded::Missing));
        let text = render(&example(), HERE);
        store(&path, &text).unwrap();
        assert_eq!(load(&path, HERE), Ok(example()));
        // No temporary file is left beside it.
        let names: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
        assert_eq!(names.len(), 1, "{names:?}");
        // A folder that does not exist: an error, nothing created.
        let nowhere = dir.join("missing").join("plan");
        assert!(store(&nowhere, &text).is_err());
        assert!(!dir.join("missing").exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
