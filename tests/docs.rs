//! The figures in README.md and BENCHMARKS.md against the JSON they are generated from:
//! `scripts/bench_report.py --check` regenerates every marked table and compares, and
//! refuses a measured ratio written by hand in the prose (of TESTING.md too); and every file
//! they and the sources cite is committed.

use std::process::Command;

#[test]
fn readme_and_benchmarks_agree_with_their_json() {
    let root = env!("CARGO_MANIFEST_DIR");
    let output = match Command::new("python3")
        .arg(format!("{root}/scripts/bench_report.py"))
        .arg("--check")
        .output()
    {
        Ok(output) => output,
        Err(e) => {
            eprintln!("SKIPPED: python3 is not available ({e}); the figures were not checked");
            return;
        }
    };
    assert!(
        output.status.success(),
        "the documents disagree with docs/bench/ or docs/verification/:\n{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Every committed file the sources and documents cite exists: a CPU family's native run, a
/// plan row's measurements, a figure's JSON, a probe's notes. A path with a placeholder
/// (`{kind}`, `MODE`, `*`) names a pattern, not a file; a path ending in a file name's
/// beginning (`docs/bench/0x19-0x11-floors`) names the files that begin so.
#[test]
fn every_committed_file_the_sources_and_documents_cite_exists() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut texts = Vec::new();
    for name in [
        "README.md",
        "BENCHMARKS.md",
        "TESTING.md",
        "CHANGELOG.md",
        ".ci/run",
    ] {
        texts.push(root.join(name));
    }
    for dir in [
        "src",
        "cli/src",
        "verify/src",
        "examples",
        "scripts",
        "tests",
    ] {
        texts_under(&root.join(dir), &["rs", "py", "sh", "md"], &mut texts);
    }
    // The evidence's own notes cite other evidence too.
    texts_under(&root.join("docs"), &["md", "txt"], &mut texts);
    let mut cited = 0;
    let mut missing = Vec::new();
    for file in &texts {
        let text = std::fs::read_to_string(file).unwrap_or_default();
        for path in cited_paths(&text) {
            cited += 1;
            if !names_a_committed_file(root, &path) {
                missing.push(format!("{} cites {path}", file.display()));
            }
        }
    }
    assert!(
        cited > 50,
        "only {cited} citations found: the scan is broken"
    );
    assert!(missing.is_empty(), "missing:\n{}", missing.join("\n"));

    // A record that turns sixteen lanes on names the folder the native script wrote.
    for f in fmadiv::AVX512_FAMILIES {
        if let Some(run) = f.native_run {
            assert!(root.join(run).join("summary.txt").is_file(), "{run}");
        }
    }
}

/// The files under `dir` whose names end in one of `exts` (the tests' data left out).
fn texts_under(dir: &std::path::Path, exts: &[&str], out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().map(Result::unwrap) {
        let path = entry.path();
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        if path.is_dir() && !path.ends_with("tests/data") {
            texts_under(&path, exts, out);
        } else if exts.contains(&ext) {
            out.push(path);
        }
    }
}

/// Each `docs/...` path in `text`, without the punctuation that ends a sentence.
fn cited_paths(text: &str) -> Vec<String> {
    let in_path = |c: char| c.is_ascii_alphanumeric() || "_./{}*-".contains(c);
    let mut paths = Vec::new();
    for (at, _) in text.match_indices("docs/") {
        let before = text[..at].chars().next_back();
        if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '/') {
            continue; // part of a longer path or word (`target/doc/...`, `mydocs/`)
        }
        let end = text[at..]
            .find(|c| !in_path(c))
            .map_or(text.len(), |n| at + n);
        paths.push(text[at..end].trim_end_matches(['.', '-']).to_string());
    }
    paths
}

/// Whether `path` is a committed file or folder, or the beginning of the names of some.
fn names_a_committed_file(root: &std::path::Path, path: &str) -> bool {
    if ["{", "*", "MODE"].iter().any(|p| path.contains(p)) || path == "docs/" {
        return true;
    }
    let full = root.join(path);
    if full.exists() {
        return true;
    }
    let (Some(dir), Some(start)) = (full.parent(), full.file_name().and_then(|s| s.to_str()))
    else {
        return false;
    };
    std::fs::read_dir(dir).is_ok_and(|entries| {
        entries
            .map(Result::unwrap)
            .any(|e| e.file_name().to_str().is_some_and(|n| n.starts_with(start)))
    })
}
