//! Rules every chapter crate keeps, checked on their sources.

use std::path::Path;

/// Every chapter derives its random streams as `seed + offset`; a `--seed`
/// near `u64::MAX` would make that overflow (a panic in a debug build, a
/// silent wrap in release). So every chapter's `--seed` goes through the
/// one bounded parser, `record::cli::seed` (0 ..= 2³² − 1).
#[test]
fn every_chapter_bounds_its_seed_with_the_shared_parser() {
    let mut chapters = 0;
    for entry in std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("chapters")).unwrap()
    {
        let lib = entry.unwrap().path().join("src/lib.rs");
        let Ok(text) = std::fs::read_to_string(&lib) else { continue };
        chapters += 1;
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            if line.trim_start().starts_with("pub seed: u64") {
                let arg = lines[..i].iter().rev().find(|l| l.trim_start().starts_with("#[arg"));
                assert!(
                    arg.is_some_and(|a| a.contains("value_parser = record::cli::seed")),
                    "{}:{}: `--seed` must use value_parser = record::cli::seed",
                    lib.display(),
                    i + 1
                );
            }
        }
    }
    assert!(chapters >= 9, "found only {chapters} chapters");
}
