//! `cargo run --release -p ch06_positional_encoding [-- --help]`

use ch06_positional_encoding::{Options, run};

fn main() -> std::process::ExitCode {
    record::chapter_main(run, |o: &Options| o.figures.as_deref())
}
