//! The book's pages, and the language pairing rules every page follows.
//!
//! * Prose lives in `<div lang="zh">` / `<div lang="en">` blocks that come in
//!   pairs, Chinese first, each with a blank line after its opening tag and
//!   before `</div>` (mdBook renders Markdown inside only then).
//! * A Chinese block contains Chinese; an English block contains none.
//! * A Chinese block quotes with “…”, never ASCII `"…"`: next to Chinese
//!   characters mdBook's smart punctuation turns both ASCII quotes into “.
//! * The two blocks of a pair have the same shape: the same sequence of
//!   paragraphs, list items, display formulas, table rows and quotes.
//! * A figure's caption is a pair of the same kind, `<div lang="zh"
//!   class="caption">` then `<div lang="en" class="caption">`; a caption
//!   never pairs with a prose block.
//! * Headings and `<summary>` lines carry both languages as
//!   `<span lang="zh">…</span> <span lang="en">…</span>`.
//! * Outside the blocks only headings, code blocks, `{{output …}}`,
//!   `{{figure …}}` and `<details>` scaffolding may appear.

use std::path::PathBuf;

/// The repository's root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every Markdown page of the book but SUMMARY.md, sorted.
pub fn pages() -> Vec<PathBuf> {
    let mut pages: Vec<PathBuf> = std::fs::read_dir(root().join("book"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .filter(|p| p.file_name().unwrap() != "SUMMARY.md")
        .collect();
    pages.sort();
    pages
}

/// An HTML tag, dropped before looking for ASCII quotes in Chinese prose.
static TAG: std::sync::LazyLock<regex::Regex> =
    std::sync::LazyLock::new(|| regex::Regex::new("<[^>]*>").unwrap());

pub fn check(page: &str) -> Vec<String> {
    let mut problems = Vec::new();
    // (lang, first line, lines, is a caption)
    let mut blocks: Vec<(String, usize, Vec<String>, bool)> = Vec::new();
    let mut open: Option<(String, usize, Vec<String>, bool)> = None;
    let mut fence = false;
    let lines: Vec<&str> = page.lines().collect();
    for (i, &line) in lines.iter().enumerate() {
        let n = i + 1;
        let t = line.trim();
        if t.starts_with("```") {
            fence = !fence;
            if let Some((_, _, body, _)) = open.as_mut() {
                body.push(line.to_string());
            }
            continue;
        }
        if fence {
            if let Some((_, _, body, _)) = open.as_mut() {
                body.push(line.to_string());
            }
            continue;
        }
        if let Some((lang, caption)) = block_tag(t) {
            if open.is_some() {
                problems.push(format!("line {n}: a language block opens inside another"));
            }
            if lines.get(i + 1).is_some_and(|l| !l.trim().is_empty()) {
                problems.push(format!("line {n}: a blank line must follow <div lang=\"{lang}\">"));
            }
            open = Some((lang.to_string(), n, Vec::new(), caption));
            continue;
        }
        if t == "</div>" {
            match open.take() {
                Some(block) => {
                    if i > 0 && !lines[i - 1].trim().is_empty() {
                        problems.push(format!("line {n}: a blank line must precede </div>"));
                    }
                    blocks.push(block);
                }
                None => problems.push(format!("line {n}: </div> without a language block")),
            }
            continue;
        }
        if let Some((_, _, body, _)) = open.as_mut() {
            body.push(line.to_string());
            continue;
        }
        // Outside every block.
        if t.is_empty() || t == "<details>" || t == "</details>" || is_directive(t) {
            continue;
        }
        if t.starts_with('#') || t.starts_with("<summary>") {
            if let Err(e) = both_spans(t) {
                problems.push(format!("line {n}: {e}"));
            }
            continue;
        }
        problems.push(format!("line {n}: text outside a language block: {t}"));
    }
    if let Some((lang, n, _, _)) = open {
        problems.push(format!("line {n}: <div lang=\"{lang}\"> is never closed"));
    }
    if fence {
        problems.push("a code block is never closed".into());
    }
    for pair in blocks.chunks(2) {
        let (zh, en) = match pair {
            [zh, en] => (zh, en),
            [lone] => {
                problems.push(format!("line {}: a {} block without its partner", lone.1, lone.0));
                continue;
            }
            _ => unreachable!(),
        };
        if zh.0 != "zh" || en.0 != "en" {
            problems.push(format!(
                "lines {} and {}: blocks must pair as zh then en, found {} then {}",
                zh.1, en.1, zh.0, en.0
            ));
            continue;
        }
        if zh.3 != en.3 {
            problems.push(format!(
                "lines {} and {}: a caption pairs only with a caption (class=\"caption\" on both)",
                zh.1, en.1
            ));
            continue;
        }
        let (zh_text, en_text) = (zh.2.join("\n"), en.2.join("\n"));
        if zh_text.trim().is_empty() || en_text.trim().is_empty() {
            problems.push(format!("lines {} and {}: an empty block", zh.1, en.1));
            continue;
        }
        if !prose(&zh_text).chars().any(is_han) {
            problems.push(format!("line {}: the Chinese block has no Chinese", zh.1));
        }
        let untagged = TAG.replace_all(&zh_text, "").into_owned();
        if prose(&untagged).contains('"') {
            problems
                .push(format!("line {}: the Chinese block quotes with ASCII \"; write “…”", zh.1));
        }
        if let Some(c) = prose(&en_text).chars().find(|&c| is_han(c)) {
            problems.push(format!("line {}: the English block contains `{c}`", en.1));
        }
        let (zs, es) = (shape(&zh.2), shape(&en.2));
        if zs != es {
            problems.push(format!(
                "lines {} and {}: the two languages differ in shape:\n    zh {zs:?}\n    en {es:?}",
                zh.1, en.1
            ));
        }
    }
    problems
}

/// `<div lang="zh">` or `<div lang="zh" class="caption">`: the language and
/// whether the block is a figure's caption.
fn block_tag(t: &str) -> Option<(&str, bool)> {
    let rest = t.strip_prefix("<div lang=\"")?;
    if let Some(lang) = rest.strip_suffix("\" class=\"caption\">") {
        return Some((lang, true));
    }
    rest.strip_suffix("\">").map(|lang| (lang, false))
}

fn is_directive(t: &str) -> bool {
    (t.starts_with("{{output ") || t.starts_with("{{figure ") || t.starts_with("{{glossary "))
        && t.ends_with("}}")
}

/// A heading or summary must hold `<span lang="zh">…</span> <span lang="en">…</span>`.
fn both_spans(t: &str) -> Result<(), String> {
    let span = |lang: &str| -> Option<String> {
        let open = format!("<span lang=\"{lang}\">");
        let start = t.find(&open)? + open.len();
        let end = t[start..].find("</span>")? + start;
        Some(t[start..end].trim().to_string())
    };
    match (span("zh"), span("en")) {
        (Some(z), Some(e)) if !z.is_empty() && !e.is_empty() => {
            if t.find("lang=\"zh\"") < t.find("lang=\"en\"") {
                Ok(())
            } else {
                Err(format!("put the Chinese span first: {t}"))
            }
        }
        _ => Err(format!("needs a Chinese and an English span: {t}")),
    }
}

/// Text without code spans, code blocks and maths (which are shared).
fn prose(text: &str) -> String {
    let mut out = String::new();
    let mut fence = false;
    for line in text.lines() {
        if line.trim().starts_with("```") {
            fence = !fence;
            continue;
        }
        if fence {
            continue;
        }
        let mut in_code = false;
        let mut in_math = false;
        for c in line.chars() {
            match c {
                '`' => in_code = !in_code,
                '$' if !in_code => in_math = !in_math,
                c if !in_code && !in_math => out.push(c),
                _ => {}
            }
        }
        out.push('\n');
    }
    out
}

fn is_han(c: char) -> bool {
    matches!(c, '\u{3400}'..='\u{4DBF}' | '\u{4E00}'..='\u{9FFF}' | '\u{F900}'..='\u{FAFF}' | '\u{3000}'..='\u{303F}' | '\u{FF00}'..='\u{FFEF}')
}

/// The sequence of Markdown units in a block: paragraphs, list items,
/// display maths, table rows, quotes, code blocks.
fn shape(lines: &[String]) -> Vec<&'static str> {
    let mut units = Vec::new();
    let mut in_para = false;
    let mut in_math = false;
    let mut fence = false;
    for line in lines {
        let t = line.trim();
        if t.starts_with("```") {
            if !fence {
                units.push("code");
            }
            fence = !fence;
            in_para = false;
            continue;
        }
        if fence {
            continue;
        }
        if t == "$$" {
            if !in_math {
                units.push("math");
            }
            in_math = !in_math;
            in_para = false;
            continue;
        }
        if in_math {
            continue;
        }
        if t.is_empty() {
            in_para = false;
        } else if t.starts_with("- ")
            || t.split_once(". ").is_some_and(|(n, _)| n.parse::<u32>().is_ok())
        {
            units.push("item");
            in_para = true;
        } else if t.starts_with('|') {
            units.push("row");
            in_para = false;
        } else if t.starts_with('>') {
            if !in_para {
                units.push("quote");
            }
            in_para = true;
        } else if !in_para {
            units.push("para");
            in_para = true;
        }
    }
    units
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_good_pair_passes_and_a_missing_partner_fails() {
        let good = "# <span lang=\"zh\">标题</span> <span lang=\"en\">Title</span>\n\n<div lang=\"zh\">\n\n一段。\n\n</div>\n<div lang=\"en\">\n\nA paragraph.\n\n</div>\n";
        assert!(check(good).is_empty(), "{:?}", check(good));
        let lone = "<div lang=\"zh\">\n\n一段。\n\n</div>\n";
        assert!(!check(lone).is_empty());
        let shapes = "<div lang=\"zh\">\n\n一段。\n\n- 一\n- 二\n\n</div>\n<div lang=\"en\">\n\nOne.\n\n- one\n\n</div>\n";
        assert!(check(shapes).iter().any(|p| p.contains("shape")));
        let stray = "Some text.\n";
        assert!(!check(stray).is_empty());
        let caption = |zh: &str, en: &str| {
            format!(
                "<div lang=\"zh\"{zh}>\n\n**图 1.1** 一段。\n\n</div>\n<div lang=\"en\"{en}>\n\n**Figure 1.1** One.\n\n</div>\n"
            )
        };
        let both = caption(" class=\"caption\"", " class=\"caption\"");
        assert!(check(&both).is_empty(), "{:?}", check(&both));
        let half = caption(" class=\"caption\"", "");
        assert!(check(&half).iter().any(|p| p.contains("caption")), "{:?}", check(&half));
    }
}
