//! Files that must never be left half-written: write a temporary beside, then rename.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

fn temp_path(path: &Path) -> PathBuf {
    let mut name = path
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_default();
    name.push(format!(".{}.tmp", std::process::id()));
    path.with_file_name(name)
}

/// Writes `contents` to `path` atomically: readers see the old file or the new one.
pub fn write_atomic(path: &Path, contents: &[u8]) -> Result<(), String> {
    let tmp = temp_path(path);
    let result = (|| {
        let mut f = fs::File::create(&tmp)?;
        f.write_all(contents)?;
        f.sync_all()?;
        fs::rename(&tmp, path)
    })();
    result.map_err(|e| {
        let _ = fs::remove_file(&tmp);
        format!("cannot write {}: {e}", path.display())
    })
}

/// Fails early (before hours of work) if `path` cannot be written; leaves nothing behind.
pub fn check_writable(path: &Path) -> Result<(), String> {
    let tmp = temp_path(path);
    fs::File::create(&tmp).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    let _ = fs::remove_file(&tmp);
    Ok(())
}
