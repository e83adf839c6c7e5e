//! Pins everything chapter 06 prints, every value its page quotes and its
//! figures, for the configuration the book shows — and checks those numbers
//! against the lectures: exactly where they follow from the maths, in
//! substance where they come from training. The full run trains 8 models,
//! so it happens once and every test reads it.

use ch06_positional_encoding::{Options, run};

record::book_run!(run, Options);

#[test]
fn output_values_and_figures_are_pinned() {
    record::pin!(book_run());
}

#[test]
fn the_sinusoids_figures_equal_the_lectures() {
    assert_eq!(get("wavelength_first"), "6.3");
    assert_eq!(get("wavelength_last"), "47,117");
    for name in ["norm_min", "norm_max", "norm_formula"] {
        assert_eq!(get(name), "5.6569", "{name}");
    }
    assert_eq!(get("d512_fastest"), "6.3");
    assert_eq!(get("d512_slowest"), "60,611");
    assert_eq!(get("d512_min_distance"), "3.714");
    assert_eq!(get("d512_adjacent"), "2048/2048");
}

#[test]
fn a_shift_is_a_rotation_and_dot_products_see_only_distance() {
    for k in ["1", "3", "10", "40", "m5"] {
        assert!(num(&format!("rotation_error_k{k}")) <= 1e-13, "k = {k}");
        assert!(num(&format!("orthogonality_k{k}")) <= 1e-15, "k = {k}");
    }
    assert!(num("compose_error") <= 1e-14);
    // the page: largest at k = 40, the lecture's bound exactly
    assert_eq!(get("rotation_error_k40"), "2.8e-14");
    for k in ["1", "3", "10", "m5"] {
        assert!(num(&format!("rotation_error_k{k}")) <= num("rotation_error_k40"));
    }
    // Lecture 6 02.2 at its own width, d = 512: the rotation error it
    // reports (~5e-14), and the spread over starting positions t
    assert!(num("rotation_error_d512") <= 1e-13);
    assert!(num("distance_std") <= 1e-13 && num("distance_std_d512") <= 1e-12);
    assert!(num("distance_only_error") <= 1e-13);
    assert_eq!(get("rebounds"), "22");
    assert!(num("dot_k100") > num("dot_k50"));
}

#[test]
fn the_previous_token_head_finds_every_predecessor() {
    let betas = ["1", "2", "4", "8", "16"];
    let mut last = 0.0;
    for b in betas {
        assert_eq!(get(&format!("prev_hits_b{b}")), "19/19", "β = {b}");
        let w = num(&format!("prev_weight_b{b}"));
        assert!(w > last, "the weight grows with β");
        last = w;
    }
    for tag in ["shift", "random"] {
        assert_eq!(get(&format!("no_pe_{tag}_min")), "0.050");
        assert_eq!(get(&format!("no_pe_{tag}_max")), "0.050");
    }
}

#[test]
fn training_agrees_with_the_lecture_in_substance() {
    assert!(num("rev_none_tokens_mean") < 0.25, "no positions: near chance");
    assert!(num("rev_none_tokens_mean") > num("chance"), "… yet a little better than guessing");
    assert!(
        num("rev_none_tokens_mean") < num("most_frequent"),
        "below the bag-of-symbols baseline"
    );
    assert!(num("rev_sinusoidal_tokens_mean") > 0.99);
    assert!(num("rev_learned_tokens_mean") > 0.99);
    assert!(num("rev_scaled_tokens_mean") < 0.5, "× √d fails at 400 steps");
    // the page: without positions we sit at the level of emitting the bag of
    // symbols in a position-blind order, under the most-frequent ceiling, and
    // seed 0 of "× √d" is above that ceiling (a trace of position gets through)
    assert!((num("rev_none_tokens_mean") - num("bag_order")).abs() < 0.02);
    assert!(num("bag_order") < num("most_frequent"));
    // each seed against the ceiling of its own test sequences
    assert!(num("rev_scaled_seed0_tokens") > num("most_frequent_seed0"));
    assert!(num("rev_scaled_seed1_tokens") < num("most_frequent_seed1"));
    // no positions emits the mode as often as a position-blind order of the
    // bag would (its share is the most-frequent baseline); × √d leans on it
    for i in 0..2 {
        let ceiling = num(&format!("most_frequent_seed{i}"));
        assert!((num(&format!("rev_none_seed{i}_mode")) - ceiling).abs() < 0.02, "seed {i}");
        assert!(num(&format!("rev_scaled_seed{i}_mode")) > ceiling + 0.1, "seed {i}");
        // … because it emits the input reordered, nearly always
        assert!(num(&format!("rev_none_seed{i}_permuted")) > 0.9, "seed {i}");
        assert!(num(&format!("rev_scaled_seed{i}_permuted")) < 0.1, "seed {i}");
    }
    // its training loss nears the floor of a model blind to positions
    let gap = |tag: &str| num(&format!("{tag}_none_seed0_loss")) - num("loss_left");
    assert!(gap("rev") > 0.0 && gap("rev") < 0.2 && gap("long") < gap("rev"));
    assert!(num("loss_left") < num("loss_bag"));
    assert!(num("emb_norm_scaled") > 10.0 * num("pe_norm"));
    assert!((num("emb_norm") - num("emb_norm_expected")).abs() < 3.0 * num("emb_norm_spread"));
    assert_eq!(get("d512_pe_norm"), "16.0");
    assert!((num("d512_emb_norm") - 1.0).abs() < 0.02);
    assert!(num("cos_plain") < 0.1 && num("cos_scaled") > 0.75);
    let off = (num("cos_plain") - num("cos_plain_expected")).abs();
    assert!(off <= 3.0 * num("cos_plain_spread"), "{off}");
    assert!((num("cos_scaled") - num("cos_scaled_expected")).abs() < 0.01);
    assert!(get("too_long_message").contains("only 8 rows"));
}

#[test]
fn exercise_6_checks_out() {
    assert_eq!(get("ex6_k0"), "32.00");
    assert!(num("ex6_symmetry") <= 1e-13);
    assert!(num("ex6_before") > 10.0 * num("ex6_after"));
}

#[test]
fn a_narrower_clock_still_finds_every_predecessor_but_flatter() {
    assert_eq!(get("narrow_d16_slowest"), "19,869");
    for beta in ["1", "16"] {
        assert!(
            num(&format!("narrow_d16_b{beta}_weight")) < num(&format!("narrow_d64_b{beta}_weight"))
        );
    }
    let demo = book_run().demos().iter().find(|d| d.anchor == "narrower").unwrap();
    assert_eq!(demo.text.matches("(19/19)").count(), 4, "{}", demo.text);
}

#[test]
fn longer_training_helps_only_the_scaled_row() {
    // exercise 4: without positions 1500 steps change nothing in substance
    assert!(num("long_none_tokens_mean") < num("most_frequent"));
    for i in 0..2 {
        let ceiling = num(&format!("most_frequent_seed{i}"));
        assert!((num(&format!("long_none_seed{i}_mode")) - ceiling).abs() < 0.02, "seed {i}");
        // × √d: the tokens improve a lot, whole sequences stay almost all wrong
        assert!(num(&format!("long_scaled_seed{i}_tokens")) > 0.5, "seed {i}");
        assert!(num(&format!("long_scaled_seed{i}_sequences")) < 0.05, "seed {i}");
    }
    assert!(num("long_scaled_tokens_mean") > 2.0 * num("rev_scaled_tokens_mean"));
}
