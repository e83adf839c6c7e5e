//! Checking mdBook's `{{#include file:anchor}}` before mdBook expands it.
//!
//! mdBook leaves an include of a missing file in place with only a log
//! message, and replaces an include of a missing anchor with nothing at all.
//! Both would put a broken page online with a green build, so every include
//! is checked here first. Includes by line numbers are refused: they go on
//! "working" after the file changes, showing the wrong lines.

use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

static INCLUDE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\{\{#(include|rustdoc_include)\s+([^}\s:]+)(?::([^}\s]+))?\s*\}\}").unwrap()
});

/// Problems with the includes of a page whose file lives in `page_dir`.
pub fn check(page: &str, page_dir: &Path) -> Vec<String> {
    let mut problems = Vec::new();
    for caps in INCLUDE.captures_iter(page) {
        let file = &caps[2];
        let path = page_dir.join(file);
        let Ok(text) = std::fs::read_to_string(&path) else {
            problems.push(format!("include of a missing file {file}"));
            continue;
        };
        let Some(anchor) = caps.get(3).map(|m| m.as_str()) else {
            continue;
        };
        if anchor.split(':').all(|part| part.is_empty() || part.bytes().all(|b| b.is_ascii_digit()))
        {
            // a line range shows other lines as soon as the file changes
            problems.push(format!("{file}:{anchor}: include by ANCHOR, not by line numbers"));
            continue;
        }
        let begins = text.lines().filter(|l| marker(l, "ANCHOR") == Some(anchor)).count();
        let ends = text.lines().filter(|l| marker(l, "ANCHOR_END") == Some(anchor)).count();
        if begins != 1 || ends != 1 {
            problems.push(format!(
                "{file}:{anchor}: expected one `ANCHOR: {anchor}` and one `ANCHOR_END: {anchor}`, found {begins} and {ends}"
            ));
        }
    }
    problems
}

/// The anchor name of a `// ANCHOR: name` (or `ANCHOR_END`) line.
fn marker<'a>(line: &'a str, kind: &str) -> Option<&'a str> {
    let rest = line.split_once(&format!("{kind}:"))?.1;
    // `ANCHOR:` must not match inside `ANCHOR_END:`.
    let before = line.split_once(&format!("{kind}:"))?.0;
    if kind == "ANCHOR" && before.ends_with('_') {
        return None;
    }
    Some(rest.trim())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers() {
        assert_eq!(marker("    // ANCHOR: jane", "ANCHOR"), Some("jane"));
        assert_eq!(marker("    // ANCHOR_END: jane", "ANCHOR"), None);
        assert_eq!(marker("    // ANCHOR_END: jane", "ANCHOR_END"), Some("jane"));
    }
}
