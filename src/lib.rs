//! # txbook — the book's own mdBook preprocessor
//!
//! Pages quote a chapter's pinned results with three directives:
//!
//! | directive | becomes |
//! | --- | --- |
//! | `{{value ch02.afrique_to_visite}}` | the value as the demo printed it, e.g. `0.614` |
//! | `{{output ch02.jane}}` | a `text` code block with the demo's pinned output |
//! | `{{figure ch02.jane_weights}}` | the pinned SVG figure, inline |
//!
//! and the glossary page renders `book/glossary.json` with
//! `{{glossary glossary.json}}` (see [`glossary`]); the reproduction report
//! renders every chapter's `lecture.toml` with `{{reproduction zh}}` and
//! `{{reproduction en}}`, after checking each pair (see [`reproduction`]).
//!
//! The source of every substitution is the chapter's insta snapshot files
//! (`chapters/NN_*/tests/snapshots/*.snap`), never a fresh run: the page shows
//! exactly what `cargo test` pins. The preprocessor runs before mdBook's own
//! `links` step and fails the build on anything it cannot resolve: an unknown
//! directive, chapter, value, demo or figure; an `{{#include}}` whose file or
//! `ANCHOR` does not exist (mdBook itself would leave the first in place and
//! silently empty the second); and any formula KaTeX cannot render. Maths is
//! rendered here, to HTML, so the published pages need no script and no CDN.

use std::path::{Path, PathBuf};

use anyhow::{Result, bail};
use mdbook_preprocessor::book::{Book, BookItem};
use mdbook_preprocessor::{Preprocessor, PreprocessorContext};

pub mod directives;
pub mod glossary;
pub mod includes;
pub mod math;
pub mod reproduction;
pub mod snapshots;

pub use snapshots::Snapshots;

/// The preprocessor, named `txbook` in `book.toml`.
pub struct Txbook;

impl Preprocessor for Txbook {
    fn name(&self) -> &str {
        "txbook"
    }

    fn run(&self, ctx: &PreprocessorContext, mut book: Book) -> Result<Book> {
        let src = ctx.root.join(&ctx.config.book.src);
        let snapshots = Snapshots::new(ctx.root.join("chapters"));
        let math = math::Renderer::new(&ctx.root);
        let mut errors = Vec::new();
        book.for_each_mut(|item| {
            let BookItem::Chapter(chapter) = item else {
                return;
            };
            let Some(source) = &chapter.source_path else {
                return; // a draft chapter: no file, nothing to process
            };
            let page = src.join(source);
            let page_dir = page.parent().map(Path::to_path_buf).unwrap_or_default();
            let mut problems = includes::check(&chapter.content, &page_dir);
            let expanded = directives::expand(&chapter.content, &snapshots, &src);
            problems.extend(expanded.errors);
            let rendered = math.render_page(&expanded.text);
            problems.extend(rendered.errors);
            chapter.content = rendered.text;
            errors.extend(problems.into_iter().map(|p| format!("{}: {p}", shown(&page))));
        });
        if !errors.is_empty() {
            bail!("the book has {} problem(s):\n  {}", errors.len(), errors.join("\n  "));
        }
        Ok(book)
    }

    fn supports_renderer(&self, renderer: &str) -> Result<bool> {
        Ok(renderer == "html")
    }
}

fn shown(path: &Path) -> String {
    let cwd = std::env::current_dir().unwrap_or_default();
    path.strip_prefix(&cwd)
        .map(PathBuf::from)
        .unwrap_or_else(|_| path.to_path_buf())
        .display()
        .to_string()
}
