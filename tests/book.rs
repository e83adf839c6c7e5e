//! Whole-book checks: the book builds with every directive, include and
//! formula resolved; every page is in SUMMARY.md; every page's languages
//! pair up; the built pages reference nothing outside the book.

use std::path::{Path, PathBuf};

use mdbook_driver::MDBook;
use txbook::Txbook;

mod lang;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn pages() -> Vec<PathBuf> {
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
    assert!(html.contains("pub fn jane("));
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
