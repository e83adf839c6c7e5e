//! The reproduction report holds: every chapter's `lecture.toml` pairs are
//! checked against the chapter's pinned values and the book's pages, without
//! building the book. (`src/reproduction.rs` shows each check failing on a
//! changed value.)

use txbook::Snapshots;
use txbook::reproduction::{self, Verdict};

/// The repository's root.
fn root() -> std::path::PathBuf {
    std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn every_pair_of_every_chapter_holds() {
    let chapters_dir = root().join("chapters");
    let chapters = reproduction::load_all(&chapters_dir).unwrap();
    let snapshots = Snapshots::new(chapters_dir);
    let problems = reproduction::check_all(&chapters, &snapshots, &root().join("book"));
    assert!(problems.is_empty(), "{} problem(s):\n  {}", problems.len(), problems.join("\n  "));
    for ch in &chapters {
        let count = |v: Verdict| ch.pairs.iter().filter(|p| p.verdict == v).count();
        let counts: Vec<String> =
            Verdict::ALL.iter().map(|&v| format!("{v:?} {}", count(v))).collect();
        println!("{}: {}, not reproduced {}", ch.key, counts.join(", "), ch.missing.len());
    }
}

#[test]
fn every_chapter_page_contributes_and_the_report_is_in_the_book() {
    let chapters = reproduction::load_all(&root().join("chapters")).unwrap();
    let summary = std::fs::read_to_string(root().join("book/SUMMARY.md")).unwrap();
    for ch in &chapters {
        assert!(
            summary.contains(&format!("]({})", ch.page)),
            "{}: {} is not in SUMMARY",
            ch.key,
            ch.page
        );
        assert!(
            !ch.pairs.is_empty() || !ch.missing.is_empty(),
            "{}: lecture.toml is empty",
            ch.key
        );
    }
    let page = std::fs::read_to_string(root().join("book/reproduction.md")).unwrap();
    for lang in ["zh", "en"] {
        assert!(
            page.contains(&format!("{{{{reproduction {lang}}}}}")),
            "the report has no {lang} table"
        );
    }
}
