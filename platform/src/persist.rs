//! Crash-safe file writes for the embedded (file-backed) state: write a
//! sibling temporary file, flush it to disk, then rename it over the target,
//! so a reader or a restart sees either the old or the new content, never a
//! torn file.

use std::io::Write;
use std::path::Path;

/// Replaces `path` with `bytes` atomically, creating parent directories.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or_else(|| Path::new("."));
    std::fs::create_dir_all(dir)?;
    let mut tmp = tempfile_in(dir, path)?;
    tmp.1.write_all(bytes)?;
    tmp.1.sync_all()?;
    std::fs::rename(&tmp.0, path)?;
    Ok(())
}

fn tempfile_in(dir: &Path, target: &Path) -> std::io::Result<(std::path::PathBuf, std::fs::File)> {
    let name = target.file_name().and_then(|n| n.to_str()).unwrap_or("state");
    let tmp = dir.join(format!(".{name}.{}.tmp", uuid::Uuid::new_v4().simple()));
    let file = std::fs::OpenOptions::new().write(true).create_new(true).open(&tmp)?;
    Ok((tmp, file))
}

/// Reads `path`, or `None` when it does not exist yet.
pub fn read_if_exists(path: &Path) -> std::io::Result<Option<Vec<u8>>> {
    match std::fs::read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_and_replaces() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a/b/state.json");
        assert_eq!(read_if_exists(&path).unwrap(), None);
        write_atomic(&path, b"one").unwrap();
        write_atomic(&path, b"two").unwrap();
        assert_eq!(read_if_exists(&path).unwrap().as_deref(), Some(&b"two"[..]));
        let leftovers = std::fs::read_dir(path.parent().unwrap()).unwrap().count();
        assert_eq!(leftovers, 1, "no temporary file is left behind");
    }
}
