//! One-way imports: `scripts/layers.py` checks the layers each crate root draws in its docs
//! (every import goes down a layer, no import circles), after checking that it catches each
//! kind of break in a small crate of its own.

use std::process::Command;

fn layers(args: &[&str]) -> Option<std::process::Output> {
    let root = env!("CARGO_MANIFEST_DIR");
    match Command::new("python3")
        .arg(format!("{root}/scripts/layers.py"))
        .args(args)
        .output()
    {
        Ok(output) => Some(output),
        Err(e) => {
            eprintln!("SKIPPED: python3 is not available ({e}); the layers were not checked");
            None
        }
    }
}

#[test]
fn every_import_goes_down_a_layer() {
    for args in [&["--self-test"][..], &[]] {
        let Some(output) = layers(args) else { return };
        assert!(
            output.status.success(),
            "scripts/layers.py {args:?}:\n{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }
}
