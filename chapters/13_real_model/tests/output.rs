//! Pins everything chapter 13 prints, every value its page quotes and its
//! figures — and checks that those numbers say what the page says. Needs
//! the model (the README's fetch command); without it the run stops with
//! that command in its message.

use ch13_real_model::{Options, run};

record::book_run!(run, Options);

#[test]
fn output_values_and_figures_are_pinned() {
    record::pin!(book_run());
}

#[test]
fn the_file_is_the_model_the_formulas_describe() {
    assert_eq!(get("params_match"), "true");
    assert_eq!(get("params_file"), "22,713,216");
}

#[test]
fn the_books_blocks_compute_what_the_library_computes() {
    assert_eq!(get("tokens_same"), get("sentences"));
    assert_eq!(get("checks_same"), get("checks"));
    // the same maths: f64 against f64 is rounding
    for name in ["embedding_gap_f64", "hidden_gap", "attention_gap"] {
        assert!(num(name) < 1e-12, "{name}: {}", get(name));
    }
    // against the library as users run it, in f32
    assert!(num("embedding_gap_f32") < 1e-5);
}

#[test]
fn paraphrases_are_closer_than_unrelated_sentences() {
    let unrelated = num("cos_unrelated_max");
    assert!(num("cos_cat_paraphrase") > unrelated);
    assert!(num("cos_market_paraphrase") > unrelated);
}

#[test]
fn the_padding_mask_makes_a_padded_sentence_its_own_and_without_it_not() {
    assert!(num("padding_masked_gap") < 1e-12);
    assert!(num("padding_unmasked_gap") > 1e-3);
}

#[test]
fn attention_parks_on_cls_here_and_there_are_previous_and_next_token_heads() {
    // the cited finding is about [SEP] in BERT-base; in this model, many
    // heads put most of their weight on [CLS] and none on [SEP]
    assert!(num("heads_cls") >= 10.0);
    assert_eq!(get("heads_sep"), "0");
    assert!(num("best_previous_share") > 0.9);
    assert!(num("best_next_share") > 0.5);
}

#[test]
fn the_two_chinese_sentences_look_alike_because_they_are_mostly_unk() {
    assert!(num("cos_chinese_pair") > num("cos_unrelated_max"));
    assert!(num("cos_chinese_cat_english_cat") < num("cos_cat_paraphrase") / 2.0);
    assert!(num("unk_total") >= 8.0);
    // [CLS], six [UNK]s, the full stop, [SEP] is as close to each of them
    assert!(num("cos_unk_s7") > num("cos_unrelated_max"));
    assert!(num("cos_unk_s8") > num("cos_unrelated_max"));
}

#[test]
fn the_exercises() {
    // a negation is closer to its sentence than a paraphrase is
    assert!(num("negation_cos") > num("paraphrase_cos"));
    assert!(num("negation_short_cos") > num("paraphrase_cos"));
    // loaded wrong: far beyond f64 rounding, and W^Q's mistake as large as the embedding
    assert!(num("untransposed_gap") > num("embedding_largest") / 2.0);
    for name in ["tanh_gelu_gap", "default_eps_gap"] {
        assert!(num(name) > 1e-6, "{name}");
    }
    assert!(num("gelu_forms_gap") > 1e-4 && num("gelu_forms_gap") < 1e-3);
    // 2N of the layers' matrices and the counted FLOPs per token differ only by attention
    let n = |name: &str| get(name).replace(',', "").parse::<f64>().unwrap();
    let diff = n("flops_per_token") - n("two_n");
    assert!(diff > 0.0 && diff < 0.01 * n("two_n"), "{diff}");
}
