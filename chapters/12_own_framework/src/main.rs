//! `cargo run --release -p ch12_own_framework [-- --help]`

use ch12_own_framework::{Options, run};

fn main() -> std::process::ExitCode {
    record::chapter_main(run, |o: &Options| o.figures.as_deref())
}
