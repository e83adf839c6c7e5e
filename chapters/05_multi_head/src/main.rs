//! `cargo run --release -p ch05_multi_head [-- --help]`

use ch05_multi_head::{Options, run};
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
