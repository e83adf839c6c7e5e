//! Pins everything chapter 09 prints, every value its page quotes and its
//! figures — and checks that those numbers say what the page says. The
//! run trains the full experiment (every model, length and seed) and
//! exercise 8's longer runs, once for every test. A verdict between two
//! models is asserted only where the page makes it, and then only as far
//! as the seeds support it (its gap in standard errors).

use ch09_reversal::{Options, run};

record::book_run!(run, Options);

const LENGTHS: [usize; 3] = [8, 16, 32];

fn seeds() -> Vec<u64> {
    let n = get("seeds_n").parse::<u64>().unwrap();
    (0..n).collect()
}

#[test]
fn output_values_and_figures_are_pinned() {
    record::pin!(book_run());
}

#[test]
fn the_example_is_a_real_reversal_with_bos() {
    let ids = |n: &str| -> Vec<usize> { get(n).split(' ').map(|x| x.parse().unwrap()).collect() };
    let (src, tgt_in, tgt_out) =
        (ids("example_src"), ids("example_tgt_in"), ids("example_tgt_out"));
    assert_eq!(tgt_out, src.iter().rev().copied().collect::<Vec<_>>());
    assert_eq!(tgt_in[0], 1);
    assert_eq!(tgt_in[1..], tgt_out[..tgt_out.len() - 1]);
}

#[test]
fn the_transformer_has_the_fewest_parameters() {
    let count = |n: &str| get(n).replace(',', "").parse::<usize>().unwrap();
    assert!(count("params_transformer") < count("params_gru"));
    assert!(count("params_gru") < count("params_gru_att"));
}

#[test]
fn the_plain_gru_fails_beyond_l8_and_attention_fixes_most_of_it() {
    assert!(num("seq_gru_l16_max") < 0.01 && num("seq_gru_l32_max") < 0.01);
    for len in LENGTHS {
        for m in ["seq", "tok"] {
            assert!(num(&format!("{m}_gap_gru_att_gru_l{len}_z")) > 3.0, "{m}, L = {len}");
        }
    }
    // the lecture's 0.594 is above every seed of ours
    assert!(num("seq_gru_l8_max") < 0.594);
}

#[test]
fn the_spread_between_seeds_comes_from_training_where_the_page_says_so() {
    assert!(num("seq_gru_att_l32_sd") > 3.0 * num("seq_gru_att_l32_se"));
    // for the plain GRU at L = 8 the test's own error is a fair share
    assert!(num("seq_gru_l8_se") > num("seq_gru_l8_sd") / 3.0);
}

#[test]
fn at_l8_the_gru_with_attention_and_the_transformer_cannot_be_told_apart() {
    for m in ["seq", "tok"] {
        assert!(num(&format!("{m}_gap_transformer_gru_att_l8_z")) < 3.0, "{m}");
    }
}

#[test]
fn at_l16_and_l32_the_transformer_leads_beyond_the_seed_spread() {
    for len in [16, 32] {
        for m in ["seq", "tok"] {
            let name = format!("{m}_gap_transformer_gru_att_l{len}");
            assert!(num(&name) > 0.0 && num(&format!("{name}_z")) > 3.0, "{name}");
        }
    }
    // every Transformer seed above every GRU + attention seed at L = 16
    assert!(num("seq_transformer_l16_min") > num("seq_gru_att_l16_max"));
    // no Transformer run failed, as the page says
    assert_eq!(get("failed_transformer"), "0");
    for len in LENGTHS {
        assert!(num(&format!("seq_transformer_l{len}_min")) > 0.9, "L = {len}");
    }
    // the gap at L = 16 is smaller than the range of single seeds (pitfall 4)
    let range = num("tok_gru_att_l16_max") - num("tok_gru_att_l16_min");
    assert!(num("tok_gap_transformer_gru_att_l16") < range);
    // at L = 32 the lecture's worst seed (0.392) is below all of ours
    assert!(num("tok_gru_att_l32_min") > 0.392);
    assert!(num("tok_gru_att_l32_max") - num("tok_gru_att_l32_min") > 0.1);
}

#[test]
fn the_transformer_reaches_each_level_first_on_every_seed() {
    for len in LENGTHS {
        for what in ["loss", "acc"] {
            let t = num(&format!("reach_{what}_transformer_l{len}_max"));
            let g = num(&format!("reach_{what}_gru_att_l{len}_min"));
            assert!(t < g, "{what}, L = {len}: {t} vs {g}");
            assert_eq!(get(&format!("reach_{what}_gru_l{len}_n")), "0", "{what}, L = {len}");
        }
    }
    // seed by seed, the GRU with attention is ahead at the end of warmup at
    // every length; at the test it is behind on every seed at L = 16 and
    // 32, where even the Transformer's worst seed is far below its best,
    // and on most seeds at L = 8
    let n = seeds().len();
    for len in LENGTHS {
        let lower =
            |when: &str| get(&format!("gru_att_lower_{when}_l{len}")).parse::<usize>().unwrap();
        assert_eq!(lower("warmup"), n, "L = {len}");
        let loss =
            |when: &str, tag: &str, end: &str| num(&format!("loss_{when}_{tag}_l{len}_{end}"));
        if len == 8 {
            assert!(lower("test") < n / 2, "L = 8");
        } else {
            assert_eq!(lower("test"), 0, "L = {len}");
            assert!(
                loss("test", "transformer", "max") < loss("test", "gru_att", "min") / 3.0,
                "L = {len}"
            );
        }
    }
    // at L = 32 few GRU + attention seeds got there within the experiment's steps
    let n = get("reach_acc_gru_att_l32_n").parse::<usize>().unwrap();
    assert!(n < seeds().len() / 2, "{n}");
    // the Transformer's worst run is at L = 8
    assert!(num("seq_transformer_l8_min") <= num("seq_transformer_l16_min"));
    assert!(num("seq_transformer_l8_min") <= num("seq_transformer_l32_min"));
}

#[test]
fn the_gru_with_attention_remembers_and_its_errors_propagate() {
    let late = |which: &str, tag: &str| -> Vec<f64> {
        (16..32).map(|t| num(&format!("{which}_{tag}_t{t}"))).collect()
    };
    // teacher-forced: right almost everywhere; free-running: falls away
    assert!(late("pos_forced", "gru_att").iter().all(|&a| a > 0.95));
    assert!(num("pos_gru_att_late_min") < 0.8);
    assert!(num("late_forced_gru_att_min") > num("late_gru_att_max"));
    // the plain GRU forgets even when fed the right symbols
    assert!(late("pos_forced", "gru").iter().all(|&a| a < 0.5));
    assert!(num("pos_gru_t0") > 0.9 && num("pos_gru_t8") < 0.3);
    assert!((0..32).all(|t| num(&format!("pos_transformer_t{t}")) >= 0.99));
    // before the first free-running mistake the two runs agree
    for tag in ["gru", "gru_att", "transformer"] {
        assert!(num(&format!("agree_{tag}")) > 0.999, "{tag}");
    }
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
    for seed in seeds() {
        assert!(num(&format!("bos_max_seed{seed}")) < 0.6, "seed {seed}");
        // even with row 0 (always on BOS) counted, far from the lecture's 0.900
        assert!(num(&format!("bos_all_max_seed{seed}")) < 0.6, "seed {seed}");
    }
    assert!(num("bos_all_most_max") < 0.6);
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
fn three_times_the_training_steadies_the_gru_with_attention_only() {
    // the same seeds before and after: every one gains, and they close up
    assert!(num("ex_seq_gru_att_gain_min") > 0.0 && num("ex_tok_gru_att_gain_min") > 0.0);
    assert!(num("ex_seq_gru_att_gain") > 2.0 * num("ex_seq_gru_att_gain_se"));
    assert!(num("ex_tok_gru_att_sd") < num("ex_tok_gru_att_before_sd") / 3.0);
    assert!(num("ex_tok_gru_att_max") - num("ex_tok_gru_att_min") < 0.05);
    assert_eq!(num("ex_seq_gru_max"), 0.0);
    assert!(num("ex_tok_gru_mean") > num("ex_tok_gru_before_mean"));
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
