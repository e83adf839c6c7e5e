//! `--figures DIR` end to end, through the chapter binary: figures land in a
//! writable directory; a directory that cannot be written is refused with a
//! sentence and exit code 2 before any demo runs — never an `Os { … }` dump.

use std::process::Command;

fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("ch02-figures-{}-{name}", std::process::id()));
    std::fs::remove_dir_all(&dir).ok();
    dir
}

#[test]
fn figures_are_written_where_asked() {
    let dir = scratch("ok");
    let out = Command::new(env!("CARGO_BIN_EXE_ch02_self_attention"))
        .arg("--figures")
        .arg(&dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(dir.join("jane_weights.svg").is_file());
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn an_unwritable_figures_directory_is_a_sentence_and_exit_code_2() {
    // A directory inside a regular file cannot be created, even by root.
    let file = scratch("file");
    std::fs::write(&file, b"not a directory").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_ch02_self_attention"))
        .arg("--figures")
        .arg(file.join("figures"))
        .output()
        .unwrap();
    std::fs::remove_file(&file).ok();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.starts_with("error: cannot write the figures to "), "{stderr}");
    assert!(!stderr.contains("Os {"), "{stderr}");
    assert!(out.stdout.is_empty(), "the demos ran before the refusal");
}
