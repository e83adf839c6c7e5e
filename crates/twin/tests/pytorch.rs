//! The book's layers against PyTorch's, from the committed fixtures: every
//! output and every gradient within f64 rounding. Each test prints its
//! largest differences.

use twin::{Fixture, Report, cases};

/// f64 rounding over a few hundred operations: far below any error of
/// convention (the tests at the end show those move results by ≥ 1e-2).
const TOL: f64 = 1e-12;

fn check(r: &Report) {
    println!(
        "{:<18} blocks {:>7}  autograd plain {:.1e} / {:.1e}  fused {:.1e} / {:.1e}  ({} numbers; torch {})",
        r.case,
        r.blocks.map_or("—".into(), |b| format!("{b:.1e}")),
        r.plain.output,
        r.plain.grads,
        r.fused.output,
        r.fused.grads,
        r.compared,
        r.torch
    );
    assert!(r.worst() <= TOL, "{}: {:e}", r.case, r.worst());
    assert!(r.compared > 0);
}

#[test]
fn layer_norm() {
    check(&cases::named("layer_norm"));
}

#[test]
fn multi_head_attention_causal_and_padded() {
    check(&cases::named("mha_causal"));
    check(&cases::named("mha_padding"));
}

#[test]
fn a_fully_masked_query_gets_a_zero_row_as_in_sdpa() {
    let fix = Fixture::named("sdpa_fully_masked");
    assert!(fix.facts["sdpa_fully_masked_row_is_zero"]);
    assert!(fix.facts["softmax_of_all_minus_inf_is_nan"]);
    assert!(fix.facts["mha_fully_masked_weights_are_nan"]);
    check(&cases::check(&fix));
}

#[test]
fn encoder_layers_post_and_pre() {
    check(&cases::named("encoder_post"));
    check(&cases::named("encoder_pre"));
}

#[test]
fn decoder_layers_post_and_pre() {
    check(&cases::named("decoder_post"));
    check(&cases::named("decoder_pre"));
}

#[test]
fn gru() {
    check(&cases::named("gru"));
}

#[test]
fn cross_entropy_with_ignore_and_smoothing() {
    check(&cases::named("cross_entropy"));
}

#[test]
fn every_committed_fixture_has_a_check() {
    let reports = cases::all();
    assert_eq!(reports.len(), twin::FIXTURES.len());
    for (r, (name, _)) in reports.iter().zip(twin::FIXTURES) {
        assert_eq!(r.case, name);
    }
}

#[test]
fn numbers_read_back_to_the_bits_python_wrote() {
    // 0.1 + 0.2 is the classic number a careless parser gets one ulp off
    let text = r#"{"case":"t","about":"","config":{},"made_by":{"torch":"x"},"params":{},
        "inputs":{"a":{"shape":[3],"data":[0.30000000000000004,2.2250738585072014e-308,-1.7976931348623157e308]}},
        "outputs":{},"grads":{}}"#;
    let fix = Fixture::parse(text).unwrap();
    assert_eq!(fix.input("a").data, vec![0.1 + 0.2, f64::MIN_POSITIVE, f64::MIN]);
    let bad = text.replace("[3]", "[4]");
    assert!(Fixture::parse(&bad).unwrap_err().contains("wants 4 numbers"));
}

/// The test can fail: a GRU read with its r and z gates swapped, or a
/// padding mask read with the wrong polarity, is far outside `TOL`.
#[test]
fn a_wrong_convention_is_caught() {
    let swapped = cases::gru_with_swapped_gates();
    println!("GRU with r and z swapped: {swapped:.2e}");
    assert!(swapped > 1e-2);

    let flipped = cases::encoder_with_flipped_padding();
    println!("encoder layer with the padding mask's polarity flipped: {flipped:.2e}");
    assert!(flipped > 1e-2);
}

#[test]
fn gpt2s_feed_forward_network_with_gelu() {
    check(&cases::named("ffn_gelu"));
}

#[test]
fn a_gpt2_style_model_with_dropout_masks_from_pytorch() {
    check(&cases::named("gpt_dropout"));
}

#[test]
fn twenty_training_steps_of_the_review_classifier() {
    let s = twin::steps::classifier_steps(&Fixture::named("classifier_steps"));
    let key_bias = |n: &str| n.ends_with("attn.w_k.b");
    let (rest, keys) = (s.param_gap(|n| !key_bias(n)), s.param_gap(key_bias));
    println!(
        "{}: {} steps, losses {:.4} → {:.4}; largest loss gap {:.1e}; parameter gap {:.1e}, \
         the key bias's {:.1e} ({} numbers)",
        s.case,
        s.torch_losses.len(),
        s.torch_losses[0],
        s.torch_losses[s.torch_losses.len() - 1],
        s.loss_gap,
        rest,
        keys,
        s.params
    );
    assert_eq!(s.torch_losses.len(), 20);
    assert_eq!(s.plain_losses.len(), 20);
    assert!(s.loss_gap <= TOL && rest <= TOL, "{} {rest}", s.loss_gap);
    // The key bias's gradient is 0 in exact arithmetic (it adds the same
    // number to every score of a query's row, and softmax ignores that), so
    // each framework adds its own rounding noise, ~1e-17, which Adam divides
    // by √v̂ + ε: steps of up to lr·1e-17/1e-8. Far from a wrong convention.
    assert!(keys > TOL && keys < 1e-10, "{keys}");
    // the parameters really moved (20 Adam steps of lr 3e-3 each), so the
    // check is not of a model standing still
    let fix = Fixture::named("classifier_steps");
    let moved = fix.params.iter().fold(0.0, |m: f64, (name, t)| {
        let last = &fix.output(&format!("final.{name}")).data;
        t.data.iter().zip(last).fold(m, |m, (a, b)| m.max((a - b).abs()))
    });
    assert!(moved > 0.01, "{moved}");
}
