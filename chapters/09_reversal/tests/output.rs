//! Pins everything chapter 09 prints, every value its page quotes and its
//! figures — and checks that those numbers say what the page says. The
//! run trains the full experiment (27 models, 500 steps) and exercise 8's
//! nine longer runs, once for every test.

use ch09_reversal::{Options, run};

record::book_run!(run, Options);

const LENGTHS: [usize; 3] = [8, 16, 32];
const SEEDS: [u64; 3] = [0, 1, 2];

#[test]
fn output_values_and_figures_are_pinned() {
    record::pin!(book_run());
}

#[test]
fn the_transformer_has_the_fewest_parameters() {
    let count = |n: &str| get(n).replace(',', "").parse::<usize>().unwrap();
    assert!(count("params_transformer") < count("params_gru"));
    assert!(count("params_gru") < count("params_gru_att"));
}

#[test]
fn the_plain_gru_fails_beyond_l8_and_attention_fixes_most_of_it() {
    for len in [16, 32] {
        assert_eq!(num(&format!("seq_gru_l{len}_max")), 0.0, "L = {len}");
    }
    for len in LENGTHS {
        assert!(num(&format!("seq_gru_att_l{len}_mean")) > num(&format!("seq_gru_l{len}_mean")));
    }
    assert!(num("seq_gru_att_l16_min") > 0.85);
}

#[test]
fn at_l32_the_transformer_is_near_perfect_and_the_gru_with_attention_unstable() {
    for len in LENGTHS {
        assert!(num(&format!("seq_transformer_l{len}_min")) > 0.99, "L = {len}");
    }
    let (lo, hi) = (num("tok_gru_att_l32_min"), num("tok_gru_att_l32_max"));
    assert!(hi - lo > 0.1, "per-token spread {lo}–{hi}");
    assert!(num("seq_gru_att_l32_mean") < 0.8);
}

#[test]
fn the_plain_gru_copies_only_what_it_read_last() {
    assert!(num("pos_gru_t0") > 0.9);
    assert!(num("pos_gru_t8") < 0.3);
    assert!((0..32).all(|t| num(&format!("pos_transformer_t{t}")) >= 0.99));
    assert!(num("pos_gru_att_t0") > num("pos_gru_att_t31"));
}

#[test]
fn cross_attention_finds_the_mirror_and_the_encoder_stays_near_uniform() {
    let uniform = num("uniform_entropy");
    for h in 0..4 {
        // 1/16 would be no preference at all
        assert!(num(&format!("cross_mirror_h{h}")) > 0.25, "head {h}");
        assert!(num(&format!("enc_entropy_h{h}")) > uniform - 0.3, "head {h}");
        assert!(num(&format!("cross_entropy_h{h}")) < uniform - 1.0, "head {h}");
    }
    // the GRU's largest weight sits one state past the mirror, rarely on it
    assert!(num("gru_argmax_next") > 80.0);
    assert!(num("gru_argmax_mirror") < 20.0);
    assert!(num("gru_entropy") < 0.5);
}

#[test]
fn no_decoder_head_parks_on_bos_in_these_runs() {
    for seed in SEEDS {
        assert!(num(&format!("bos_max_seed{seed}")) < 0.5, "seed {seed}");
        // even with row 0 (always on BOS) counted, far from the lecture's 0.900
        assert!(num(&format!("bos_all_max_seed{seed}")) < 0.6, "seed {seed}");
    }
}

#[test]
fn flops_grow_with_l_and_the_transformer_overtakes_at_l128() {
    for tag in ["gru", "gru_att", "transformer"] {
        let f: Vec<f64> =
            [8, 16, 32, 64, 128].iter().map(|l| num(&format!("gflop_{tag}_l{l}"))).collect();
        assert!(f.windows(2).all(|w| w[1] > w[0]), "{tag}: {f:?}");
    }
    assert!(num("gflop_transformer_l8") < num("gflop_gru_l8"));
    assert!(num("gflop_transformer_l64") < num("gflop_gru_l64"));
    assert!(num("gflop_transformer_l128") > num("gflop_gru_l128"));
}

#[test]
fn only_the_plain_gru_is_linear_in_l_and_the_gru_with_attention_costs_most() {
    for l in [8, 16, 32, 64, 128] {
        let att = num(&format!("gflop_gru_att_l{l}"));
        assert!(att > num(&format!("gflop_gru_l{l}")), "L = {l}");
        assert!(att > num(&format!("gflop_transformer_l{l}")), "L = {l}");
    }
    for l in [16, 32, 64, 128] {
        // doubling L doubles a linear cost; the L × L scores add more
        assert!(num(&format!("gflop_growth_gru_l{l}")) < 2.05, "L = {l}");
    }
    let growth = |tag: &str| [16, 32, 64, 128].map(|l| num(&format!("gflop_growth_{tag}_l{l}")));
    for tag in ["gru_att", "transformer"] {
        assert!(growth(tag).windows(2).all(|w| w[1] > w[0]), "{tag}");
    }
    assert!(growth("gru_att")[3] > growth("gru")[3] + 0.1);
}

#[test]
fn the_gru_with_attention_looks_past_the_mirror_except_at_the_first_step() {
    assert!(num("gru_argmax_next_later") > 95.0);
    assert!(num("gru_argmax_mirror_t0") > 50.0);
    assert!(num("gru_argmax_next") < num("gru_next_ceiling"));
}

#[test]
fn the_spread_of_seeds_compares_with_some_gaps_between_models_only() {
    let spread = num("tok_spread_gru_att_l32");
    for l in [8, 16] {
        assert!(spread > num(&format!("tok_gap_transformer_gru_att_l{l}")), "L = {l}");
    }
    for l in LENGTHS {
        assert!(spread < num(&format!("tok_gap_gru_att_gru_l{l}")), "L = {l}");
        assert!(spread < num(&format!("tok_gap_transformer_gru_l{l}")), "L = {l}");
    }
}

#[test]
fn three_times_the_training_steadies_the_gru_with_attention_only() {
    assert!(num("ex_seq_gru_att_mean") > num("seq_gru_att_l32_mean"));
    let spread = |p: &str| num(&format!("{p}_max")) - num(&format!("{p}_min"));
    assert!(spread("ex_tok_gru_att") < spread("tok_gru_att_l32"));
    assert_eq!(num("ex_seq_gru_max"), 0.0);
    assert!(num("ex_seq_transformer_min") > 0.99);
}

#[test]
fn the_layers_match_pytorch_to_rounding() {
    for case in ["gru", "cross_entropy"] {
        for kind in ["out", "grad"] {
            let name = format!("torch_{case}_{kind}");
            assert!(num(&name) < 1e-13, "{name}: {}", get(&name));
        }
    }
    // and a wrong convention is far outside rounding
    assert!(num("torch_gru_swapped") > 1e-2, "{}", get("torch_gru_swapped"));
}
