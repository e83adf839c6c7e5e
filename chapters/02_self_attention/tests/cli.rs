//! Bad options are refused with a message (clap exits with code 2), never
//! a panic or a NaN.

use ch02_self_attention::Options;
use clap::Parser;

fn refused(args: &[&str]) -> String {
    let argv = std::iter::once("ch02").chain(args.iter().copied());
    let err = Options::try_parse_from(argv).expect_err("should be refused");
    assert_eq!(err.exit_code(), 2, "{args:?}");
    err.to_string()
}

#[test]
fn out_of_range_and_unknown_options_are_refused() {
    assert!(refused(&["--strength", "-1"]).contains("must be between 0 and 100"));
    assert!(refused(&["--strength", "NaN"]).contains("must be between 0 and 100"));
    assert!(refused(&["--strength", "inf"]).contains("must be between 0 and 100"));
    assert!(refused(&["--strength", "four"]).contains("is not a number"));
    assert!(refused(&["--sharpen", "1,0"]).contains("must be greater than 0"));
    assert!(refused(&["--sharpen", "1e9"]).contains("must be between 0 and 1000"));
    assert!(refused(&["--bogus"]).contains("unexpected argument"));
    let too_big = refused(&["--seed", "18446744073709551615"]);
    assert!(too_big.contains("a seed is a whole number from 0 to 4294967295"), "{too_big}");
}

#[test]
fn the_extremes_that_are_allowed_print_finite_numbers() {
    for args in [["--strength", "100"], ["--sharpen", "1000"], ["--sharpen", "0.001"]] {
        let opts = Options::parse_from(std::iter::once("ch02").chain(args));
        let mut nb = record::Notebook::quiet();
        ch02_self_attention::run(&opts, &mut nb);
        let text: String = nb.demos().iter().map(|d| d.text.as_str()).collect();
        assert!(!text.contains("NaN") && !text.contains("inf"), "{args:?}");
    }
}
