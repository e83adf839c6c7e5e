//! `cargo run --release -p ch02_self_attention [-- --help]`

use ch02_self_attention::{Options, run};

fn main() -> std::process::ExitCode {
    record::chapter_main(run, |o: &Options| o.figures.as_deref())
}
