//! Reading the chapters' pinned insta snapshots.

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

    /// The snapshot directory of chapter `ch02` (`chapters/02_*/tests/snapshots`).
    pub fn dir(&self, chapter: &str) -> Result<PathBuf, String> {
        let number = chapter
            .strip_prefix("ch")
            .filter(|n| n.len() == 2 && n.bytes().all(|b| b.is_ascii_digit()))
            .ok_or_else(|| format!("`{chapter}` is not a chapter key like ch02"))?;
        let prefix = format!("{number}_");
        let entries = std::fs::read_dir(&self.chapters)
            .map_err(|e| format!("cannot list {}: {e}", self.chapters.display()))?;
        let mut found: Vec<PathBuf> = entries
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().starts_with(&prefix))
            .map(|e| e.path())
            .collect();
        match found.len() {
            1 => Ok(found.remove(0).join("tests/snapshots")),
            0 => Err(format!("no chapter crate chapters/{prefix}* for `{chapter}`")),
            _ => Err(format!("several chapter crates chapters/{prefix}*")),
        }
    }

    /// The pinned body of snapshot `name` of `chapter`.
    pub fn body(&self, chapter: &str, name: &str) -> Result<String, String> {
        let path = self.dir(chapter)?.join(format!("{name}.snap"));
        let text = std::fs::read_to_string(&path)
            .map_err(|_| format!("`{chapter}.{name}`: no pinned snapshot {}", path.display()))?;
        snapshot_body(&text).ok_or_else(|| format!("{} is not an insta snapshot", path.display()))
    }

    /// The named values of `chapter`, from its `values` snapshot.
    pub fn values(&self, chapter: &str) -> Result<BTreeMap<String, String>, String> {
        let body = self.body(chapter, "values")?;
        Ok(body
            .lines()
            .filter_map(|l| l.split_once(" = "))
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect())
    }
}

/// The contents of an insta `.snap` file after its `---` header.
pub fn snapshot_body(text: &str) -> Option<String> {
    let rest = text.strip_prefix("---\n")?;
    let end = rest.find("\n---\n")?;
    let body = &rest[end + 5..];
    Some(body.trim_end_matches('\n').to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_header_is_dropped() {
        let snap = "---\nsource: x.rs\n---\nline 1\n  line 2\n";
        assert_eq!(snapshot_body(snap).unwrap(), "line 1\n  line 2");
    }
}
