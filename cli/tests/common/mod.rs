//! What the tool's test files share.

use std::path::{Path, PathBuf};

/// A test's scratch folder, removed when the test passes (kept when it fails, to look at).
pub struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

/// A fresh scratch folder for the test `name` of this process.
pub fn temp_dir(name: &str) -> Scratch {
    let dir = std::env::temp_dir().join(format!("fmadiv-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    Scratch(dir)
}
