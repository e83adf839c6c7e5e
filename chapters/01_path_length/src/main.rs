//! `cargo run --release -p ch01_path_length [-- --help]`

use ch01_path_length::{Options, run};

fn main() -> std::process::ExitCode {
    record::chapter_main(run, |o: &Options| o.figures.as_deref())
}
