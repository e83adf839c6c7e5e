//! Reading the chapters' pinned snapshots, in the form `pinned` defines.

use std::collections::BTreeMap;
use std::path::PathBuf;

/// The snapshot files of every chapter under `chapters/`.
pub struct Snapshots {
    chapters: PathBuf,
}

impl Snapshots {
    /// Snapshots of the chapter crates under `chapters_dir`.
    pub fn new(chapters_dir: PathBuf) -> Self {
        Snapshots { chapters: chapters_dir }
    }

    /// The folder of the chapter crates.
    pub fn chapters_dir(&self) -> &std::path::Path {
        &self.chapters
    }

    /// The pinned body of snapshot `name` of `chapter` (`ch02`).
    pub fn body(&self, chapter: &str, name: &str) -> Result<String, String> {
        let dir = pinned::chapter_dir(&self.chapters, chapter)?.join(pinned::SNAPSHOT_DIR);
        let path = dir.join(format!("{name}.snap"));
        let text = std::fs::read_to_string(&path)
            .map_err(|_| format!("`{chapter}.{name}`: no pinned snapshot {}", path.display()))?;
        pinned::snapshot_body(&text)
            .ok_or_else(|| format!("{} is not an insta snapshot", path.display()))
    }

    /// The named values of `chapter`, from its values snapshot.
    pub fn values(&self, chapter: &str) -> Result<BTreeMap<String, String>, String> {
        Ok(pinned::parse_values(&self.body(chapter, pinned::VALUES)?))
    }

    /// The pinned SVG of figure `name` of `chapter`.
    pub fn figure(&self, chapter: &str, name: &str) -> Result<String, String> {
        self.body(chapter, &pinned::figure_snapshot(name))
    }
}
