//! How this process's plan is made, once, at the first call of [`plan`]: a forced
//! schedule, else a plan file made for this CPU, else the CPU's row of the table (each
//! after the check of the seeds the plan's kernels would run), and the backends whose loops
//! the plan runs.

use std::path::Path;
use std::sync::OnceLock;

use super::{
    Choices, Origin, PLAN_FILE_ENV, Plan, SCHEDULE_ENV, ShortRecip, file, in_register_of, table,
};
use crate::cpu::Cpu;
use crate::schedule::Schedule;
use crate::seeds::OutOfBound;
use crate::variant::Variant;

static PLAN: OnceLock<Plan> = OnceLock::new();

/// The plan if it is made already (inline, no call: for the short slices' check).
#[inline]
pub(crate) fn made() -> Option<&'static Plan> {
    PLAN.get()
}

/// The plan of this process: made at the first call from the CPU's identity, then cached.
#[inline]
pub fn plan() -> &'static Plan {
    match PLAN.get() {
        Some(plan) => plan,
        None => make_plan(),
    }
}

/// [`plan`]'s first call, out of line: callers on the hot path keep a small frame.
#[cold]
#[inline(never)]
fn make_plan() -> &'static Plan {
    PLAN.get_or_init(|| {
        let start = std::time::Instant::now();
        let setting = std::env::var(SCHEDULE_ENV).ok();
        let file = std::env::var_os(PLAN_FILE_ENV).filter(|p| !p.is_empty());
        let seeds = seeds_in_use;
        let file_path = file.as_deref().map(Path::new);
        let mut plan = choose(Cpu::this(), setting.as_deref(), seeds, file_path);
        plan.made_in_micros = start.elapsed().as_micros() as u64;
        if let Some(value) = &plan.ignored {
            let why = Schedule::from_name(value).err().map(|e| e.to_string());
            eprintln!(
                "fmadiv: {SCHEDULE_ENV}={value:?} names no schedule and is ignored ({})",
                why.unwrap_or_default()
            );
        }
        // A file named and not used is said once, a missing one too: a mistyped path must
        // not pass for a plan in force.
        if let (Some(why), Some(path)) = (&plan.file_unused, &file) {
            eprintln!("fmadiv: {PLAN_FILE_ENV}={path:?} not used: {why}");
        }
        plan
    })
}

/// The seed check of the backends of `div` and `recip` (one check per backend), and of the
/// eight-lane one where `recip` gives way to it on short slices: the first that fails, or
/// `None` without a kernel.
fn seeds_in_use() -> Option<Result<(), OutOfBound>> {
    let w = Widths::here();
    let short_recip =
        (w.recip.lanes() == 16 && w.recip_by_default).then_some(crate::Backend::Avx2Fma);
    let mut backends = vec![w.div];
    for b in [Some(w.recip), short_recip].into_iter().flatten() {
        if !backends.contains(&b) {
            backends.push(b);
        }
    }
    let checks: Vec<_> = backends.into_iter().filter_map(seeds_of).collect();
    // The first error, else `Ok`, where any backend has a kernel.
    (!checks.is_empty()).then(|| checks.into_iter().collect())
}

/// The seed check of `backend`: `rcpps` for AVX2+FMA, `vrcp14ps` (the CPU's, or the
/// model's table) for the sixteen-lane backends, against the bound the kernels are proven
/// for; `None` without a kernel.
fn seeds_of(backend: crate::Backend) -> Option<Result<(), OutOfBound>> {
    #[cfg(fmadiv_x86)]
    use crate::seeds::{RCPPS_BOUND, check_sample_within};
    match backend {
        #[cfg(fmadiv_x86)]
        crate::Backend::Avx512 => {
            let k = crate::arch::x86_64::avx512::Avx512::new()?;
            Some(check_sample_within(RCPPS_BOUND, |x| k.rcp8(x)))
        }
        #[cfg(all(fmadiv_x86, feature = "verify"))]
        crate::Backend::Avx512Model(seeds) => {
            use crate::arch::x86_64::{avx512_model::rcp14, mode::read_mxcsr};
            let mxcsr = read_mxcsr();
            Some(check_sample_within(RCPPS_BOUND, |x| {
                x.map(|v| rcp14(seeds, v, mxcsr))
            }))
        }
        _ => crate::seeds::this_cpu(),
    }
}

/// The plan for `cpu`, a `FMADIV_SCHEDULE` setting, a check of the seeds (injected, so
/// that tests can simulate a CPU whose `rcpps` breaks its bound) and a plan file.
fn choose(
    cpu: Cpu,
    setting: Option<&str>,
    seeds: impl FnOnce() -> Option<Result<(), OutOfBound>>,
    file: Option<&Path>,
) -> Plan {
    let (forced, ignored) = match setting.map(str::trim).filter(|s| !s.is_empty()) {
        None => (None, None),
        Some(name) => match Schedule::from_name(name) {
            Ok(s) => (Some(s), None),
            Err(e) => (None, Some(e.0)),
        },
    };
    let row = table::row_of(&cpu);
    let divisor = row.map_or(table::FALLBACK, |r| r.choices).divisor;
    let everything = |s| Choices::uniform(s, divisor);
    let mut plan = if forced == Some(Schedule::Portable) {
        Plan::with(cpu, Choices::portable(), Origin::Forced)
    } else if crate::backend() == crate::Backend::Portable {
        Plan::with(cpu, Choices::portable(), Origin::NoKernel)
    } else {
        match (seeds(), forced) {
            (None, _) => Plan::with(cpu, Choices::portable(), Origin::NoKernel),
            (Some(Err(e)), _) => Plan::with(
                cpu,
                everything(Schedule::Divider),
                Origin::SeedsOutOfBound(e),
            ),
            (Some(Ok(())), Some(s)) => Plan::with(cpu, everything(s), Origin::Forced),
            (Some(Ok(())), None) => from_file_or_row(cpu, file, row),
        }
    };
    plan.ignored = ignored;
    plan
}

/// The backends a plan's loops run: `div`'s and `recip`'s, and whether `recip`'s is its
/// CPU family's default rather than forced (only a default width gives way to eight lanes
/// on short slices, [`Plan::recip_eight_lanes_below`]).
#[derive(Clone, Copy, Debug)]
pub(super) struct Widths {
    pub(super) div: crate::Backend,
    pub(super) recip: crate::Backend,
    recip_by_default: bool,
}

impl Widths {
    /// This process's.
    pub(super) fn here() -> Widths {
        use crate::EntryPoint;
        Widths {
            div: crate::backend(),
            recip: crate::backend_of(EntryPoint::Recip),
            recip_by_default: !crate::dispatch::is_forced(EntryPoint::Recip),
        }
    }
}

/// The plan a plan file holds, where `file` names one made for `cpu`; else the table's.
fn from_file_or_row(cpu: Cpu, file: Option<&Path>, row: Option<&'static table::Row>) -> Plan {
    let file_unused = match file.map(|path| (path, file::load(path, &cpu))) {
        Some((path, Ok(choices))) => {
            return Plan::with(cpu, choices, Origin::File(path.to_path_buf()));
        }
        Some((_, Err(why))) => Some(why.to_string()),
        None => None,
    };
    let mut plan = from_row(cpu, row, Widths::here());
    plan.file_unused = file_unused;
    plan
}

/// The plan of `row` (the fallback without one) for loops of `widths`.
fn from_row(cpu: Cpu, row: Option<&'static table::Row>, widths: Widths) -> Plan {
    // The row's column for each width: `div` and the `Divisor` from `div`'s, `recip` from
    // its own backend's.
    let column = |r: &'static table::Row, sixteen_lanes: bool| match sixteen_lanes {
        true => r.sixteen.unwrap_or(table::Column {
            choices: Choices::uniform(Schedule::Divider, r.choices.divisor),
            recip_from: 0,
            evidence: table::SIXTEEN_UNMEASURED,
        }),
        false => table::Column {
            choices: r.choices,
            recip_from: 0,
            evidence: r.evidence,
        },
    };
    let div_sixteen = widths.div.lanes() == 16;
    let recip_sixteen = widths.recip.lanes() == 16;
    let Some(r) = row else {
        let backends = [widths.div, widths.recip];
        let fallback = Plan::on::<{ Variant::SHIPPED }>;
        return fallback(cpu, table::FALLBACK, Origin::NotInTable, backends);
    };
    let (div, recip) = (column(r, div_sixteen), column(r, recip_sixteen));
    let choices = Choices {
        recip: recip.choices.recip,
        ..div.choices
    };
    let origin = Origin::Table {
        row: r.name,
        evidence: div.evidence,
        recip_evidence: (recip_sixteen != div_sixteen).then_some(recip.evidence),
    };
    let backends = [widths.div, widths.recip];
    let mut plan = Plan::on::<{ Variant::SHIPPED }>(cpu, choices, origin, backends);
    plan.in_register = in_register_of(&r.choices);
    if recip_sixteen && widths.recip_by_default && recip.recip_from > 0 {
        let eight = r.choices.recip;
        plan.short_recip = ShortRecip::eight_lanes::<{ Variant::SHIPPED }>(recip.recip_from, eight);
    }
    plan
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schedule::mixed;

    const BAD: OutOfBound = OutOfBound {
        input: 0x3fc0_0000,
        seed: 0x3f30_0000,
    };

    #[test]
    fn the_same_cpu_gets_the_same_plan() {
        let a = choose(Cpu::this(), None, || Some(Ok(())), None);
        let b = choose(Cpu::this(), None, || Some(Ok(())), None);
        assert_eq!((a.choices(), a.origin()), (b.choices(), b.origin()));
        assert_eq!(a.to_string(), b.to_string());
    }

    #[test]
    fn a_cpu_whose_rcp_breaks_the_bound_keeps_the_divider() {
        for setting in [None, Some("kernel"), Some("mix-4"), Some("divider")] {
            let plan = choose(Cpu::this(), setting, || Some(Err(BAD)), None);
            if crate::backend() == crate::Backend::Portable {
                assert_eq!(plan.div(4096), Schedule::Portable);
                continue;
            }
            for len in [8, 1024, 1 << 20] {
                assert_eq!(plan.div(len), Schedule::Divider, "{setting:?}");
                assert_eq!(plan.recip(len), Schedule::Divider, "{setting:?}");
            }
            assert!(!plan.in_register_kernel());
            let text = plan.to_string();
            assert!(text.contains("no kernel proven for this rcpps"), "{text}");
            assert!(text.contains("0x3fc00000"), "{text}");
        }
    }

    #[test]
    fn a_setting_that_names_no_schedule_is_reported() {
        let plan = choose(Cpu::this(), Some("mix-3"), || Some(Ok(())), None);
        assert_eq!(plan.ignored_setting(), Some("mix-3"));
        assert!(plan.to_string().contains("\"mix-3\" ignored"), "{plan}");
        let plan = choose(Cpu::this(), Some("kernel"), || Some(Ok(())), None);
        assert_eq!(plan.ignored_setting(), None);
    }

    #[test]
    fn a_plan_file_is_read_only_after_the_rcpps_check() {
        if crate::backend() == crate::Backend::Portable {
            eprintln!("note: no AVX2+FMA here: a plan file is never read (nothing to run)");
            return;
        }
        let cpu = Cpu::this();
        let path = std::env::temp_dir().join(format!("fmadiv-plan-{}", std::process::id()));
        let kernel = Choices {
            div: [Schedule::Kernel; 2],
            recip: [mixed(4); 2],
            ..table::FALLBACK
        };
        std::fs::write(&path, kernel.to_plan_file(&cpu, "a test")).unwrap();
        // This CPU's table conforms: the file's schedules run.
        let plan = choose(cpu.clone(), None, || Some(Ok(())), Some(&path));
        assert_eq!(plan.origin(), &Origin::File(path.clone()));
        assert_eq!(plan.div(4096), Schedule::Kernel);
        assert_eq!(plan.recip(100).name(), "mix-4");
        // A table out of bound: the file is not read, the divider runs everything.
        let plan = choose(cpu.clone(), None, || Some(Err(BAD)), Some(&path));
        assert_eq!(plan.div(4096), Schedule::Divider);
        // A forced schedule wins over the file.
        let plan = choose(cpu.clone(), Some("divider"), || Some(Ok(())), Some(&path));
        assert_eq!(
            (plan.div(4096), plan.origin()),
            (Schedule::Divider, &Origin::Forced)
        );
        // A file that is not a plan: reported, the table row runs.
        std::fs::write(&path, "not a plan\n").unwrap();
        let plan = choose(cpu, None, || Some(Ok(())), Some(&path));
        assert!(!matches!(plan.origin(), Origin::File(_)));
        assert!(
            plan.to_string().contains("not used: its first line"),
            "{plan}"
        );
        std::fs::remove_file(&path).unwrap();
    }

    #[test]
    fn one_vector_at_a_time_follows_the_rows_eight_lane_column_at_either_width() {
        use Schedule::{Divider, Kernel};
        // The kernel alone for one vector of `div` at eight lanes and not for `recip`; the
        // sixteen-lane column the other way round: whichever width this process's slice
        // functions run (eight by default, sixteen where forced or a family's record says
        // so), the eight-lane token follows the eight-lane column.
        static ROW: table::Row = table::Row {
            name: "a row whose columns disagree",
            vendor: crate::cpu::Vendor::Amd,
            family: 0,
            models: &[],
            choices: Choices {
                div: [Kernel, Divider],
                recip: [Divider, Kernel],
                ..table::FALLBACK
            },
            evidence: "a test",
            sixteen: Some(table::Column {
                choices: Choices {
                    div: [Divider, Kernel],
                    recip: [Kernel, Divider],
                    ..table::FALLBACK
                },
                recip_from: 0,
                evidence: "a test",
            }),
        };
        use crate::Backend::{Avx2Fma, Avx512};
        let plan = from_file_or_row(Cpu::this(), None, Some(&ROW));
        assert!(plan.in_register_kernel(), "this process's widths");
        assert!(!plan.in_register_recip_kernel(), "this process's widths");
        // Both widths on every machine (this process's may be eight lanes only): sixteen lanes
        // for `div`, `recip`, or both.
        for (div, recip) in [
            (Avx2Fma, Avx2Fma),
            (Avx512, Avx2Fma),
            (Avx2Fma, Avx512),
            (Avx512, Avx512),
        ] {
            let widths = Widths {
                div,
                recip,
                recip_by_default: true,
            };
            let plan = from_row(Cpu::this(), Some(&ROW), widths);
            assert!(plan.in_register_kernel(), "{widths:?}");
            assert!(!plan.in_register_recip_kernel(), "{widths:?}");
        }
    }

    #[test]
    fn recip_gives_way_to_eight_lanes_below_its_columns_bound_only_by_default() {
        use crate::Backend::{Avx2Fma, Avx512};
        // Zen 4's row: the sixteen-lane `recip` from 256 elements, the eight-lane row's
        // divider below, where its family's record gives it sixteen lanes.
        let zen_4 = Cpu::described("AuthenticAMD", (0x19, 0x11), true, true);
        let row = table::row_of(&zen_4);
        let by_default = Widths {
            div: Avx2Fma,
            recip: Avx512,
            recip_by_default: true,
        };
        let plan = from_row(zen_4.clone(), row, by_default);
        assert_eq!(plan.recip_eight_lanes_below(), 256);
        for (len, schedule, backend) in [
            (0, Schedule::Divider, Avx2Fma),
            (255, Schedule::Divider, Avx2Fma),
            (256, mixed(8), Avx512),
            (1 << 20, mixed(8), Avx512),
        ] {
            assert_eq!(plan.recip(len), schedule, "{len}");
            assert_eq!(plan.recip_backend(len), backend, "{len}");
        }
        assert_eq!(plan.div(100), Schedule::Divider);
        let text = plan.to_string();
        assert!(
            text.contains(
                "recip: divider at 8 lanes below 256 elements, from there mix-8 at 16 lanes"
            ),
            "{text}"
        );
        // Emerald Rapids' row: mix-4 at sixteen lanes from 1024 elements, below it the
        // eight-lane row, whose size classes the short slices reach only the first of.
        let emerald_rapids = Cpu::described("GenuineIntel", (6, 0xcf), true, true);
        let er = from_row(
            emerald_rapids.clone(),
            table::row_of(&emerald_rapids),
            by_default,
        );
        assert_eq!(er.recip_eight_lanes_below(), 1024);
        assert!(er.small_below() >= 1024);
        for (len, schedule, backend) in [
            (1023, mixed(8), Avx2Fma),
            (1024, mixed(4), Avx512),
            (1 << 20, mixed(4), Avx512),
        ] {
            assert_eq!(er.recip(len), schedule, "{len}");
            assert_eq!(er.recip_backend(len), backend, "{len}");
        }
        let text = er.to_string();
        let want = "recip: mix-8 at 8 lanes below 1024 elements, from there mix-4 at 16 lanes;";
        assert!(text.contains(want), "{text}");
        // Forced to sixteen lanes, or at eight, `recip` runs one width at every length.
        for widths in [
            Widths {
                recip_by_default: false,
                ..by_default
            },
            Widths {
                recip: Avx2Fma,
                ..by_default
            },
        ] {
            let plan = from_row(zen_4.clone(), row, widths);
            assert_eq!(plan.recip_eight_lanes_below(), 0, "{widths:?}");
            assert_eq!(plan.recip_backend(8), widths.recip, "{widths:?}");
            assert_eq!(plan.recip(8), plan.choices().recip[0], "{widths:?}");
        }
    }
}
