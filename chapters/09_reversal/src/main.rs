//! `cargo run --release -p ch09_reversal [-- --help]`

use ch09_reversal::{Options, run};

fn main() -> std::process::ExitCode {
    record::chapter_main(run, |o: &Options| o.figures.as_deref())
}
