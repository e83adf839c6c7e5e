//! `cargo run --release -p ch11_costs [-- --help]`

use ch11_costs::{Options, run};

fn main() -> std::process::ExitCode {
    record::chapter_main(run, |o: &Options| o.figures.as_deref())
}
