//! Pins everything chapter 05 prints, every value its page quotes and its
//! figure, for the configuration the book shows.

use ch05_multi_head::{Options, run};
use record::Notebook;

#[test]
fn output_values_and_figures_are_pinned() {
    let mut nb = Notebook::quiet();
    run(&Options::default(), &mut nb);
    record::pin!(nb);
}
