//! Bad options are refused with a message; a small run prints every demo.

use ch09_reversal::{Options, run};
use clap::Parser;
use record::Notebook;

#[test]
fn bad_options_are_refused() {
    for args in [
        &["--steps", "10"][..],
        &["--lengths", "1"],
        &["--lengths", "8,200"],
        &["--lengths", "8,,16"],
        &["--models", "lstm"],
        &["--seeds", "0"],
        &["--seeds", "33"],
        &["--exercise-seeds", "0"],
        &["--test", "0"],
        &["--speed-lengths", "x"],
        &["--exercise-length", "129"],
        &["--seed", "18446744073709551615"],
        &["--seed", "4294967296"],
        &["--bogus"],
    ] {
        let err = Options::try_parse_from(std::iter::once("ch09").chain(args.iter().copied()))
            .expect_err("refused");
        assert_eq!(err.exit_code(), 2, "{args:?}");
    }
}

#[test]
fn a_small_run_prints_every_demo() {
    let args = include_str!("../determinism.args").split_whitespace();
    let opts = Options::parse_from(std::iter::once("ch09").chain(args));
    let mut nb = Notebook::quiet();
    run(&opts, &mut nb);
    let anchors: Vec<&str> = nb.demos().iter().map(|d| d.anchor.as_str()).collect();
    assert_eq!(
        anchors,
        [
            "setup",
            "pytorch",
            "experiment",
            "curves",
            "by_position",
            "what_it_learned",
            "speed",
            "exercise_longer"
        ]
    );
    let all: String = nb.demos().iter().map(|d| d.text.as_str()).collect();
    assert!(all.contains("batch 64, 50 steps"), "{all}");
    // the exercise carries the experiment's runs on instead of training anew
    assert!(all.contains("L = 8: the experiment's runs of its first 1 seeds"), "{all}");
    assert!(all.contains("GRU + attention, 100 steps"), "{all}");
    assert!(!all.contains("NaN") && !all.contains("no Transformer run"), "{all}");
}

#[test]
fn one_model_alone_still_runs() {
    let opts = Options::parse_from([
        "ch09",
        "--models",
        "gru",
        "--steps",
        "50",
        "--lengths",
        "6",
        "--seeds",
        "1",
        "--test",
        "5",
        "--probe",
        "3",
        "--speed-lengths",
        "6",
        "--exercise-steps",
        "50",
        "--exercise-length",
        "6",
    ]);
    let mut nb = Notebook::quiet();
    run(&opts, &mut nb);
    let all: String = nb.demos().iter().map(|d| d.text.as_str()).collect();
    assert!(all.contains("no Transformer run") && all.contains("no GRU + attention run"), "{all}");
    assert!(!all.contains("Transformer    "), "{all}");
}
