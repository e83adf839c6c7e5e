//! Bad options are refused with a message.

use ch10_training_recipe::Options;
use clap::Parser;

#[test]
fn bad_options_are_refused() {
    for args in [
        &["--samples", "10"][..],
        &["--steps", "0"],
        &["--steps", "many"],
        &["--batch", "0"],
        &["--warmup", "0"],
        &["--seeds", "0"],
        &["--seeds", "21"],
        &["--test", "0"],
        &["--average-steps", "49"],
        &["--seed", "-1"],
        &["--bogus"],
    ] {
        let err = Options::try_parse_from(std::iter::once("ch10").chain(args.iter().copied()))
            .expect_err("refused");
        assert_eq!(err.exit_code(), 2, "{args:?}");
    }
}
