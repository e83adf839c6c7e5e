//! # pinned — where a chapter's pinned results live on disk, and in what form
//!
//! One definition for both sides: `record` writes these files (through
//! insta), the book's preprocessor reads them into the pages.
//!
//! * A chapter `chapters/NN_name/` keeps its snapshots in
//!   [`SNAPSHOT_DIR`] (`tests/snapshots/`), one insta `.snap` file each.
//! * Each demo's printed output is the snapshot named like the demo.
//! * The named values are the snapshot [`VALUES`], one `name = shown` line
//!   each ([`values_text`], [`parse_values`]).
//! * A figure `name` is the snapshot [`figure_snapshot`]`(name)`,
//!   `figure_name`, holding the SVG.
//!
//! The page says `ch02.jane` for chapter `chapters/02_*`: [`chapter_dir`].

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Where a chapter crate keeps its snapshots, relative to the crate.
pub const SNAPSHOT_DIR: &str = "tests/snapshots";

/// The snapshot holding the named values.
pub const VALUES: &str = "values";

/// The snapshot holding figure `name`.
pub fn figure_snapshot(name: &str) -> String {
    format!("figure_{name}")
}

/// The values snapshot's body: one `name = shown` line each, in order.
pub fn values_text<'a>(values: impl IntoIterator<Item = (&'a str, &'a str)>) -> String {
    values.into_iter().map(|(name, shown)| format!("{name} = {shown}\n")).collect()
}

/// The values back from a values snapshot's body.
pub fn parse_values(body: &str) -> BTreeMap<String, String> {
    body.lines()
        .filter_map(|l| l.split_once(" = "))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// The contents of an insta `.snap` file after its `---` header.
pub fn snapshot_body(text: &str) -> Option<String> {
    let rest = text.strip_prefix("---\n")?;
    let end = rest.find("\n---\n")?;
    let body = &rest[end + 5..];
    Some(body.trim_end_matches('\n').to_string())
}

/// The crate directory of chapter key `ch02` under `chapters`: the one
/// directory named `02_*`.
pub fn chapter_dir(chapters: &Path, key: &str) -> Result<PathBuf, String> {
    let number = key
        .strip_prefix("ch")
        .filter(|n| n.len() == 2 && n.bytes().all(|b| b.is_ascii_digit()))
        .ok_or_else(|| format!("`{key}` is not a chapter key like ch02"))?;
    let prefix = format!("{number}_");
    let entries = std::fs::read_dir(chapters)
        .map_err(|e| format!("cannot list {}: {e}", chapters.display()))?;
    let mut found: Vec<PathBuf> = entries
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(&prefix))
        .map(|e| e.path())
        .collect();
    match found.len() {
        1 => Ok(found.remove(0)),
        0 => Err(format!("no chapter crate chapters/{prefix}* for `{key}`")),
        _ => Err(format!("several chapter crates chapters/{prefix}*")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_survive_the_round_trip() {
        let values = [("a", "0.614"), ("b_2", "x = 3 (a = b)"), ("c", "")];
        let back = parse_values(&values_text(values));
        assert_eq!(back.len(), 3);
        assert_eq!(back["a"], "0.614");
        assert_eq!(back["c"], "");
        assert_eq!(back["b_2"], "x = 3 (a = b)");
    }

    #[test]
    fn the_header_is_dropped() {
        let snap = "---\nsource: x.rs\n---\nline 1\n  line 2\n";
        assert_eq!(snapshot_body(snap).unwrap(), "line 1\n  line 2");
        assert_eq!(snapshot_body("no header"), None);
    }

    #[test]
    fn chapter_keys_are_two_digits() {
        let here = Path::new(env!("CARGO_MANIFEST_DIR"));
        assert!(chapter_dir(here, "ch2").unwrap_err().contains("not a chapter key"));
        assert!(chapter_dir(here, "ch99").unwrap_err().contains("no chapter crate"));
    }
}
