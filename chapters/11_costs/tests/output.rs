//! Pins everything chapter 11 prints, every value its page quotes and its
//! figures — and checks that those numbers say what the page says.

use ch11_costs::{Options, run};

record::book_run!(run, Options);

#[test]
fn output_values_and_figures_are_pinned() {
    record::pin!(book_run());
}

#[test]
fn every_formula_equals_what_the_code_counts() {
    assert_eq!(get("params_match"), "true");
    assert_eq!(get("params_total"), "124,439,808");
    assert_eq!(get("small_flops_equal"), "true");
    assert_eq!(get("gpt2_counted_equal"), "true");
}

#[test]
fn backward_keeps_sixteen_copies_of_s_by_d_and_one_of_h_by_s_by_s() {
    assert_eq!(get("copies_sd_plain"), "16");
    // the fit sees the same: a near 16, b near 1
    assert!((num("fit_a_plain") - 16.0).abs() < 0.2);
    assert!((num("fit_b_plain") - 1.0).abs() < 0.01);
    // the fused kernels keep fewer copies of S×d, and the S² part all the same
    assert!(num("copies_sd_fused") < 16.0);
    assert!(num("fit_a_fused") < num("fit_a_plain"));
    assert!((num("fit_b_fused") - 1.0).abs() < 0.01);
}

#[test]
fn the_fused_kernels_save_the_relu_input_and_keep_more_on_short_sequences() {
    assert_eq!(get("copies_sd_fused"), "12");
    let bytes = |name: &str| get(name).replace(',', "").parse::<u64>().unwrap();
    assert!(bytes("kept_fused_32") > bytes("kept_plain_32"));
    assert!(bytes("kept_fused_1024") < bytes("kept_plain_1024"));
}

#[test]
fn the_paper_gap_is_not_the_vocabulary() {
    // the vocabularies that would give the paper's two figures differ
    assert_ne!(get("base_vocab_for_paper"), get("big_vocab_for_paper"));
    // the page: base short of the paper's 65M, big over its 213M
    assert!(num("base_shared_m") < 65.0 && num("big_shared_m") > 213.0);
    // what enters no product: positions, layer norms, biases
    assert_eq!(get("gpt2_idle_params"), "907,776");
}
