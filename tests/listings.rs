//! Every listing teaches: a page's `{{#include path:anchor}}` shows the code
//! that computes what its section teaches, not the harness that prints and
//! records it (STYLE.md rule 12, CONTRIBUTING "Show the code that computes").
//!
//! The measure: of an anchor's code lines (blank lines and comments left
//! out), how many print or record — `say!`, `println!`, `nb.`, `show::`,
//! `record(`, `par_iter`. A listing of 8 code lines or more in which at
//! least a third do is "mostly harness", and fails the test unless it is
//! one of the few [`EXCEPTIONS`], each with its reason.

mod lang;

use lang::{pages, root};

/// What marks a line as printing or recording.
const HARNESS: [&str; 6] = ["say!", "println!", "nb.", "show::", "record(", "par_iter"];

/// Listings that may be mostly harness, and why: (page, anchor, reason).
const EXCEPTIONS: [(&str, &str, &str); 0] = [];

/// One included listing and its count.
#[derive(Debug)]
struct Listing {
    page: String,
    anchor: String,
    code: usize,
    harness: usize,
}

impl Listing {
    fn mostly_harness(&self) -> bool {
        self.code >= 8 && 3 * self.harness >= self.code
    }
}

/// The code lines of `anchor` in `text` (nested anchor markers and comments
/// left out), or `None` if the anchor is not there.
fn anchor_lines<'a>(text: &'a str, anchor: &str) -> Option<Vec<&'a str>> {
    let start = format!("ANCHOR: {anchor}");
    let end = format!("ANCHOR_END: {anchor}");
    let mut lines = text.lines();
    lines.by_ref().find(|l| l.trim_end().ends_with(&start))?;
    let body: Vec<&str> = lines.take_while(|l| !l.trim_end().ends_with(&end)).collect();
    Some(
        body.into_iter()
            .filter(|l| {
                let t = l.trim();
                !t.is_empty() && !t.starts_with("//")
            })
            .collect(),
    )
}

/// Count one listing.
fn count(page: &str, anchor: &str, lines: &[&str]) -> Listing {
    let harness = lines.iter().filter(|l| HARNESS.iter().any(|h| l.contains(h))).count();
    Listing { page: page.to_owned(), anchor: anchor.to_owned(), code: lines.len(), harness }
}

/// Every `{{#include path:anchor}}` of every page, counted.
fn listings() -> Vec<Listing> {
    let include = regex::Regex::new(r"\{\{#include ([^:}]+):([A-Za-z0-9_]+)\}\}").unwrap();
    let mut out = Vec::new();
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        let name = page.file_name().unwrap().to_string_lossy().into_owned();
        for cap in include.captures_iter(&text) {
            let path = root().join("book").join(&cap[1]);
            let source = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("{name}: cannot read {}: {e}", path.display()));
            let lines = anchor_lines(&source, &cap[2])
                .unwrap_or_else(|| panic!("{name}: {} has no anchor {}", &cap[1], &cap[2]));
            out.push(count(&name, &cap[2], &lines));
        }
    }
    out
}

#[test]
fn every_listing_shows_the_computation_not_the_harness() {
    let all = listings();
    assert!(all.len() > 100, "only {} listings found", all.len());
    let failing: Vec<String> = all
        .iter()
        .filter(|l| l.mostly_harness())
        .filter(|l| !EXCEPTIONS.iter().any(|(p, a, _)| *p == l.page && *a == l.anchor))
        .map(|l| {
            format!(
                "book/{}: listing `{}` is mostly harness: {} of its {} code lines print or record",
                l.page, l.anchor, l.harness, l.code
            )
        })
        .collect();
    assert!(
        failing.is_empty(),
        "{} listing(s) show the harness instead of the computation (split the demo: the \
         function that computes is shown, the one that reports is not):\n{}",
        failing.len(),
        failing.join("\n")
    );
}

#[test]
fn every_exception_is_still_needed() {
    let all = listings();
    for (page, anchor, why) in EXCEPTIONS {
        assert!(!why.is_empty());
        let l = all.iter().find(|l| l.page == page && l.anchor == anchor);
        assert!(
            l.is_some_and(Listing::mostly_harness),
            "book/{page}: `{anchor}` is excepted but is not a mostly-harness listing any more"
        );
    }
}

#[test]
fn the_measure_catches_a_listing_of_printing() {
    let source = r#"
// ANCHOR: demo
pub fn demo(nb: &mut Notebook) {
    // a comment does not count
    let x = compute();
    let a = nb.value("a", show::num(x, 3));
    say!(nb, "a = {a}");
    let b = nb.value("b", show::num(2.0 * x, 3));
    say!(nb, "b = {b}");
    let y = compute_more(x);
    say!(nb, "y = {y}");
}
// ANCHOR_END: demo
"#;
    let lines = anchor_lines(source, "demo").unwrap();
    let l = count("page.md", "demo", &lines);
    assert_eq!((l.code, l.harness), (9, 5));
    assert!(l.mostly_harness());
    // the computation alone passes
    let computing = count("page.md", "compute", &lines[1..3]);
    assert!(!computing.mostly_harness());
}
