//! `cargo run --release -p ch08_decoder_masks [-- --help]`

use ch08_decoder_masks::{Options, run};

fn main() -> std::process::ExitCode {
    record::chapter_main(run, |o: &Options| o.figures.as_deref())
}
