//! `cargo run --release -p ch04_sqrt_dk [-- --help]`

use ch04_sqrt_dk::{Options, run};

fn main() -> std::process::ExitCode {
    record::chapter_main(run, |o: &Options| o.figures.as_deref())
}
