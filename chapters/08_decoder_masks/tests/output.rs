//! Pins everything chapter 08 prints, every value its page quotes and its
//! figures — and checks that those numbers say what the page says.

use ch08_decoder_masks::{Options, run};

record::book_run!(run, Options);

#[test]
fn output_values_and_figures_are_pinned() {
    record::pin!(book_run());
}

#[test]
fn the_look_ahead_mask_keeps_the_past_exactly() {
    assert_eq!(get("first_row_weight"), "1.000");
    for name in ["weight_above_diagonal", "past_change_masked", "one_change_before"] {
        assert_eq!(num(name), 0.0, "{name}");
    }
    // without the mask the past moves; with it, every later position does
    assert!(num("past_change_unmasked") > 0.05);
    assert!(num("one_change_after_min") > 0.05);
}

#[test]
fn without_the_mask_the_change_is_set_by_the_attention_branch() {
    // the input distribution moves the mean change a little
    let (u, n) = (num("size_u_mean_1"), num("size_n_mean_1"));
    assert!(n / u > 0.67 && n / u < 1.5, "{u} {n}");
    // a larger W^O moves it a lot, almost in proportion at first, then less
    let means: Vec<f64> = [1, 2, 4, 8].iter().map(|f| num(&format!("size_u_mean_{f}"))).collect();
    assert!(means.windows(2).all(|w| w[1] > w[0]), "{means:?}");
    assert!(means[1] / means[0] > 1.6, "{means:?}");
    assert!(means[3] / means[2] < means[1] / means[0], "{means:?}");
    assert!(means[3] > 3.0 * means[0], "{means:?}");
    // the lecture's order of magnitude (2.74) only with the largest factor
    assert!(num("size_u_max_8") > 1.0 && num("size_u_max_1") < 1.0);
    // at PyTorch's initialisation the attention branch is well below the residual
    // input it is added to, and it grows with the factor
    let branch: Vec<f64> = [1, 2, 4, 8].iter().map(|f| num(&format!("size_branch_{f}"))).collect();
    assert!(branch[0] < 0.5, "{branch:?}");
    assert!(branch.windows(2).all(|w| w[1] > w[0]), "{branch:?}");
}

#[test]
fn the_jacobian_is_exactly_zero_above_the_diagonal_and_only_there() {
    assert_eq!(num("jacobian_future_masked"), 0.0);
    assert!(num("jacobian_seen_min") > 0.05);
    assert!(num("jacobian_min_unmasked") > 0.05);
}

#[test]
fn a_fully_masked_row_is_uniform_nan_or_zero_depending_on_the_recipe() {
    assert_eq!(get("uniform_rows_exact"), "true");
    assert_eq!(get("neg_inf_is_nan"), "true");
    assert_eq!(get("book_row_sum"), "0.0");
    // adding −1e9 in f64 keeps the row's own softmax, up to 1e9's rounding
    let drift = num("added_f64_vs_unmasked");
    assert!(drift > 0.0 && drift < 1e-6, "{drift}");
    // autograd: zeros and no gradient, with a keep row of 0 and even with −∞ added
    for case in ["keep", "inf"] {
        assert_eq!(get(&format!("autograd_sum_{case}")), "0.0");
        assert_eq!(num(&format!("autograd_grad_{case}")), 0.0);
    }
    // the plain softmax's NaN row poisons every entry of a shared gradient
    assert_eq!(get("nan_grad_entries"), get("grad_entries"));
}

#[test]
fn the_two_decoder_layers_agree_and_cross_attention_sees_everything() {
    assert!(num("agree_post") < 1e-13 && num("agree_pre") < 1e-13);
    assert!(num("cross_min_weight") > 0.0);
    assert!(num("cross_first_moves") > 0.01);
    let count = |n: &str| get(n).replace(',', "").parse::<usize>().unwrap();
    let d = 512;
    assert_eq!(count("params_cross"), 4 * d * d + 4 * d + 2 * d);
    assert_eq!(
        count("params_decoder_layer") - count("params_decoder_only_layer"),
        count("params_cross")
    );
}

#[test]
fn parallel_prefixes_and_cache_give_the_same_numbers_at_different_costs() {
    assert!(num("prefix_vs_parallel") < 1e-13);
    assert!(num("cache_vs_parallel") < 1e-13);
    assert_eq!(get("positions_parallel"), "8");
    assert_eq!(get("positions_prefixes"), "36");
    assert_eq!(get("positions_cache"), "8");
    // the prefixes cost several passes; the cache skips even the masked scores
    assert!(num("flops_prefix_ratio") > 4.0);
    assert!(num("flops_cache_vs_prefixes") > 4.0);
    assert!(num("flops_cache_ratio") < 1.0);
    let count = |n: &str| get(n).replace(',', "").parse::<u64>().unwrap();
    // above the ratio of positions only because each pass re-projects the memory
    assert!(num("flops_prefix_ratio") > num("positions_ratio"));
    assert!(num("flops_rest_ratio") < num("positions_ratio"));
    // against the causal pass, the cache saves exactly the masked scores' products,
    // a sliver of what it saves against the prefixes
    assert_eq!(count("flops_parallel") - count("flops_cache"), count("flops_masked_scores"));
    let against_prefixes = count("flops_prefixes") - count("flops_cache");
    assert!(count("flops_masked_scores") * 100 < against_prefixes);
    assert_eq!(get("masked_scores"), "28");
}

#[test]
fn padding_is_invisible_to_the_real_words_and_to_the_loss() {
    for name in [
        "weight_on_padding",
        "padded_vs_alone",
        "full_vs_alone",
        "pad_change_masked",
        "loss_padded_vs_real",
        "loss_pad_rows_changed",
    ] {
        assert!(num(name) < 1e-13, "{name}: {}", get(name));
    }
    assert!(num("pad_change_unmasked") > 0.05);
    assert!(num("unmasked_vs_alone") > 0.05);
}

#[test]
fn the_source_mask_hides_padding_from_cross_attention_and_the_target_needs_none() {
    // with the source mask, each sentence of the padded batch is the sentence
    // alone — its padded target under the look-ahead mask only
    assert_eq!(num("cross_on_pads_masked"), 0.0);
    assert!(num("cross_vs_alone_masked_0") < 1e-13 && num("cross_vs_alone_masked_1") < 1e-13);
    assert!(num("cross_on_pads_unmasked") > 0.01);
    // the share over all padding positions is at least the largest single weight
    assert_eq!(num("cross_pad_share_masked"), 0.0);
    assert!(num("cross_pad_share_unmasked") >= num("cross_on_pads_unmasked"));
    assert!(num("cross_vs_alone_unmasked_0") > 0.01);
    // sentence 1 has no padding: nothing to hide
    assert!(num("cross_vs_alone_unmasked_1") < 1e-13);
}

#[test]
fn on_the_right_the_look_ahead_mask_is_enough_on_the_left_it_is_not() {
    for name in [
        "right_causal_0",
        "right_causal_1",
        "right_both_0",
        "right_both_1",
        "left_both_0",
        "left_both_1",
        "left_causal_1",
        "left_by_column_1",
    ] {
        assert!(num(name) < 1e-13, "{name}: {}", get(name));
    }
    assert!(num("left_causal_0") > 0.05, "{}", get("left_causal_0"));
    assert!(num("left_by_column_0") > 0.05, "{}", get("left_by_column_0"));
    // the padding positions of the left-padded prompt see no key at all
    assert_eq!(get("left_empty_rows"), "2");
    assert_eq!(get("right_empty_rows"), "0");
    // and the book's softmax leaves such a row zero in the layer itself
    assert_eq!(get("left_row_in_layer"), "0.0");
}

#[test]
fn teacher_forcing_equals_one_pass_per_prefix() {
    assert!(num("teacher_forcing_diff") < 1e-13);
    // an untrained model is close to guessing: mean −log P near ln 12
    let loss = num("teacher_forcing_loss");
    assert!((1.5..3.5).contains(&loss), "{loss}");
}

#[test]
fn the_trained_model_writes_the_same_tokens_with_and_without_the_cache() {
    assert!(num("gen_acc_uncached") > 0.99, "{}", get("gen_acc_uncached"));
    for name in ["cached", "ours"] {
        assert_eq!(get(&format!("gen_same_{name}")), "true", "{name}");
        assert_eq!(get(&format!("gen_acc_{name}")), get("gen_acc_uncached"), "{name}");
    }
    assert_eq!(num("gen_logit_diff"), 0.0);
    // generate's uncached count includes the memory's K and V projected before
    // its loop, which that branch never uses; the ratio leaves them out
    let count = |n: &str| get(n).replace(',', "").parse::<u64>().unwrap();
    assert_eq!(
        count("gen_flops_uncached") - count("gen_flops_unused"),
        count("gen_flops_uncached_needed")
    );
    assert!(count("gen_flops_unused") > 0);
    let needed = count("gen_flops_uncached_needed") as f64 / count("gen_flops_cached") as f64;
    assert_eq!(get("gen_flops_ratio"), format!("{needed:.2}"));
    // the cache does the same work for several times fewer FLOPs
    assert!(num("gen_flops_ratio") > 3.0);
}

#[test]
fn the_position_bug_is_right_at_first_and_near_guessing_only_at_the_end() {
    assert_eq!(get("gen_same_bug"), "false");
    assert!(num("gen_acc_bug") < 0.6, "{}", get("gen_acc_bug"));
    // overall far above guessing: the first steps are right
    assert!(num("gen_acc_bug") > 2.0 * num("gen_guess"), "{}", get("gen_acc_bug"));
    // step 0 is fed position 0 either way, and step 1 survives too
    assert_eq!(get("gen_bug_at_0"), "1.00");
    assert_eq!(get("gen_bug_at_1"), "1.00");
    assert!(num("gen_bug_at_2") < 0.9 && num("gen_bug_at_3") < num("gen_bug_at_2"));
    // the steps from 4 on are close to guessing one of ten symbols
    for t in 4..10 {
        let at = num(&format!("gen_bug_at_{t}"));
        assert!(at < 2.0 * num("gen_guess"), "step {t}: {at}");
    }
    assert!(num("gen_bug_last") < 3.0 * num("gen_guess"), "{}", get("gen_bug_last"));
}

#[test]
fn the_bug_is_the_new_rows_position_and_the_model_reads_by_content() {
    // position 0 in the token's own step alone does almost all the damage ...
    let (bug, own, cache) = (num("gen_acc_bug"), num("gen_acc_own0"), num("gen_acc_cache0"));
    assert!((own - bug).abs() < 0.05, "{own} {bug}");
    for t in 0..10 {
        let (b, o) = (num(&format!("gen_bug_at_{t}")), num(&format!("gen_own0_at_{t}")));
        assert!((b - o).abs() < 0.1, "step {t}: {b} {o}");
    }
    // ... wrong positions in the cache alone much less
    assert!(cache > bug + 0.3, "{cache} {bug}");
    for t in 0..5 {
        assert!(num(&format!("gen_cache0_at_{t}")) > 0.99, "step {t}");
    }
    // a fed token that occurs twice: the bug writes what follows its first occurrence
    let (repeats, beside) = (num("gen_bug_repeats"), num("gen_bug_beside"));
    assert!(repeats >= 20.0 && beside >= 0.9 * repeats, "{beside} of {repeats}");
    // the first wrong token is nearly always one of the source's last two symbols
    let (wrong, at_end) = (num("gen_bug_wrong"), num("gen_bug_wrong_end"));
    assert!(wrong >= 100.0 && at_end >= 0.8 * wrong, "{at_end} of {wrong}");
}

#[test]
fn dropout_keeps_the_mean_and_is_the_identity_in_evaluation() {
    assert!((num("keep_ratio") - 0.9).abs() < 0.01);
    assert!((num("dropout_mean") - 1.0).abs() < 0.02);
    assert_eq!(get("keep_scale"), "1.1111");
    assert_eq!(num("eval_change"), 0.0);
    // both kept fractions lie within two standard deviations of 0.9
    assert!(num("keep_ratio_z") < 2.0 && num("lecture_keep_ratio_z") < 2.0);
}

#[test]
fn the_exercises_check_out() {
    assert_eq!(get("ex_row2_equals_row3"), "true");
    assert_eq!(get("ex_row3_sum"), "1.000000");
    assert!(get("ex_row3").ends_with(", 0.000)"), "{}", get("ex_row3"));
    // the real rows need no padding mask: the look-ahead mask hides the padding key
    assert_eq!(get("ex_real_rows_same"), "true");
    for s in [4, 8, 512] {
        assert_eq!(get(&format!("ex_masked_{s}")), get(&format!("ex_formula_{s}")));
    }
    // exercise 4: after a few steps the cache still writes what the prefixes
    // write, the bug's step 0 is still right, and the accuracy is far lower
    assert_eq!(get("ex_short_same"), "true");
    assert_eq!(get("ex_short_step0_same"), "true");
    assert!(num("ex_short_acc") < num("gen_acc_cached") - 0.2, "{}", get("ex_short_acc"));
}

#[test]
fn the_layers_match_pytorch_to_rounding() {
    for case in ["decoder_post", "decoder_pre", "mha_causal", "mha_padding", "sdpa_fully_masked"] {
        for kind in ["out", "grad"] {
            let name = format!("torch_{case}_{kind}");
            assert!(num(&name) < 1e-13, "{name}: {}", get(&name));
        }
    }
    // what the fixture script found PyTorch does with a fully masked row
    for fact in ["torch_fact_sdpa_zero", "torch_fact_softmax_nan", "torch_fact_mha_nan"] {
        assert_eq!(get(fact), "true", "{fact}");
    }
}
