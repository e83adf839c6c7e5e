//! Bad options are refused with a message; other options still print every demo.

use ch08_decoder_masks::{Options, run};
use clap::Parser;
use record::Notebook;

#[test]
fn bad_options_are_refused() {
    for args in [
        &["--len", "0"][..],
        &["--len", "eight"],
        &["--layers", "13"],
        &["--dropout", "1"],
        &["--dropout", "-0.1"],
        &["--dropout", "nan"],
        &["--samples", "10"],
        &["--train-steps", "0"],
        &["--train-steps", "20001"],
        &["--train-len", "1"],
        &["--train-len", "65"],
        &["--test", "0"],
        &["--test", "many"],
        &["--seed", "-1"],
        &["--seed", "18446744073709551615"],
        &["--seed", "4294967296"],
        &["--bogus"],
    ] {
        let err = Options::try_parse_from(std::iter::once("ch08").chain(args.iter().copied()))
            .expect_err("refused");
        assert_eq!(err.exit_code(), 2, "{args:?}");
    }
}

#[test]
fn other_options_print_every_demo_and_keep_the_masks_exact() {
    let opts = Options::parse_from([
        "ch08",
        "--len",
        "3",
        "--layers",
        "1",
        "--dropout",
        "0.5",
        "--samples",
        "200",
        "--seed",
        "7",
        "--train-steps",
        "5",
        "--train-len",
        "4",
        "--test",
        "10",
    ]);
    let mut nb = Notebook::quiet();
    run(&opts, &mut nb);
    let anchors: Vec<&str> = nb.demos().iter().map(|d| d.anchor.as_str()).collect();
    assert_eq!(
        anchors,
        [
            "look_ahead",
            "future_inputs",
            "unmasked_size",
            "jacobian",
            "agreement",
            "pytorch",
            "cross_attention",
            "padding",
            "cross_padding",
            "left_padding",
            "fully_masked_row",
            "parallel_vs_steps",
            "teacher_forcing",
            "generation",
            "dropout",
            "exercise_masks",
            "exercise_masked_count",
            "exercise_short_training"
        ]
    );
    let all: String = nb.demos().iter().map(|d| d.text.as_str()).collect();
    assert!(all.contains("1 decoder layers") && all.contains("target of 3 positions"), "{all}");
    assert!(all.contains("p = 0.5, 200 entries") && all.contains("seed 7"), "{all}");
    assert!(
        all.contains("reversal of length 4 over 10 symbols: 5 steps")
            && all.contains("10 test sequences"),
        "{all}"
    );
    // another seed, the same exact zeros
    for name in [
        "weight_above_diagonal",
        "past_change_masked",
        "jacobian_future_masked",
        "right_causal_0",
        "left_both_0",
        "cross_on_pads_masked",
    ] {
        assert_eq!(nb.number(name), 0.0, "{name}");
    }
    assert_eq!(nb.shown("keep_scale"), "2.0000");
    // however little it trained, the cache writes what the prefix passes write
    assert_eq!(nb.shown("gen_same_cached"), "true");
    assert_eq!(nb.shown("gen_same_ours"), "true");
}
