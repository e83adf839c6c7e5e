//! Pins everything chapter 07 prints, every value its page quotes and its
//! figures, for the configuration the book shows — and checks that those
//! numbers say what the page says. The run trains 15 encoders, so it
//! happens once and every test reads it.

use ch07_encoder_layer::depth::NS;
use ch07_encoder_layer::{Options, run};

record::book_run!(run, Options);

#[test]
fn output_values_and_figures_are_pinned() {
    record::pin!(book_run());
}

#[test]
fn blocks_and_autograd_agree_to_rounding() {
    for name in ["agree_post", "agree_pre", "ln_blocks_vs_autograd"] {
        assert!(num(name) < 1e-13, "{name}: {}", get(name));
    }
}

#[test]
fn the_base_model_has_about_63m_and_the_ffn_twice_the_attention() {
    let total = num("params_total");
    assert!((62.0..64.0).contains(&total), "{total}");
    assert_eq!(get("ffn_over_attention"), "2.00");
    let count = |n: &str| get(n).replace(',', "").parse::<f64>().unwrap();
    assert!(count("params_ffn_one") > 1.99 * count("params_attention_one"));
    // the embeddings are the largest single part
    assert!(count("params_embeddings") > count("params_attention"));
}

#[test]
fn layer_norm_ignores_the_batch_and_batch_norm_does_not() {
    for pair in ["ab", "ac"] {
        assert_eq!(num(&format!("ln_change_{pair}")), 0.0);
        assert!(num(&format!("bn_change_{pair}")) > 0.5, "{pair}");
    }
    assert_eq!(num("ex_ln_change_alone"), 0.0);
    assert!(num("ex_bn_change_alone") > num("bn_change_ab"));
    // scaling: only ε sees it — tiny with ε, rounding-level without
    let (scale, no_eps) = (num("ln_scale_change"), num("ln_scale_change_no_eps"));
    assert!(scale > 1e-7 && scale < 1e-4, "{scale}");
    assert!(no_eps < 1e-14, "{no_eps}");
}

#[test]
fn plain_vanishes_residual_explodes_residual_ln_neither() {
    assert!(num("plain_grad_l64") < 1e-20);
    assert!(num("residual_std_l64") > 1e4);
    assert!(num("residual_grad_l64") > 1e3);
    let (g, s) = (num("residual_ln_grad_l64"), num("residual_ln_std_l64"));
    assert!((0.1..100.0).contains(&g) && (0.5..2.0).contains(&s), "{g} {s}");
}

#[test]
fn the_exercise_depth_is_where_the_gradient_crosses_1e_10() {
    assert!(num("ex_grad_at_predicted") < 1e-10);
    assert!(num("ex_grad_at_one_less") > 1e-10);
}

#[test]
fn pre_ln_last_layer_shrinks_and_post_ln_pulls_ahead_with_depth() {
    let last = |tag: &str, n: usize| num(&format!("{tag}_last_n{n}"));
    for w in NS.windows(2) {
        assert!(last("pre", w[1]) < last("pre", w[0]), "Pre-LN {w:?}");
        let ratio = |n| last("post", n) / last("pre", n);
        assert!(ratio(w[1]) > ratio(w[0]), "Post/Pre {w:?}");
    }
    for n in NS {
        assert!(last("post", n) > last("pre", n), "{n}");
        // seed by seed too (the seeds are shared)
        assert_eq!(get(&format!("post_last_larger_n{n}")), "3", "{n}");
    }
    // the seeds' ranges overlap at 2 layers and have parted at 16
    assert!(num("post_last_n2_lo") < num("pre_last_n2_hi"));
    assert!(num("post_last_n16_lo") > num("pre_last_n16_hi"));
    // at 16 layers Post-LN's smallest layer is about Pre-LN's largest
    let (post_min, pre_max) = (num("post_min_n16"), num("pre_max_n16"));
    assert!((post_min / pre_max - 1.0).abs() < 0.1, "{post_min} {pre_max}");
}

#[test]
fn inside_a_model_post_ln_is_even_and_pre_ln_falls_towards_the_output() {
    for n in NS {
        // Post-LN: no tilt on average, and single seeds tilt both ways
        let mean = num(&format!("post_last_over_first_n{n}"));
        assert!((0.85..1.15).contains(&mean), "Post-LN N = {n}: {mean}");
        assert!(num(&format!("post_max_n{n}")) / num(&format!("post_min_n{n}")) < 1.3, "{n}");
        if n >= 4 {
            let lo = num(&format!("post_last_over_first_n{n}_min"));
            let hi = num(&format!("post_last_over_first_n{n}_max"));
            assert!(lo < 1.0 && hi > 1.0, "Post-LN N = {n}: [{lo}, {hi}]");
        }
    }
    // Pre-LN: the last layer below the first under every seed, more so when deeper
    for n in [8, 16] {
        assert!(num(&format!("pre_last_over_first_n{n}_max")) < 0.9, "{n}");
    }
    assert!(num("pre_last_over_first_n16") < num("pre_last_over_first_n8"));
}

#[test]
fn warmup_shrinks_the_first_step_and_post_ln_without_it_sticks_at_uniform() {
    let at = |run: &str, what: &str, k: u32| num(&format!("first_{run}_{what}_step{k}"));
    for run in ["post_warmup0", "pre_warmup0"] {
        assert!(
            at(run, "moved", 1) > 1.0,
            "{run}: the first step moves the logits by more than their size"
        );
        assert!(at(run, "loss", 2) > at(run, "loss", 1), "{run}: the loss rises after it");
    }
    for run in ["post_warmup100", "pre_warmup100"] {
        assert!(at(run, "moved", 1) < 0.3, "{run}");
        assert!(at(run, "loss", 100) < 1.0, "{run} trains");
    }
    let uniform = num("ln_symbols");
    for k in [20, 50, 100] {
        assert!(
            (at("post_warmup0", "loss", k) - uniform).abs() < 0.02,
            "Post-LN at uniform, step {k}"
        );
    }
    assert!(at("pre_warmup0", "loss", 100) < 0.1, "Pre-LN recovers");
}

#[test]
fn post_ln_at_1e_2_fails_without_warmup_and_pre_ln_does_not() {
    for step in [100, 200, 300, 400, 500] {
        // every seed stays at chance
        assert!(num(&format!("post_lr0_01_step{step}_max")) < 0.15, "{step}");
    }
    assert!(num("pre_lr0_01_step100_min") > 0.95);
}

#[test]
fn warmup_rescues_post_ln_for_the_lectures_seed_but_not_for_every_seed() {
    assert!(num("post_lr0_01_warmup100_step100") > 0.5);
    assert!(num("post_lr0_01_warmup100_step500") > 0.9);
    assert!(num("post_lr0_01_warmup100_step100_min") > 0.5, "every seed learns during warmup");
    assert!(num("post_lr0_01_warmup100_step500_min") < 0.2, "one seed falls back to chance");
    assert!(num("post_lr0_01_warmup100_step500_max") > 0.9);
    // the seed that falls: trained at step 400, chance at step 500
    assert!(num("post_lr0_01_warmup100_seed1_step400") > 0.9);
    assert!(num("post_lr0_01_warmup100_seed1_step500") < 0.2);
}

#[test]
fn at_1e_3_pre_ln_starts_faster_under_every_seed_and_both_finish() {
    for tag in ["", "_seed1", "_seed2"] {
        let at = |cfg: &str, step: u32| num(&format!("{cfg}_lr0_001{tag}_step{step}"));
        assert!(at("pre", 100) > at("post", 100), "{tag}");
        assert!(at("pre", 500) > 0.99 && at("post", 500) > 0.99, "{tag}");
    }
    assert_eq!(get("pre_lr0_001_step200"), get("post_lr0_001_step200"));
}

#[test]
fn exercises_big_model_and_adam() {
    assert_eq!(get("ex_big_encoder"), "12,596,224");
    assert_eq!(get("ex_big_decoder"), "16,796,672");
    assert_eq!(get("ex_big_heads_same"), "yes");
    for j in 0..4 {
        assert!((num(&format!("ex_adam_step_{j}")) - 1.0).abs() < 1e-3, "{j}");
    }
}

#[test]
fn the_layers_match_pytorch_to_rounding() {
    for case in ["layer_norm", "encoder_post", "encoder_pre"] {
        for kind in ["out", "grad"] {
            let name = format!("torch_{case}_{kind}");
            assert!(num(&name) < 1e-13, "{name}: {}", get(&name));
        }
    }
    // and a wrong convention is far outside rounding
    assert!(num("torch_flipped_padding") > 1e-2, "{}", get("torch_flipped_padding"));
}
