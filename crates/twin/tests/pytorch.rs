//! The book's layers against PyTorch's, from the committed fixtures: every
//! output and every gradient within f64 rounding. Each test prints its
//! largest differences.

use twin::{Fixture, Report, Tensor, cases};

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

fn swap_blocks(t: &mut Tensor, a: usize, b: usize) {
    // swap row blocks a and b of a (3H, ·) stacked weight or a (3H) bias
    let cols = if t.shape.len() == 2 { t.shape[1] } else { 1 };
    let h = t.shape[0] / 3;
    for r in 0..h {
        for c in 0..cols {
            t.data.swap((a * h + r) * cols + c, (b * h + r) * cols + c);
        }
    }
}

/// The test can fail: a GRU read with its r and z gates swapped, or a
/// padding mask read with the wrong polarity, is far outside `TOL`.
#[test]
fn a_wrong_convention_is_caught() {
    let mut fix = Fixture::named("gru");
    for name in ["weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0"] {
        swap_blocks(fix.params.get_mut(name).unwrap(), 0, 1);
    }
    let r = cases::check(&fix);
    println!("GRU with r and z swapped: {:.2e}", r.worst());
    assert!(r.worst() > 1e-2);

    let mut fix = Fixture::named("encoder_post");
    for v in &mut fix.inputs.get_mut("key_padding").unwrap().data {
        *v = 1.0 - *v; // 1 = keep read as 1 = padding
    }
    let r = cases::check(&fix);
    println!("encoder layer with the padding mask's polarity flipped: {:.2e}", r.worst());
    assert!(r.worst() > 1e-2);
}
