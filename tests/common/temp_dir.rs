//! [`TempDir`]: a fresh directory under the system temp dir, removed on drop.

use std::path::PathBuf;

/// A fresh directory under the system temp dir (named by the test and the process, emptied
/// first), removed on drop.
pub struct TempDir(pub PathBuf);

impl TempDir {
    /// `extype-{name}-{pid}` under the system temp dir, empty.
    pub fn new(name: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("extype-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    /// The path of `name` inside the directory.
    pub fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
