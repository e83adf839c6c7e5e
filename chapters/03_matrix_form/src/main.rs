//! `cargo run --release -p ch03_matrix_form [-- --help]`

use ch03_matrix_form::{Options, run};
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
