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
    // the encoder layer's parts add up to its count
    let n = |name| get(&v, name).replace(',', "").parse::<usize>().unwrap();
    assert_eq!(n("big_attention"), 4 * 1024 * 1024 + 4 * 1024);
    assert_eq!(n("big_attention") + n("big_ffn") + n("big_norms"), n("big_encoder_h16"));
    assert_eq!(get(&v, "pad_weights_right"), "(0.000, 0.000, 0.000, 0.000, 0.000)");
    assert_eq!(get(&v, "pad_weights_reversed"), "(1.000, 1.000, 1.000, 1.000, 1.000)");
}

fn tuple(s: &str) -> Vec<f64> {
    s.trim_matches(|c| c == '(' || c == ')').split(", ").map(|x| x.parse().unwrap()).collect()
}

#[test]
fn exercise_2_a_weaker_query_flattens_every_head() {
    let v = values();
    let (one2, one6) =
        (tuple(&get(&v, "ex2_one_targets_s2")), tuple(&get(&v, "ex2_one_targets_s6")));
    let (three2, three6) = (tuple(&get(&v, "ex2_three_s2")), tuple(&get(&v, "ex2_three_s6")));
    let rest = |s| get(&v, &format!("ex2_one_rest_s{s}")).parse::<f64>().unwrap();
    // the one head still splits evenly, but visite and en take more
    assert!(one2.iter().all(|&w| w == one2[0] && w < one6[0]), "{one2:?} {one6:?}");
    assert!(rest(2) > rest(6), "{} {}", rest(2), rest(6));
    // each head's own word: far less, under half, yet more than the one head gives it
    assert!(three2.iter().all(|&w| w < 0.5 && w > one2[0] && w < three6[0]), "{three2:?}");
    // no strength: every weight 1/5
    assert_eq!(get(&v, "ex2_one_targets_s0"), "(0.200, 0.200, 0.200)");
    assert_eq!(get(&v, "ex2_three_s0"), "(0.200, 0.200, 0.200)");
    // the table agrees with the demo itself, at 6 and when run with --strength 2
    assert_eq!(format!("{:.3}", one6[0]), get(&v, "one_head_weight"));
    assert_eq!(format!("{:.3}", three6[0]), get(&v, "three_heads_weight"));
    let at2 = values_with(&["--strength", "2"]);
    assert_eq!(format!("{:.3}", one2[0]), get(&at2, "one_head_weight"));
    assert_eq!(format!("{:.3}", three2[0]), get(&at2, "three_heads_weight"));
}

#[test]
fn the_shape_walk_is_multi_head_attention() {
    let v = values();
    for tag in ["walk", "ex"] {
        let diff: f64 = get(&v, &format!("{tag}_vs_fused")).parse().unwrap();
        assert!(diff <= 1e-15, "{tag}: {diff}");
        // q_h where k_h belongs changes the answer visibly, though nothing fails
        let slip: f64 = get(&v, &format!("{tag}_slip_vs_fused")).parse().unwrap();
        assert!(slip > 0.1, "{tag}: {slip}");
    }
}

#[test]
fn l6_exercise_3_shapes_equal_the_lecture() {
    let v = values();
    assert_eq!(get(&v, "ex_q_h"), "(4, 8, 10, 8)");
    assert_eq!(get(&v, "ex_k_t"), "(4, 8, 8, 10)");
    assert_eq!(get(&v, "ex_scores"), "(4, 8, 10, 10)");
    assert_eq!(get(&v, "ex_context"), "(4, 8, 10, 8)");
    assert_eq!(get(&v, "ex_joined"), "(4, 10, 64)");
}

#[test]
fn three_implementations_agree() {
    let v = values();
    for d in [12, 512] {
        for kind in ["self", "cross"] {
            for what in ["loop_vs_split", "split_vs_fused", "weights"] {
                let x: f64 = get(&v, &format!("{kind}_{what}_d{d}")).parse().unwrap();
                assert!(x <= 1e-14, "{kind} {what} d{d}: {x}");
            }
            // the fused op and the split-and-combine reference do the same products
            assert_eq!(get(&v, &format!("{kind}_split_vs_fused_d{d}")), "0.0e+00");
        }
    }
}

#[test]
fn bad_options_are_refused() {
    for args in [
        ["--strength", "-1"],
        ["--strength", "nan"],
        ["--seed", "x"],
        ["--seed", "18446744073709551615"],
        ["--seed", "4294967296"],
    ] {
        let err =
            Options::try_parse_from(std::iter::once("ch05").chain(args)).expect_err("refused");
        assert_eq!(err.exit_code(), 2, "{args:?}");
    }
}
