//! `cargo run --release -p ch10_training_recipe [-- --help]`

use ch10_training_recipe::{Options, run};

fn main() -> std::process::ExitCode {
    record::chapter_main(run, |o: &Options| o.figures.as_deref())
}
