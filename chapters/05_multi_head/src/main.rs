//! `cargo run --release -p ch05_multi_head [-- --help]`

use ch05_multi_head::{Options, run};

fn main() -> std::process::ExitCode {
    record::chapter_main(run, |o: &Options| o.figures.as_deref())
}
