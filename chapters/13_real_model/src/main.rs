//! `cargo run --release -p ch13_real_model [-- --help]`

use ch13_real_model::{Options, run};

fn main() -> std::process::ExitCode {
    record::chapter_main(run, |o: &Options| o.figures.as_deref())
}
