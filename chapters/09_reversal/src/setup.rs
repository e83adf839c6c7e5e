//! Lecture 17 §9.1 — what the models are given: one real example from the
//! data generator, and the three models' sizes.

use autograd::data::{BOS, FIRST_SYMBOL, reversal};
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;
use record::{Notebook, say, show};

use crate::experiment::Setup;

fn ids(xs: &[usize]) -> String {
    xs.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(" ")
}

/// The first training sequence of the first seed at the shortest length,
/// and each model's parameter count.
pub fn setup(setup: &Setup, nb: &mut Notebook) {
    nb.demo("setup", "L17 05 · The data and the three models");
    let (len, seed) = (setup.lengths[0], setup.seeds[0]);
    nb.value("example_len", len.to_string());
    nb.value("example_seed", seed.to_string());
    let recipe = setup.recipe(len);
    // a batch of one: the first sequence of the first batch of 64 (each
    // sequence's symbols are drawn one after another)
    let ex = reversal(&mut Pcg64Mcg::seed_from_u64(seed + 100), 1, len, recipe.symbols);
    assert_eq!(ex.tgt_out, ex.src.iter().rev().copied().collect::<Vec<_>>());
    assert_eq!((ex.tgt_in[0], &ex.tgt_in[1..]), (BOS, &ex.tgt_out[..len - 1]));
    let last = FIRST_SYMBOL + recipe.symbols - 1;
    say!(
        nb,
        "token ids: 0 = PAD (never drawn here), {BOS} = BOS, {FIRST_SYMBOL}–{last} = the symbols"
    );
    say!(nb, "seed {seed}, L = {len}: the first sequence of the first training batch");
    let src = nb.value("example_src", ids(&ex.src));
    let tgt_in = nb.value("example_tgt_in", ids(&ex.tgt_in));
    let tgt_out = nb.value("example_tgt_out", ids(&ex.tgt_out));
    say!(nb, "  src      {src}");
    say!(nb, "  tgt_in   {tgt_in}   (BOS, then tgt_out without its last symbol)");
    say!(nb, "  tgt_out  {tgt_out}   (src reversed)");
    say!(nb, "at step t the decoder is fed tgt_in[t] and must output tgt_out[t] = src[L − 1 − t]");
    nb.value("vocab", recipe.vocab().to_string());
    nb.value("symbols", recipe.symbols.to_string());
    nb.value("batch", recipe.batch.to_string());
    nb.value("gru_hidden", crate::models::GRU_HIDDEN.to_string());
    nb.value("heads", crate::models::HEADS.to_string());
    say!(nb, "vocabulary {}, the same at every L; parameters:", recipe.vocab());
    for &kind in &setup.models {
        let count = kind.build(recipe.vocab(), 0).1.count();
        let count = nb.value(&format!("params_{}", kind.tag()), show::grouped(count));
        say!(nb, "  {:<16} {count:>8}", kind.label());
    }
}
