//! The `txbook` preprocessor as the command `mdbook serve` / `mdbook build`
//! call (see `book.toml`): `mdbook-txbook supports html`, or a book as JSON
//! on stdin → the processed book on stdout.

use std::process::ExitCode;

use mdbook_preprocessor::Preprocessor;
use txbook::Txbook;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        [cmd, renderer] if cmd == "supports" => {
            if Txbook.supports_renderer(renderer).unwrap_or(false) {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        [] => match preprocess() {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("mdbook-txbook: {e:#}");
                ExitCode::FAILURE
            }
        },
        _ => {
            eprintln!("usage: mdbook-txbook [supports <renderer>]  (a book as JSON on stdin)");
            ExitCode::from(2)
        }
    }
}

fn preprocess() -> anyhow::Result<()> {
    let (ctx, book) = mdbook_preprocessor::parse_input(std::io::stdin())?;
    let book = Txbook.run(&ctx, book)?;
    serde_json::to_writer(std::io::stdout(), &book)?;
    Ok(())
}
