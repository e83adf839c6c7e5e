//! `cargo run --release -p ch07_encoder_layer [-- --help]`

use ch07_encoder_layer::{Options, run};

fn main() -> std::process::ExitCode {
    record::chapter_main(run, |o: &Options| o.figures.as_deref())
}
