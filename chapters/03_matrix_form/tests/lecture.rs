//! The exact figures equal the lecture's; the random ones agree in
//! substance; bad options are refused.

use ch03_matrix_form::{Options, run};
use clap::Parser;
use record::Notebook;

fn values() -> Vec<(String, String)> {
    let mut nb = Notebook::quiet();
    run(&Options::default(), &mut nb);
    nb.values().to_vec()
}

fn get(v: &[(String, String)], name: &str) -> String {
    v.iter().find(|(k, _)| k == name).unwrap().1.clone()
}

fn num(v: &[(String, String)], name: &str) -> f64 {
    get(v, name).parse().unwrap()
}

#[test]
fn three_implementations_agree_and_order_is_invisible_without_positions() {
    let v = values();
    assert!(num(&v, "loop_vs_matrix") <= 1e-15 && num(&v, "matrix_vs_autograd") <= 1e-15);
    for name in ["visite_diff_no_pe", "perm_diff_no_pe", "perm9_diff_no_pe", "pooled_diff_no_pe"] {
        assert!(num(&v, name) <= 1e-15, "{name}");
    }
    for name in ["visite_diff_pe", "perm_diff_pe", "perm9_diff_pe", "pooled_diff_pe"] {
        assert!(num(&v, name) > 1e-2, "{name}");
    }
    // L6 exercise 12: a negation changes the bag of words, so it shows without positions.
    assert!(num(&v, "pooled_diff_negation") > 1e-2);
}

#[test]
fn the_two_counts_disagree_as_the_page_says() {
    let v = values();
    // the paper's count n²d against nd² is equal at n = d: 512 in the multiply-add
    // table, 64 in the timing table ...
    assert_eq!(get(&v, "multiply_adds_equal_n"), "512");
    assert_eq!(get(&v, "paper_count_equal_n"), "64");
    // ... while counting every product, attention is 2 + n/d times the RNN, never below 2
    for (n, ratio) in [(16, "2.25"), (64, "3.00"), (2048, "34.00")] {
        assert_eq!(get(&v, &format!("timing_flop_ratio_{n}")), ratio);
    }
}

#[test]
fn the_arithmetic_equals_the_lecture() {
    let v = values();
    assert_eq!(get(&v, "weights_mb_2048"), "33.6");
    assert_eq!(get(&v, "flop_ratio_512"), "3.00"); // 2 + n/d
    assert_eq!(get(&v, "ex7_attention"), "8.19e+13");
    assert_eq!(get(&v, "ex7_projections"), "6.71e+12");
    assert_eq!(get(&v, "ex7_ffn"), "1.34e+13");
    assert_eq!(get(&v, "ex7_linear"), "2.01e+13");
    assert_eq!(get(&v, "ex7_break_even"), "24576");
    assert_eq!(get(&v, "ex7_weights_gb"), "20");
}

#[test]
fn bad_options_are_refused() {
    for args in [
        ["--max-len", "100"],
        ["--max-len", "16384"],
        ["--max-len", "x"],
        ["--seed", "-1"],
        ["--seed", "18446744073709551615"],
        ["--seed", "4294967296"],
    ] {
        let err =
            Options::try_parse_from(std::iter::once("ch03").chain(args)).expect_err("refused");
        assert_eq!(err.exit_code(), 2, "{args:?}");
    }
}
