//! Whole-book checks: the book builds with every directive, include and
//! formula resolved; every page is in SUMMARY.md; every page's languages
//! pair up; the built pages reference nothing outside the book.

use std::path::{Path, PathBuf};

use mdbook_driver::MDBook;
use txbook::Txbook;

mod lang;

use lang::{pages, root};

/// Build the book into `out` with the library preprocessor (no install, no
/// `cargo run` inside a test).
fn build(out: &Path) -> anyhow::Result<()> {
    let mut book = MDBook::load(root())?;
    book.config.build.build_dir = out.to_path_buf();
    book.with_preprocessor(Txbook);
    book.build()
}

#[test]
fn every_page_is_in_the_summary() {
    let summary = std::fs::read_to_string(root().join("book/SUMMARY.md")).unwrap();
    for page in pages() {
        let name = page.file_name().unwrap().to_string_lossy().into_owned();
        assert!(
            summary.contains(&format!("]({name})")),
            "book/{name} is not listed in book/SUMMARY.md, so it would never be built"
        );
    }
}

/// A link between pages must lead somewhere: every relative Markdown link
/// `[text](page.md#anchor)` names a page that exists in `book/`. (Draft
/// entries of SUMMARY.md, `[title]()`, are not links.)
#[test]
fn every_link_between_pages_resolves() {
    let link = regex::Regex::new(r"\]\(([^)\s]+)\)").unwrap();
    let mut problems = Vec::new();
    let mut files = pages();
    files.push(root().join("book/SUMMARY.md"));
    for page in files {
        let text = std::fs::read_to_string(&page).unwrap();
        for (n, line) in text.lines().enumerate() {
            for cap in link.captures_iter(line) {
                let target = &cap[1];
                if target.contains("://")
                    || target.starts_with('#')
                    || target.starts_with("mailto:")
                {
                    continue;
                }
                let file = target.split('#').next().unwrap();
                if !page.parent().unwrap().join(file).is_file() {
                    problems.push(format!("{}:{}: no page {file}", page.display(), n + 1));
                }
            }
        }
    }
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

/// No control character in a page: a formula written through a string
/// escape (`"\tanh"`) arrives as a tab and the letters `anh`.
#[test]
fn no_page_holds_a_control_character() {
    let mut problems = Vec::new();
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        for (n, line) in text.lines().enumerate() {
            if let Some(c) = line.chars().find(|c| c.is_control()) {
                problems.push(format!("{}:{}: control character {c:?}", page.display(), n + 1));
            }
        }
    }
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

#[test]
fn every_page_pairs_its_languages() {
    let mut problems = Vec::new();
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        for p in lang::check(&text) {
            problems.push(format!("{}: {p}", page.display()));
        }
    }
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

/// Every figure, or run of figures with only blank lines between them, is
/// followed by a caption pair numbered `chapter.k`, k = 1, 2, … in page
/// order, with the same number in both languages; no caption stands alone.
fn caption_problems(page: &str, chapter: Option<u32>) -> Vec<String> {
    let lines: Vec<&str> = page.lines().map(str::trim).collect();
    let is_figure = |t: &str| t.starts_with("{{figure ") && t.ends_with("}}");
    let mut problems = Vec::new();
    let (mut next, mut i, mut fence) = (1, 0, false);
    while i < lines.len() {
        let t = lines[i];
        if t.starts_with("```") {
            fence = !fence;
        }
        if fence || !is_figure(t) {
            if !fence && t.starts_with("<div lang=") && t.contains("class=\"caption\"") {
                problems.push(format!("line {}: a caption with no figure above it", i + 1));
            }
            i += 1;
            continue;
        }
        let first = i + 1;
        while i < lines.len() && (lines[i].is_empty() || is_figure(lines[i])) {
            i += 1;
        }
        let Some(chapter) = chapter else {
            problems.push(format!("line {first}: a figure on a page with no chapter number"));
            continue;
        };
        let want = format!("{chapter}.{next}");
        next += 1;
        let pair = caption(&lines, i, "zh", "**图 ").and_then(|(zh, end)| {
            caption(&lines, end, "en", "**Figure ").map(|(en, end)| (zh, en, end))
        });
        match pair {
            Ok((zh, en, end)) => {
                if zh != want || en != want {
                    problems.push(format!(
                        "line {first}: the caption should be numbered {want}, found 图 {zh} / Figure {en}"
                    ));
                }
                i = end;
            }
            Err(e) => problems.push(format!("line {first}: {e}")),
        }
    }
    problems
}

/// The caption block opening at `lines[at]`: its number (what stands between
/// `label` and the closing `**` of its first line) and the line after `</div>`.
fn caption(lines: &[&str], at: usize, lang: &str, label: &str) -> Result<(String, usize), String> {
    let open = format!("<div lang=\"{lang}\" class=\"caption\">");
    if lines.get(at) != Some(&open.as_str()) {
        return Err(format!("the figure needs a caption pair; `{open}` should come next"));
    }
    let close =
        (at..lines.len()).find(|&k| lines[k] == "</div>").ok_or("a caption never closes")?;
    let text = lines[at + 1..close].iter().find(|l| !l.is_empty()).copied().unwrap_or("");
    let number = text
        .strip_prefix(label)
        .and_then(|rest| rest.split_once("**"))
        .map(|(n, _)| n.to_string())
        .ok_or_else(|| format!("the {lang} caption should start with `{label}N.k**`: {text}"))?;
    Ok((number, close + 1))
}

#[test]
fn every_figure_has_a_numbered_caption_pair() {
    let mut problems = Vec::new();
    for page in pages() {
        let name = page.file_name().unwrap().to_string_lossy().into_owned();
        let chapter = name.get(..2).and_then(|n| n.parse().ok());
        let text = std::fs::read_to_string(&page).unwrap();
        for p in caption_problems(&text, chapter) {
            problems.push(format!("{}: {p}", page.display()));
        }
    }
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

#[test]
fn the_caption_check_catches_a_missing_or_misnumbered_caption() {
    let pair = |zh: &str, en: &str| {
        format!(
            "<div lang=\"zh\" class=\"caption\">\n\n**图 {zh}** 说明。\n\n</div>\n<div lang=\"en\" class=\"caption\">\n\n**Figure {en}** Says.\n\n</div>\n"
        )
    };
    let page = |captions: [String; 2]| {
        format!(
            "{{{{figure ch08.a}}}}\n\n{{{{figure ch08.b}}}}\n\n{}\ntext\n\n{{{{figure ch08.c}}}}\n{}",
            captions[0], captions[1]
        )
    };
    let good = page([pair("8.1", "8.1"), pair("8.2", "8.2")]);
    assert_eq!(caption_problems(&good, Some(8)), Vec::<String>::new());
    for bad in [
        page([pair("8.1", "8.1"), pair("8.3", "8.3")]), // skips a number
        page([pair("8.1", "8.1"), pair("8.2", "8.1")]), // the languages disagree
        page([pair("7.1", "7.1"), pair("7.2", "7.2")]), // another chapter's number
        page([pair("8.1", "8.1"), String::new()]),      // a figure without caption
        page([pair("8.1", "8.1"), pair("8.2", "8.2").replace(" class=\"caption\"", "")]),
        format!("{}{}", good, pair("8.3", "8.3")), // a caption without figure
    ] {
        assert!(!caption_problems(&bad, Some(8)).is_empty(), "accepted:\n{bad}");
    }
}

#[test]
fn the_book_builds_and_is_self_contained() {
    let tmp = TempDir::new();
    let out = tmp.0.clone();
    if let Err(e) = build(&out) {
        panic!("the book does not build: {e:#}");
    }
    let html = std::fs::read_to_string(out.join("02_self_attention.html")).unwrap();
    // The pinned output, a value, the figure, an include and the maths arrived.
    assert!(html.contains("== L17 01.1 · Jane visite l"));
    assert!(html.contains("<strong>0.614</strong>"));
    assert!(html.contains("<figure class=\"txbook-figure\">"));
    assert!(html.contains("pub fn jane_attention("));
    assert!(html.contains("class=\"katex\""));
    assert!(out.join("katex/katex.min.css").exists());
    assert!(out.join("assets/txbook.js").exists() && out.join("assets/txbook.css").exists());
    let mut problems = Vec::new();
    for file in walk(&out) {
        let ext = file.extension().map(|e| e.to_string_lossy().into_owned()).unwrap_or_default();
        if ext != "html" && ext != "css" && ext != "js" {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        for bad in external_references(&text) {
            problems.push(format!("{}: references {bad}", file.display()));
        }
        if ext == "html" && text.contains("{{") && !file.ends_with("print.html") {
            let at = text.find("{{").unwrap();
            problems.push(format!("{}: unexpanded `{}`", file.display(), &text[at..at + 30]));
        }
        if ext == "css" {
            for font in local_urls(&text) {
                if !file.parent().unwrap().join(&font).exists() {
                    problems.push(format!("{}: missing {font}", file.display()));
                }
            }
        }
    }
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

/// `src="http…"`, `href="http…"` or `url(http…)`: anything a page would load
/// or link from outside the book.
fn external_references(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for pat in
        ["src=\"http", "href=\"http", "url(http", "url(\"http", "src='http", "href='http", "//cdn"]
    {
        for (at, _) in text.match_indices(pat) {
            found.push(text[at..].chars().take(60).collect());
        }
    }
    found
}

fn local_urls(css: &str) -> Vec<String> {
    css.split("url(")
        .skip(1)
        .filter_map(|rest| rest.split(')').next())
        .map(|u| u.trim_matches(['"', '\'']).to_string())
        .filter(|u| !u.starts_with("data:") && !u.starts_with('#'))
        .map(|u| u.split(['?', '#']).next().unwrap().to_string())
        .collect()
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(path);
        }
    }
    files
}

/// A directory removed when the test ends, pass or fail.
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> Self {
        let dir = std::env::temp_dir().join(format!("txbook-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        std::fs::remove_dir_all(&self.0).ok();
    }
}
