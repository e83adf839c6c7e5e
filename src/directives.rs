//! `{{value …}}`, `{{output …}}` and `{{figure …}}`: pinned results into
//! pages; and `{{glossary FILE}}`: the glossary rendered from its data.

use std::collections::HashMap;
use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

use crate::Snapshots;

/// A page with its directives expanded, and what could not be expanded.
pub struct Expanded {
    /// The page text.
    pub text: String,
    /// One message per directive that failed.
    pub errors: Vec<String>,
}

static DIRECTIVE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\{\{\s*([a-z_]+)\s+([^}\s]*)\s*\}\}").unwrap());
/// Anything that looks like a directive, to catch misspelt ones.
static BRACES: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\{\{\s*[a-z]").unwrap());

/// Expand every directive of `page`; a glossary's FILE is relative to
/// `book_dir`, the book's source folder.
pub fn expand(page: &str, snapshots: &Snapshots, book_dir: &Path) -> Expanded {
    let mut errors = Vec::new();
    let mut values_cache: HashMap<String, Result<_, String>> = HashMap::new();
    let text = DIRECTIVE
        .replace_all(page, |caps: &regex::Captures| {
            let (kind, key) = (&caps[1], &caps[2]);
            if kind == "glossary" {
                let rendered = crate::glossary::load(&book_dir.join(key));
                return rendered.map(|terms| crate::glossary::render(&terms)).unwrap_or_else(|e| {
                    errors.push(e);
                    String::new()
                });
            }
            if kind == "reproduction" {
                return crate::reproduction::directive(key, snapshots, book_dir).unwrap_or_else(
                    |e| {
                        errors.extend(e);
                        String::new()
                    },
                );
            }
            let result = key
                .split_once('.')
                .ok_or_else(|| format!("`{key}` should read chapter.name, like ch02.jane"))
                .and_then(|(chapter, name)| match kind {
                    "value" => values_cache
                        .entry(chapter.to_string())
                        .or_insert_with(|| snapshots.values(chapter))
                        .as_ref()
                        .map_err(Clone::clone)
                        .and_then(|values| {
                            values.get(name).cloned().ok_or_else(|| {
                                format!("no value `{name}` is recorded by {chapter}")
                            })
                        }),
                    "output" => {
                        snapshots.body(chapter, name).map(|body| format!("```text\n{body}\n```"))
                    }
                    "figure" => snapshots
                        .figure(chapter, name)
                        .map(|svg| format!("<figure class=\"txbook-figure\">\n{svg}\n</figure>")),
                    other => Err(format!("unknown directive `{{{{{other} …}}}}`")),
                });
            result.unwrap_or_else(|e| {
                errors.push(e);
                String::new() // the build fails; the page is never shown
            })
        })
        .into_owned();
    // Whatever still looks like a directive was not written like one
    // (`{{value}}`, `{{ output ch02 .x }}`) and must not reach the reader.
    for m in BRACES.find_iter(&text) {
        let line = text[..m.start()].matches('\n').count() + 1;
        let snippet: String = text[m.start()..].chars().take(40).collect();
        errors.push(format!("line {line}: malformed directive `{snippet}`"));
    }
    Expanded { text, errors }
}
