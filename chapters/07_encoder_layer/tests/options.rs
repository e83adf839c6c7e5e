//! Bad options are refused with a message; a small run prints every demo.

use ch07_encoder_layer::{Options, run};
use clap::Parser;
use record::Notebook;

#[test]
fn bad_options_are_refused() {
    for args in [
        &["--steps", "50"][..],
        &["--steps", "ten"],
        &["--layers", "0"],
        &["--batch", "0"],
        &["--seeds", "11"],
        &["--max-depth", "1"],
        &["--eval", "-3"],
        &["--grad-batch", "nan"],
        &["--seed", "18446744073709551615"],
        &["--seed", "4294967296"],
        &["--bogus"],
    ] {
        let err = Options::try_parse_from(std::iter::once("ch07").chain(args.iter().copied()))
            .expect_err("refused");
        assert_eq!(err.exit_code(), 2, "{args:?}");
    }
}

#[test]
fn a_small_run_prints_every_demo() {
    let args = include_str!("../determinism.args").split_whitespace();
    let opts = Options::parse_from(std::iter::once("ch07").chain(args));
    let mut nb = Notebook::quiet();
    run(&opts, &mut nb);
    let anchors: Vec<&str> = nb.demos().iter().map(|d| d.anchor.as_str()).collect();
    assert_eq!(
        anchors,
        [
            "agreement",
            "pytorch",
            "parameters",
            "layer_vs_batch_norm",
            "deep_stack",
            "grad_by_depth",
            "post_vs_pre",
            "warmup_measured",
            "exercise_padding",
            "exercise_depth",
            "exercise_big_model",
            "exercise_adam_first_step"
        ]
    );
    let all: String = nb.demos().iter().map(|d| d.text.as_str()).collect();
    assert!(all.contains("2 encoder layers") && all.contains("batch 4, 100 steps"), "{all}");
    assert!(!all.contains("NaN"));
}
