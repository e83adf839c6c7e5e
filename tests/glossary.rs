//! The glossary (`book/glossary.json`) against the pages: the data is sound,
//! its page renders in pairs, and every page names each term in both
//! languages or in neither.
//!
//! The consistency rule works on each zh/en block pair: a term whose Chinese
//! form appears in the Chinese block must have an English form in the English
//! block, and the reverse. Only prose counts: code, maths, `{{…}}`
//! directives, HTML tags and link targets are the same in both languages (or
//! not words at all) and are cut out first. Forms are matched longest first
//! and never overlap, so 自注意力 is self-attention and not also attention,
//! and “padding mask” is not also “mask”.

use std::collections::{BTreeSet, HashMap};
use std::path::PathBuf;

use txbook::glossary::{self, Term};

mod lang;
use lang::root;

fn terms() -> Vec<Term> {
    glossary::load(&root().join("book/glossary.json")).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn the_data_parses_and_no_two_terms_share_a_form() {
    let terms = terms();
    assert!(terms.len() >= 60, "only {} terms", terms.len());
    let mut problems = Vec::new();
    let mut seen: HashMap<String, &str> = HashMap::new();
    for t in &terms {
        let forms = t.zh.iter().map(|f| format!("zh {}", f.to_lowercase()));
        let forms = forms.chain(t.en.iter().map(|f| format!("en {}", f.to_lowercase())));
        for form in forms.chain([format!("id {}", t.id)]) {
            if let Some(other) = seen.insert(form.clone(), &t.id)
                && other != t.id
            {
                problems.push(format!("`{other}` and `{}` share {form}", t.id));
            }
        }
        if t.en.iter().chain([&t.en_def]).any(|s| s.chars().any(is_han)) {
            problems.push(format!("`{}`: Chinese in the English form or definition", t.id));
        }
    }
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

#[test]
fn every_term_links_to_a_page_and_heading_that_exist() {
    let mut problems = Vec::new();
    for t in terms() {
        let (file, anchor) = t.page.split_once('#').unwrap_or((&t.page, ""));
        let Ok(page) = std::fs::read_to_string(root().join("book").join(file)) else {
            problems.push(format!("`{}`: no page book/{file}", t.id));
            continue;
        };
        if !anchor.is_empty() && !page.contains(&format!("{{#{anchor}}}")) {
            problems.push(format!("`{}`: book/{file} has no heading {{#{anchor}}}", t.id));
        }
    }
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

/// `glossary.md#mask` (English) and `glossary.md#zh-mask` (Chinese) must name
/// a term, and each language must link to its own entry.
#[test]
fn every_link_into_the_glossary_names_a_term() {
    let ids: BTreeSet<String> = terms().into_iter().map(|t| t.id).collect();
    let link = regex::Regex::new(r"\]\(glossary\.md#([^)\s]+)\)").unwrap();
    let mut problems = Vec::new();
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        for (n, lang, prose) in raw_blocks(&text) {
            for cap in link.captures_iter(&prose) {
                let (zh, id) = match cap[1].strip_prefix("zh-") {
                    Some(id) => (true, id),
                    None => (false, &cap[1]),
                };
                if !ids.contains(id) || zh != (lang == "zh") {
                    let name = page.file_name().unwrap().to_string_lossy();
                    problems
                        .push(format!("{name}: the {lang} block at line {n} links #{}", &cap[1]));
                }
            }
        }
    }
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

#[test]
fn the_glossary_page_renders_every_term_in_pairs() {
    let page = std::fs::read_to_string(root().join("book/glossary.md")).unwrap();
    let snapshots = txbook::Snapshots::new(root().join("chapters"));
    let expanded = txbook::directives::expand(&page, &snapshots, &root().join("book"));
    assert!(expanded.errors.is_empty(), "{:?}", expanded.errors);
    let problems = lang::check(&expanded.text);
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
    for t in terms() {
        for id in [format!("id=\"{}\"", t.id), format!("id=\"zh-{}\"", t.id)] {
            assert_eq!(expanded.text.matches(&id).count(), 1, "{id} once on the page");
        }
    }
}

/// A reader who meets 查询 or “recurrent network” on a page finds it on the
/// glossary page; a shown name must be one of the term's forms.
#[test]
fn the_glossary_page_shows_other_names_and_only_known_ones() {
    let page = glossary::render(&terms());
    assert!(page.contains("**query**（又作 查询）："), "query's other name is not shown");
    assert!(page.contains("**RNN** (also recurrent network): "), "RNN's other name is not shown");
    let entry = |also: &str| {
        format!(
            r#"{{"terms": [{{"id": "query", "zh": ["query", "查询"], "zh_also": {also}, "en": ["query"],
              "zh_def": "问题。", "en_def": "A question.", "page": "02_self_attention.md"}}]}}"#
        )
    };
    assert!(glossary::parse(&entry(r#"["查询"]"#)).is_ok());
    for bad in [r#"["询问"]"#, r#"["query"]"#, r#""查询""#] {
        let err = glossary::parse(&entry(bad)).expect_err(bad);
        assert!(err.contains("zh_also"), "{bad}: {err}");
    }
}

#[test]
fn every_page_names_its_terms_in_both_languages() {
    let terms = terms();
    let mut problems = Vec::new();
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        let name = page.strip_prefix(root()).unwrap().display().to_string();
        problems.extend(mismatches(&text, &terms).into_iter().map(|p| format!("{name}:{p}")));
    }
    assert!(problems.is_empty(), "{} mismatch(es):\n{}", problems.len(), problems.join("\n"));
}

#[test]
fn a_page_that_drops_a_term_in_one_language_fails() {
    let terms = terms();
    let pair = |zh: &str, en: &str| {
        format!("<div lang=\"zh\">\n\n{zh}\n\n</div>\n<div lang=\"en\">\n\n{en}\n\n</div>\n")
    };
    let good = pair(
        "前瞻掩码让每个位置看不到未来，自注意力照常。",
        "The look-ahead mask keeps the future out of sight; self-attention goes on.",
    );
    assert!(mismatches(&good, &terms).is_empty(), "{:?}", mismatches(&good, &terms));
    let bad =
        pair("前瞻掩码让每个位置看不到未来。", "The causal mask keeps the future out of sight.");
    let found = mismatches(&bad, &terms);
    assert!(found.iter().any(|p| p.contains("look-ahead mask")), "{found:?}");
    // Code, maths and link targets are not prose.
    let shared =
        pair("见 `mask` 与 $x$ 和[这里](08_decoder_masks.md#padding)。", "See [there](x.md).");
    assert!(mismatches(&shared, &terms).is_empty(), "{:?}", mismatches(&shared, &terms));
}

/// The pages of prose: every page but the glossary itself.
fn pages() -> Vec<PathBuf> {
    lang::pages().into_iter().filter(|p| !p.ends_with("glossary.md")).collect()
}

/// One message per term a block pair names in one language only.
fn mismatches(page: &str, terms: &[Term]) -> Vec<String> {
    let mut blocks = blocks(page);
    for pair in blocks.chunks_mut(2) {
        if let [(_, "zh", zh), (_, "en", en)] = pair {
            (*zh, *en) = cut_shared_italics(zh, en);
        }
    }
    let mut out = Vec::new();
    let whole = |lang: &str| {
        let text: Vec<&str> = blocks.iter().filter(|b| b.1 == lang).map(|b| b.2.as_str()).collect();
        text.join("\n")
    };
    let (page_zh, page_en) = (found(&whole("zh"), terms, true), found(&whole("en"), terms, false));
    for t in terms.iter().filter(|t| t.everyday) {
        let (z, e) = (page_zh.contains(&t.id), page_en.contains(&t.id));
        let checked = |lang: &str| t.one_way.as_deref().is_none_or(|l| l == lang);
        if z && !e && checked("zh") || e && !z && checked("en") {
            let (has, lacks, forms) = if z { ("zh", "en", &t.en) } else { ("en", "zh", &t.zh) };
            out.push(format!(
                " “{}” ({}) is in the page's {has} blocks; its {lacks} blocks have none of {forms:?}",
                t.zh[0], t.en[0]
            ));
        }
    }
    for pair in blocks.chunks(2) {
        let [(zh_line, "zh", zh), (en_line, "en", en)] = pair else { continue };
        let (in_zh, in_en) = (found(zh, terms, true), found(en, terms, false));
        for t in terms.iter().filter(|t| !t.everyday) {
            let (z, e) = (in_zh.contains(&t.id), in_en.contains(&t.id));
            if z != e {
                let (has, lacks, forms) = if z { ("zh", "en", &t.en) } else { ("en", "zh", &t.zh) };
                out.push(format!(
                    "{zh_line}/{en_line}: “{}” ({}) is in the {has} block; the {lacks} block has none of {forms:?}",
                    t.zh[0], t.en[0]
                ));
            }
        }
    }
    out
}

/// The language blocks of a page: (first line, language, prose).
fn blocks(page: &str) -> Vec<(usize, &'static str, String)> {
    raw_blocks(page).into_iter().map(|(n, lang, body)| (n, lang, prose(&body))).collect()
}

/// The language blocks of a page as written: (first line, language, text).
fn raw_blocks(page: &str) -> Vec<(usize, &'static str, String)> {
    let mut out = Vec::new();
    let mut open: Option<(usize, &'static str, String)> = None;
    for (i, line) in page.lines().enumerate() {
        let t = line.trim();
        if let Some(rest) = t.strip_prefix("<div lang=\"") {
            let lang = if rest.starts_with("zh\"") { "zh" } else { "en" };
            open = Some((i + 1, lang, String::new()));
        } else if t == "</div>" {
            if let Some(block) = open.take() {
                out.push(block);
            }
        } else if let Some((_, _, body)) = open.as_mut() {
            body.push_str(line);
            body.push('\n');
        }
    }
    out
}

/// Cut out what is not prose: fenced code, code spans, maths, directives,
/// HTML tags and link targets.
fn prose(text: &str) -> String {
    static CUT: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(
            r"(?s)```.*?```|`[^`]*`|\$\$.*?\$\$|\$[^$]*\$|\{\{.*?\}\}|<[^>]*>|\]\([^)]*\)",
        )
        .unwrap()
    });
    CUT.replace_all(text, " ").replace("**", "")
}

/// A title of a work (`*Attention Is All You Need*`) stands verbatim in
/// both blocks and is the prose of neither: cut every italic span the two
/// blocks share. (An italic the other block lacks, `*path length*`, stays.)
fn cut_shared_italics(zh: &str, en: &str) -> (String, String) {
    static ITALIC: std::sync::LazyLock<regex::Regex> =
        std::sync::LazyLock::new(|| regex::Regex::new(r"\*[^*\n]+\*").unwrap());
    let spans = |t: &str| -> BTreeSet<String> {
        ITALIC.find_iter(t).map(|m| m.as_str().to_string()).collect()
    };
    let shared: Vec<String> = spans(zh).intersection(&spans(en)).cloned().collect();
    let cut = |t: &str| shared.iter().fold(t.to_string(), |t, s| t.replace(s.as_str(), " "));
    (cut(zh), cut(en))
}

/// The ids of the terms `text` names, longest forms first and without overlap.
fn found(text: &str, terms: &[Term], zh: bool) -> BTreeSet<String> {
    let lower = text.to_ascii_lowercase();
    let mut hits: Vec<(usize, usize, &str)> = Vec::new(); // (start, end, id)
    for t in terms {
        for form in if zh { &t.zh } else { &t.en } {
            let f = form.to_ascii_lowercase();
            for (at, _) in lower.match_indices(&f) {
                let end = at + f.len();
                if bounded(&lower, at, end, &f) {
                    hits.push((at, end, &t.id));
                }
            }
        }
    }
    hits.sort_by_key(|&(s, e, _)| (std::cmp::Reverse(e - s), s));
    let mut taken: Vec<(usize, usize)> = Vec::new();
    let mut ids = BTreeSet::new();
    for (s, e, id) in hits {
        if taken.iter().all(|&(ts, te)| e <= ts || s >= te) {
            taken.push((s, e));
            ids.insert(id.to_string());
        }
    }
    ids
}

/// A form in Latin letters must stand as a word: no letter or digit on
/// either side (Chinese forms have no word boundaries to respect).
fn bounded(text: &str, start: usize, end: usize, form: &str) -> bool {
    let word = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric());
    let before = text[..start].chars().next_back();
    let after = text[end..].chars().next();
    !(word(form.chars().next()) && word(before) || word(form.chars().next_back()) && word(after))
}

fn is_han(c: char) -> bool {
    matches!(c, '\u{3400}'..='\u{4DBF}' | '\u{4E00}'..='\u{9FFF}' | '\u{F900}'..='\u{FAFF}')
}
