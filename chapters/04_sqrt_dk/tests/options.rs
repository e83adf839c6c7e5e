//! Bad options are refused with a message; the sweep honours its options.

use ch04_sqrt_dk::{Options, run};
use clap::Parser;
use record::Notebook;

#[test]
fn bad_options_are_refused() {
    for args in [
        &["--dk", "0"][..],
        &["--dk", "16,2000"],
        &["--dk", "sixteen"],
        &["--steps", "10"],
        &["--pairs", "-5"],
        &["--draws", "nan"],
        &["--ex9-heads", "0"],
        &["--seeds", "1"],
        &["--seed", "18446744073709551615"],
        &["--seed", "4294967296"],
        &["--bogus"],
    ] {
        let err = Options::try_parse_from(std::iter::once("ch04").chain(args.iter().copied()))
            .expect_err("refused");
        assert_eq!(err.exit_code(), 2, "{args:?}");
    }
}

#[test]
fn a_small_run_prints_every_demo() {
    let opts = Options::parse_from([
        "ch04",
        "--pairs",
        "200",
        "--draws",
        "20",
        "--dk",
        "8",
        "--steps",
        "25",
        "--ex9-steps",
        "2",
        "--ex9-dk",
        "4",
        "--ex9-heads",
        "2",
        "--seeds",
        "3",
    ]);
    let mut nb = Notebook::quiet();
    run(&opts, &mut nb);
    let anchors: Vec<&str> = nb.demos().iter().map(|d| d.anchor.as_str()).collect();
    assert_eq!(
        anchors,
        [
            "variance",
            "saturation",
            "lookup_sweep",
            "gradient_at_start",
            "l6_exercise_1",
            "exercise_2",
            "exercise_9",
            "exercise_seed",
            "exercise_seeds"
        ]
    );
    let all: String = nb.demos().iter().map(|d| d.text.as_str()).collect();
    assert!(all.contains("d_k    8 scaled") && all.contains("d_model 8, 2 heads"), "{all}");
    assert!(!all.contains("NaN"));
}
