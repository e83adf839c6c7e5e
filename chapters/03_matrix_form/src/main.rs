//! `cargo run --release -p ch03_matrix_form [-- --help]`

use ch03_matrix_form::{Options, run};

fn main() -> std::process::ExitCode {
    record::chapter_main(run, |o: &Options| o.figures.as_deref())
}
