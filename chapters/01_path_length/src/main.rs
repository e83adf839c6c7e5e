//! `cargo run --release -p ch01_path_length [-- --help]`

use ch01_path_length::{Options, run};
use clap::Parser;
use record::Notebook;

fn main() -> std::io::Result<()> {
    let opts = Options::parse();
    let mut nb = Notebook::printing();
    run(&opts, &mut nb);
    if let Some(dir) = &opts.figures {
        nb.write_figures(dir)?;
        eprintln!("figures written to {}", dir.display());
    }
    Ok(())
}
