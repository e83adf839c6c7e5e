//! Bad options are refused with a message; a small run prints every demo.

use ch06_positional_encoding::{Options, run};
use clap::Parser;
use record::Notebook;

#[test]
fn bad_options_are_refused() {
    for args in [
        &["--d-model", "7"][..],
        &["--d-model", "2048"],
        &["--beta", "-1"],
        &["--beta", "1,nan"],
        &["--len", "1"],
        &["--seeds", "0"],
        &["--long-steps", "0"],
        &["--l6-positions", "1"],
        &["--seed", "18446744073709551615"],
        &["--seed", "4294967296"],
        &["--bogus"],
    ] {
        let err = Options::try_parse_from(std::iter::once("ch06").chain(args.iter().copied()))
            .expect_err("refused");
        assert_eq!(err.exit_code(), 2, "{args:?}");
    }
}

#[test]
fn a_small_run_prints_every_demo() {
    let opts = Options::parse_from([
        "ch06",
        "--d-model",
        "16",
        "--l6-positions",
        "64",
        "--steps",
        "2",
        "--long-steps",
        "2",
        "--seeds",
        "1",
        "--len",
        "4",
        "--beta",
        "3",
    ]);
    let mut nb = Notebook::quiet();
    run(&opts, &mut nb);
    let anchors: Vec<&str> = nb.demos().iter().map(|d| d.anchor.as_str()).collect();
    assert_eq!(
        anchors,
        [
            "sinusoids",
            "d512_facts",
            "rotation",
            "distance_only",
            "previous_token",
            "learned_limit",
            "reversal",
            "scale_of_signals",
            "exercise_6",
            "narrower",
            "reversal_longer"
        ]
    );
    let all: String = nb.demos().iter().map(|d| d.text.as_str()).collect();
    assert!(all.contains("d_model = 16") && all.contains("first 64 positions"), "{all}");
    assert!(!all.contains("NaN"));
}
