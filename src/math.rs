//! KaTeX maths rendered at build time; a formula that fails is an error.

use std::path::Path;

use mdbook_katex::cfg::KatexConfig;
use mdbook_katex::preprocess::{ExtraOpts, Render, get_render_tasks};

/// Renders `$…$` and `$$…$$` to KaTeX HTML.
pub struct Renderer {
    inline: katex::Opts,
    display: katex::Opts,
    extra: ExtraOpts,
}

/// A page with its maths rendered, and the formulas that failed.
pub struct Rendered {
    /// The page text.
    pub text: String,
    /// One message per formula KaTeX rejected.
    pub errors: Vec<String>,
}

impl Renderer {
    /// The renderer with KaTeX's default options (errors are thrown).
    pub fn new(root: &Path) -> Self {
        let config = KatexConfig::default();
        let (inline, display) = config.build_opts(root);
        Renderer { inline, display, extra: config.build_extra_opts() }
    }

    /// Render every formula of `page`. The scan (code blocks and inline code
    /// are left alone, `\$` is a dollar) is mdbook-katex's own.
    pub fn render_page(&self, page: &str) -> Rendered {
        let mut errors = Vec::new();
        let mut text = String::with_capacity(page.len() * 2);
        for task in get_render_tasks(page, "", &self.extra) {
            let (formula, opts, delimiter) = match task {
                Render::Text(t) => {
                    text.push_str(t);
                    continue;
                }
                Render::InlineTask(f) => (f, &self.inline, "$"),
                Render::DisplayTask(f) => (f, &self.display, "$$"),
            };
            match katex::render_with_opts(formula, opts) {
                Ok(html) => text.push_str(&html.replace('\n', " ")),
                Err(e) => {
                    errors
                        .push(format!("KaTeX cannot render {delimiter}{formula}{delimiter}: {e}"));
                    text.push_str(formula);
                }
            }
        }
        Rendered { text, errors }
    }
}
