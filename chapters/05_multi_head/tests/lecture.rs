//! The figures that follow from the maths alone equal the lecture's; the
//! implementations agree; bad options are refused.

use ch05_multi_head::{Options, run};
use clap::Parser;
use record::Notebook;

fn values() -> Vec<(String, String)> {
    values_with(&[])
}

fn values_with(args: &[&str]) -> Vec<(String, String)> {
    let mut nb = Notebook::quiet();
    run(&Options::parse_from(std::iter::once("ch05").chain(args.iter().copied())), &mut nb);
    nb.values().to_vec()
}

fn get(v: &[(String, String)], name: &str) -> String {
    v.iter().find(|(k, _)| k == name).unwrap_or_else(|| panic!("{name}")).1.clone()
}

#[test]
fn exact_figures_equal_the_lecture() {
    let v = values();
    assert_eq!(get(&v, "one_head_weight"), "0.284");
    assert_eq!(get(&v, "three_heads_weight"), "0.797");
    for h in [1, 8, 16] {
        assert_eq!(get(&v, &format!("params_h{h}")), "1,050,624");
    }
    assert_eq!(get(&v, "big_encoder_h16"), "12,596,224");
    assert_eq!(get(&v, "big_decoder_h16"), "16,796,672");
    assert_eq!(get(&v, "big_encoder_h8"), "12,596,224");
    assert_eq!(get(&v, "pad_weights_right"), "(0.000, 0.000, 0.000, 0.000, 0.000)");
    assert_eq!(get(&v, "pad_weights_reversed"), "(1.000, 1.000, 1.000, 1.000, 1.000)");
}

#[test]
fn exercise_2_a_weaker_query_flattens_every_head() {
    let v = values_with(&["--strength", "2"]);
    let one: f64 = get(&v, "one_head_weight").parse().unwrap();
    let three: f64 = get(&v, "three_heads_weight").parse().unwrap();
    assert!(one < 0.284 && three < 0.5, "{one} {three}");
}

#[test]
fn three_implementations_agree() {
    let v = values();
    for kind in ["self", "cross"] {
        for what in ["loop_vs_split", "split_vs_fused", "weights"] {
            let x: f64 = get(&v, &format!("{kind}_{what}")).parse().unwrap();
            assert!(x <= 1e-14, "{kind} {what}: {x}");
        }
    }
}

#[test]
fn bad_options_are_refused() {
    for args in [["--strength", "-1"], ["--strength", "nan"], ["--seed", "x"]] {
        let err =
            Options::try_parse_from(std::iter::once("ch05").chain(args)).expect_err("refused");
        assert_eq!(err.exit_code(), 2, "{args:?}");
    }
}
