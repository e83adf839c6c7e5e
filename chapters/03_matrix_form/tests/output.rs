//! Pins everything chapter 03 prints (timings masked), every value its page
//! quotes, for the configuration the book shows.

use ch03_matrix_form::{Options, run};
use record::Notebook;

#[test]
fn output_and_values_are_pinned() {
    let mut nb = Notebook::quiet();
    run(&Options::default(), &mut nb);
    record::pin!(nb);
}
