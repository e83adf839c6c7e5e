//! The reproduction report: every figure the two lectures report, beside the
//! book's own, with a verdict that a test keeps honest.
//!
//! Each chapter crate keeps, beside its code, `lecture.toml`: one `[[pair]]`
//! per figure of the lecture the chapter reproduces, naming the value the
//! chapter records for it, and one `[[missing]]` per figure it does not
//! reproduce, with the reason.
//!
//! ```toml
//! [[pair]]
//! source = "L17 §9.3"
//! what = { zh = "Transformer，L = 32，整句准确率", en = "Transformer, L = 32, whole sequences" }
//! lecture = "0.996"                  # as the lecture prints it
//! book = ["seq_transformer_l32_mean"] # values this chapter records
//! verdict = "agrees"                 # exact | agrees | differs | timing
//! within = 0.01                      # agrees: |book − lecture| ≤ within
//! ```
//!
//! An `agrees` pair states one tolerance: `within` (the largest
//! |book − lecture|), `factor` (the largest ratio either way, for figures
//! known to their order of magnitude) or `eps` (for a figure that is itself
//! a rounding error: both it and the book's must be at most `eps` times
//! f64's machine epsilon). A `differs` pair names the paragraph that
//! explains it, `why = "09_reversal.md#results"`, and says
//! `cause_unknown = true` if that paragraph finds no cause; a `timing` pair
//! says what the book measures instead (`instead = { zh, en }`), since
//! timings are masked in what the book pins. A range is a list of values,
//! `book = ["x_min", "x_max"]`, against a lecture figure written
//! `0.64–0.78`; a tuple `(0, 4, 0, 0)` is compared element by element, a
//! fraction `1/3` at the book's own precision, and one figure against a
//! recorded tuple stands for every element.
//!
//! The checks ([`check_pair`]): every value named is recorded (no pair is
//! orphaned); an `exact` pair is equal at the lecture's printed precision;
//! an `agrees` pair is within its tolerance; a `differs` pair's link
//! resolves to a heading of a page, and the pair is not in fact equal. The
//! preprocessor fails the build on any of them, and `tests/reproduction.rs`
//! runs them without building the book. The data are plain files, not
//! recorded by the chapter's run, so that correcting a description does not
//! retrain a model; what they quote is still only ever the pinned values.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

/// The file each chapter crate keeps its pairs in.
pub const FILE: &str = "lecture.toml";

/// A phrase in both languages.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Text {
    pub zh: String,
    pub en: String,
}

impl Text {
    fn get(&self, lang: Lang) -> &str {
        match lang {
            Lang::Zh => &self.zh,
            Lang::En => &self.en,
        }
    }
}

/// How the book's figure stands to the lecture's. Declared in the order of
/// the report's columns, which count the pairs by `verdict as usize`.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// Equal at the lecture's printed precision.
    Exact,
    /// The same substance, within the stated tolerance.
    Agrees,
    /// Different, explained on a page.
    Differs,
    /// A timing: masked in the book, which measures something else instead.
    Timing,
}

impl Verdict {
    pub const ALL: [Verdict; 4] =
        [Verdict::Exact, Verdict::Agrees, Verdict::Differs, Verdict::Timing];

    fn label(self, lang: Lang) -> &'static str {
        match (self, lang) {
            (Verdict::Exact, Lang::Zh) => "精确一致",
            (Verdict::Agrees, Lang::Zh) => "相符",
            (Verdict::Differs, Lang::Zh) => "不同",
            (Verdict::Timing, Lang::Zh) => "计时",
            (Verdict::Exact, Lang::En) => "exact",
            (Verdict::Agrees, Lang::En) => "agrees",
            (Verdict::Differs, Lang::En) => "differs",
            (Verdict::Timing, Lang::En) => "timing",
        }
    }
}

/// One figure of a lecture beside the book's.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pair {
    /// Lecture and section: `L17 §9.3`, `L6 §5.4`.
    pub source: String,
    pub what: Text,
    /// The figure as the lecture prints it.
    pub lecture: String,
    /// The names of the chapter's recorded values that are the book's figure.
    #[serde(default)]
    pub book: Vec<String>,
    pub verdict: Verdict,
    /// For `agrees`, one of three tolerances: the largest |book − lecture|;
    pub within: Option<f64>,
    /// the largest ratio between them, either way round (for figures known
    /// only to their order of magnitude);
    pub factor: Option<f64>,
    /// or, for a figure that is itself a rounding error (the largest
    /// difference between two computations of one quantity), the multiple
    /// of f64's machine epsilon that both must stay within.
    pub eps: Option<f64>,
    /// For `differs`: `page.md#heading` of the paragraph that explains it.
    pub why: Option<String>,
    /// For `differs`: the page finds no cause and says so.
    #[serde(default)]
    pub cause_unknown: bool,
    /// For `timing`: what the book measures instead.
    pub instead: Option<Text>,
}

/// A figure of a lecture that the book does not reproduce.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Missing {
    pub source: String,
    pub what: Text,
    pub lecture: String,
    pub why: Text,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    pair: Vec<Pair>,
    #[serde(default)]
    missing: Vec<Missing>,
}

/// One chapter's pairs.
#[derive(Clone, Debug)]
pub struct Chapter {
    /// `ch09`.
    pub key: String,
    /// `09_reversal.md`.
    pub page: String,
    pub pairs: Vec<Pair>,
    pub missing: Vec<Missing>,
}

/// Parse one chapter's `lecture.toml`.
pub fn parse(text: &str) -> Result<(Vec<Pair>, Vec<Missing>), String> {
    let file: File = toml::from_str(text).map_err(|e| e.to_string())?;
    Ok((file.pair, file.missing))
}

/// Every chapter crate under `chapters_dir` that has a `lecture.toml`, in
/// chapter order.
pub fn load_all(chapters_dir: &Path) -> Result<Vec<Chapter>, String> {
    let mut dirs: Vec<_> = std::fs::read_dir(chapters_dir)
        .map_err(|e| format!("cannot list {}: {e}", chapters_dir.display()))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join(FILE).is_file())
        .collect();
    dirs.sort();
    let mut chapters = Vec::new();
    for dir in dirs {
        let name = dir.file_name().unwrap_or_default().to_string_lossy().into_owned();
        let path = dir.join(FILE);
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let (pairs, missing) = parse(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        chapters.push(Chapter {
            key: format!("ch{}", &name[..2.min(name.len())]),
            page: format!("{name}.md"),
            pairs,
            missing,
        });
    }
    Ok(chapters)
}

/// A figure without a leading `≈` or a trailing `%` or `×`.
fn bare(s: &str) -> &str {
    s.trim().trim_start_matches('≈').trim_end_matches(['%', '×']).trim()
}

/// A figure as a number: `,` separators, a leading `≈` and a trailing `%`
/// or `×` are dropped, `−` is a minus sign, `1/3` is a fraction and `√2` a
/// root.
pub fn number(s: &str) -> Option<f64> {
    let t = bare(s).replace([',', ' '], "").replace('−', "-");
    if let Some(root) = t.strip_prefix('√') {
        return Some(root.parse::<f64>().ok()?.sqrt());
    }
    match t.split_once('/') {
        Some((a, b)) => Some(a.parse::<f64>().ok()? / b.parse::<f64>().ok()?),
        None => t.parse().ok(),
    }
}

/// Whether a figure is exact whatever the precision it is compared at: a
/// fraction `1/3` or a root `√2`.
fn is_fraction(s: &str) -> bool {
    s.contains('/') || s.contains('√')
}

/// A figure's scalars: `(0.117, 0.648)` is two, anything else one.
fn elements(s: &str) -> Vec<&str> {
    let t = s.trim();
    match t.strip_prefix('(').and_then(|t| t.strip_suffix(')')) {
        Some(inner) => inner.split(',').map(str::trim).collect(),
        None => vec![t],
    }
}

/// f64's machine epsilon, the unit of an `eps` tolerance.
pub const EPSILON: f64 = f64::EPSILON;

/// `x` at the precision `like` is printed with: as many decimals, or as
/// many digits of mantissa if `like` is written with an exponent.
pub fn at_precision(x: f64, like: &str) -> String {
    let t = bare(like);
    let (mantissa, exponent) = match t.find(['e', 'E']) {
        Some(i) => (&t[..i], true),
        None => (t, false),
    };
    let decimals = mantissa.split_once('.').map_or(0, |(_, d)| d.len());
    if exponent { format!("{x:.decimals$e}") } else { format!("{x:.decimals$}") }
}

/// The lecture's figure split into as many parts as the book names values.
fn lecture_parts(pair: &Pair) -> Vec<&str> {
    if pair.book.len() > 1 {
        pair.lecture.split('–').map(str::trim).collect()
    } else {
        vec![pair.lecture.trim()]
    }
}

/// Whether `book` equals `lecture` at the lecture's printed precision; a
/// fraction in the lecture is compared at the book's own precision.
fn equal_at_precision(lecture: &str, book: &str) -> bool {
    match (number(lecture), number(book)) {
        (Some(l), Some(b)) if is_fraction(lecture) => {
            at_precision(l, book) == at_precision(b, book)
        }
        (Some(l), Some(b)) => at_precision(l, lecture) == at_precision(b, lecture),
        _ => lecture == book.trim(),
    }
}

/// Whether two scalar figures agree under the pair's tolerance, or why not.
fn agree(pair: &Pair, lecture: &str, book: &str) -> Result<(), String> {
    let (Some(l), Some(b)) = (number(lecture), number(book)) else {
        return Err(format!("`{lecture}` or `{book}` is not a number to compare"));
    };
    match (pair.within, pair.factor, pair.eps) {
        (Some(tol), None, None) if tol > 0.0 => {
            if (l - b).abs() <= tol { Ok(()) } else { Err(format!("the book's {book} is not within {tol}")) }
        }
        (None, Some(f), None) if f > 1.0 => {
            let ratio = if l > 0.0 && b > 0.0 { (l / b).max(b / l) } else { f64::INFINITY };
            if ratio <= f { Ok(()) } else { Err(format!("the book's {book} is not within a factor {f}")) }
        }
        (None, None, Some(k)) if k > 0.0 => {
            let bound = k * EPSILON;
            if l.abs() <= bound && b.abs() <= bound {
                Ok(())
            } else {
                Err(format!("the lecture's {lecture} and the book's {book} are not both within {k}ε = {bound:.1e}"))
            }
        }
        _ => Err("an `agrees` pair needs one tolerance: `within` (above 0), `factor` (above 1) or `eps` (above 0)".into()),
    }
}

/// The tolerance of an `agrees` pair as the report prints it.
fn tolerance(pair: &Pair, lang: Lang) -> String {
    match (pair.within, pair.factor, pair.eps) {
        (Some(t), _, _) => format!("±{t}"),
        (_, Some(f), _) => {
            if lang == Lang::Zh {
                format!("相差不到 {f} 倍")
            } else {
                format!("within a factor {f}")
            }
        }
        (_, _, Some(k)) => {
            if lang == Lang::Zh {
                format!("两者都 ≤ {k}ε")
            } else {
                format!("both ≤ {k}ε")
            }
        }
        _ => String::new(),
    }
}

/// The book's figure: its values as shown, joined like the lecture's range.
pub fn book_shown(pair: &Pair, values: &BTreeMap<String, String>) -> String {
    let shown: Vec<&str> =
        pair.book.iter().map(|n| values.get(n).map_or("?", String::as_str)).collect();
    shown.join("–")
}

/// Everything wrong with one pair. `values` are the chapter's recorded
/// values; `heading_ids(page)` gives the heading ids of a page of the book,
/// or `None` if there is no such page.
pub fn check_pair(
    chapter: &str,
    pair: &Pair,
    values: &BTreeMap<String, String>,
    heading_ids: &dyn Fn(&str) -> Option<Vec<String>>,
) -> Vec<String> {
    let mut problems = Vec::new();
    let at =
        format!("{chapter} {} “{}” (the lecture: {})", pair.source, pair.what.en, pair.lecture);
    let mut say = |p: String| problems.push(format!("{at}: {p}"));
    if pair.book.is_empty() && pair.verdict != Verdict::Timing {
        say("names no value of the book".into());
    }
    let mut shown = Vec::new();
    for name in &pair.book {
        match values.get(name) {
            Some(v) => shown.push(v.as_str()),
            None => say(format!("`{name}` is not a value {chapter} records")),
        }
    }
    if shown.len() != pair.book.len() {
        return problems;
    }
    let mut parts: Vec<&str> = lecture_parts(pair).into_iter().flat_map(elements).collect();
    let shown: Vec<&str> = shown.into_iter().flat_map(elements).collect();
    // one figure the lecture gives for every entry of one recorded tuple
    if parts.len() == 1 && pair.book.len() == 1 && shown.len() > 1 {
        parts = vec![parts[0]; shown.len()];
    }
    if !pair.book.is_empty() && parts.len() != shown.len() {
        say(format!("{} lecture figure(s) against {} value(s)", parts.len(), shown.len()));
        return problems;
    }
    let equal = parts.iter().zip(&shown).all(|(l, b)| equal_at_precision(l, b));
    if pair.verdict != Verdict::Agrees
        && (pair.within.is_some() || pair.factor.is_some() || pair.eps.is_some())
    {
        say("only an `agrees` pair has a tolerance".into());
    }
    if pair.cause_unknown && pair.verdict != Verdict::Differs {
        say("only a `differs` pair can have `cause_unknown`".into());
    }
    match pair.verdict {
        Verdict::Exact => {
            if !equal {
                say(format!(
                    "the book's {} is not equal at the lecture's precision",
                    shown.join(", ")
                ));
            }
        }
        Verdict::Agrees => {
            let mut first = None;
            for (l, b) in parts.iter().zip(&shown) {
                if let Err(e) = agree(pair, l, b) {
                    first.get_or_insert(e);
                }
            }
            if let Some(e) = first {
                say(e);
            }
        }
        Verdict::Differs => {
            if equal && !pair.book.is_empty() {
                say(format!("the book's {} is equal: the verdict is `exact`", shown.join(", ")));
            }
            match pair.why.as_deref().and_then(|w| w.split_once('#')) {
                Some((page, id)) => match heading_ids(page) {
                    None => say(format!("`why` names {page}, which is not a page of the book")),
                    Some(ids) if !ids.iter().any(|i| i == id) => {
                        say(format!("`why` names #{id}, which is not a heading of {page}"))
                    }
                    Some(_) => {}
                },
                None => say("a `differs` pair needs `why = \"page.md#heading\"`".into()),
            }
        }
        Verdict::Timing => {
            if pair.instead.is_none() {
                say("a `timing` pair needs `instead`: what the book measures".into());
            }
        }
    }
    problems
}

/// The ids of a page's headings, `## Title {#id}`.
pub fn heading_ids(page: &str) -> Vec<String> {
    page.lines()
        .filter(|l| l.starts_with('#'))
        .filter_map(|l| {
            let start = l.rfind("{#")?;
            let end = l[start..].find('}')? + start;
            Some(l[start + 2..end].to_string())
        })
        .collect()
}

/// The report's language.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lang {
    Zh,
    En,
}

fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// The chapter's title in `lang`, from SUMMARY.md's `[zh | en](page)`.
fn title(summary: &str, page: &str, lang: Lang) -> String {
    let link = format!("]({page})");
    let found = summary.lines().find(|l| l.contains(&link)).and_then(|l| {
        let open = l.find('[')?;
        let close = l.find(&link)?;
        let (zh, en) = l[open + 1..close].split_once(" | ")?;
        Some(if lang == Lang::Zh { zh.to_string() } else { en.to_string() })
    });
    found.unwrap_or_else(|| page.to_string())
}

/// The report in one language: the counts, then each chapter's pairs and
/// the figures it does not reproduce. A chapter's title is a paragraph, not
/// a heading: the sidebar lists a page's headings, and would list every
/// chapter twice, once per language. `values(key)` gives a chapter's
/// recorded values.
pub fn render(
    chapters: &[Chapter],
    values: &dyn Fn(&str) -> BTreeMap<String, String>,
    summary: &str,
    lang: Lang,
) -> String {
    let zh = lang == Lang::Zh;
    let mut out = String::new();
    let head = if zh {
        "| 章 | 精确一致 | 相符 | 不同（其中原因未明） | 计时 | 未复现 | 合计 |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n"
    } else {
        "| chapter | exact | agrees | differs (cause unknown) | timing | not reproduced | all |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n"
    };
    out.push_str(head);
    // exact, agrees, differs, timing, not reproduced; then cause unknown,
    // a part of differs, printed after it and left out of the sum
    let mut totals = [0usize; 6];
    for ch in chapters {
        let mut counts = [0usize; 6];
        for p in &ch.pairs {
            counts[p.verdict as usize] += 1;
            counts[5] += usize::from(p.cause_unknown);
        }
        counts[4] = ch.missing.len();
        for (t, c) in totals.iter_mut().zip(counts) {
            *t += c;
        }
        let all: usize = counts[..5].iter().sum();
        let row = columns(&counts);
        let number = ch.key.trim_start_matches("ch");
        out.push_str(&format!(
            "| [{number}](#{}-{}) | {row} | {all} |\n",
            lang_prefix(lang),
            ch.key,
        ));
    }
    let all: usize = totals[..5].iter().sum();
    let row = columns(&totals);
    out.push_str(&format!("| {} | {row} | {all} |\n", if zh { "合计" } else { "all" },));
    for ch in chapters {
        let values = values(&ch.key);
        let id = format!("{}-{}", lang_prefix(lang), ch.key);
        out.push_str(&format!(
            "\n<p id=\"{id}\" class=\"report-chapter\"><strong><a href=\"{}\">{}</a></strong></p>\n\n",
            ch.page.replace(".md", ".html"),
            title(summary, &ch.page, lang)
        ));
        if !ch.pairs.is_empty() {
            out.push_str(if zh {
                "| 出处 | 内容 | 讲义 | 本书 | 判定 |\n| --- | --- | --- | --- | --- |\n"
            } else {
                "| source | what | lecture | book | verdict |\n| --- | --- | --- | --- | --- |\n"
            });
            for p in &ch.pairs {
                let book =
                    if p.book.is_empty() { "—".to_string() } else { book_shown(p, &values) };
                let verdict = match p.verdict {
                    Verdict::Agrees => {
                        let (open, close) = if zh { ("（", "）") } else { (" (", ")") };
                        format!("{}{open}{}{close}", p.verdict.label(lang), tolerance(p, lang))
                    }
                    Verdict::Differs => {
                        let why = p.why.as_deref().unwrap_or_default();
                        let (colon, link) = match (zh, p.cause_unknown) {
                            (true, false) => ("：", "原因"),
                            (true, true) => ("，原因未明：", "讨论"),
                            (false, false) => (": ", "why"),
                            (false, true) => (", cause unknown: ", "discussion"),
                        };
                        format!("{}{colon}[{link}]({why})", p.verdict.label(lang))
                    }
                    Verdict::Timing => {
                        let instead = p.instead.as_ref().map_or("", |t| t.get(lang));
                        let lead = if zh { "：本书改测" } else { ": the book measures " };
                        format!("{}{lead}{instead}", p.verdict.label(lang))
                    }
                    Verdict::Exact => p.verdict.label(lang).to_string(),
                };
                out.push_str(&format!(
                    "| {} | {} | {} | {} | {} |\n",
                    cell(&p.source),
                    cell(p.what.get(lang)),
                    cell(&p.lecture),
                    cell(&book),
                    cell(&verdict)
                ));
            }
        }
        if !ch.missing.is_empty() {
            out.push_str(if zh {
                "\n| 出处 | 讲义报告的 | 讲义 | 为什么没有复现 |\n| --- | --- | --- | --- |\n"
            } else {
                "\n| source | what the lecture reports | lecture | why the book does not reproduce it |\n| --- | --- | --- | --- |\n"
            });
            for m in &ch.missing {
                out.push_str(&format!(
                    "| {} | {} | {} | {} |\n",
                    cell(&m.source),
                    cell(m.what.get(lang)),
                    cell(&m.lecture),
                    cell(m.why.get(lang))
                ));
            }
        }
    }
    out
}

/// The count columns: exact, agrees, differs with its cause-unknown part in
/// brackets, timing, not reproduced.
fn columns(c: &[usize; 6]) -> String {
    format!("{} | {} | {} ({}) | {} | {}", c[0], c[1], c[2], c[5], c[3], c[4])
}

fn lang_prefix(lang: Lang) -> &'static str {
    if lang == Lang::Zh { "zh-report" } else { "report" }
}

/// `{{reproduction zh}}` / `{{reproduction en}}`: the report, or every
/// problem of every chapter's pairs (the build then fails).
pub fn directive(
    lang: &str,
    snapshots: &crate::Snapshots,
    book_dir: &Path,
) -> Result<String, Vec<String>> {
    let lang = match lang {
        "zh" => Lang::Zh,
        "en" => Lang::En,
        other => {
            return Err(vec![format!("`{{{{reproduction {other}}}}}`: the language is zh or en")]);
        }
    };
    let chapters = load_all(snapshots.chapters_dir()).map_err(|e| vec![e])?;
    let problems = check_all(&chapters, snapshots, book_dir);
    if !problems.is_empty() {
        return Err(problems);
    }
    let summary = std::fs::read_to_string(book_dir.join("SUMMARY.md")).unwrap_or_default();
    let values = |key: &str| snapshots.values(key).unwrap_or_default();
    Ok(render(&chapters, &values, &summary, lang))
}

/// Every problem of every chapter's pairs, checked against the pinned
/// values and the pages in `book_dir`.
pub fn check_all(
    chapters: &[Chapter],
    snapshots: &crate::Snapshots,
    book_dir: &Path,
) -> Vec<String> {
    let ids =
        |page: &str| std::fs::read_to_string(book_dir.join(page)).ok().map(|t| heading_ids(&t));
    let mut problems = Vec::new();
    for ch in chapters {
        match snapshots.values(&ch.key) {
            Ok(values) => {
                for p in &ch.pairs {
                    problems.extend(check_pair(&ch.key, p, &values, &ids));
                }
            }
            Err(e) => problems.push(e),
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs.iter().map(|(n, v)| (n.to_string(), v.to_string())).collect()
    }

    fn pair(toml_text: &str) -> Pair {
        let (mut pairs, _) = parse(&format!(
            "[[pair]]\nsource = \"L17 §9\"\nwhat = {{ zh = \"甲\", en = \"a\" }}\n{toml_text}"
        ))
        .unwrap();
        pairs.remove(0)
    }

    fn pages(page: &str) -> Option<Vec<String>> {
        (page == "09_reversal.md").then(|| vec!["results".to_string()])
    }

    #[test]
    fn precision_is_the_lectures() {
        assert_eq!(at_precision(0.99612, "0.996"), "0.996");
        assert_eq!(at_precision(124_439_808.0, "124,439,808"), "124439808");
        assert_eq!(at_precision(3.61e-15, "3.6e-15"), "3.6e-15");
        assert_eq!(number("37.5%"), Some(37.5));
        assert_eq!(number("−0.25"), Some(-0.25));
    }

    #[test]
    fn an_exact_pair_fails_on_a_changed_value() {
        let p = pair("lecture = \"0.614\"\nbook = [\"w\"]\nverdict = \"exact\"");
        assert!(check_pair("ch02", &p, &values(&[("w", "0.6141")]), &pages).is_empty());
        let wrong = check_pair("ch02", &p, &values(&[("w", "0.6151")]), &pages);
        assert!(wrong[0].contains("not equal at the lecture's precision"), "{wrong:?}");
    }

    #[test]
    fn an_agrees_pair_fails_outside_its_tolerance() {
        let p = pair("lecture = \"0.996\"\nbook = [\"s\"]\nverdict = \"agrees\"\nwithin = 0.01");
        assert!(check_pair("ch09", &p, &values(&[("s", "1.000")]), &pages).is_empty());
        let wrong = check_pair("ch09", &p, &values(&[("s", "0.980")]), &pages);
        assert!(wrong[0].contains("not within 0.01"), "{wrong:?}");
        let no_tol = pair("lecture = \"0.996\"\nbook = [\"s\"]\nverdict = \"agrees\"");
        assert!(!check_pair("ch09", &no_tol, &values(&[("s", "1.000")]), &pages).is_empty());
    }

    #[test]
    fn a_differs_pair_needs_a_link_that_resolves_and_a_real_difference() {
        let p = |why: &str| {
            pair(&format!(
                "lecture = \"0.88–0.53\"\nbook = [\"a\", \"b\"]\nverdict = \"differs\"\nwhy = \"{why}\""
            ))
        };
        let v = values(&[("a", "0.95"), ("b", "0.72")]);
        assert!(check_pair("ch09", &p("09_reversal.md#results"), &v, &pages).is_empty());
        let gone = check_pair("ch09", &p("09_reversal.md#gone"), &v, &pages);
        assert!(gone[0].contains("not a heading"), "{gone:?}");
        let page = check_pair("ch09", &p("10_x.md#results"), &v, &pages);
        assert!(page[0].contains("not a page"), "{page:?}");
        let same = values(&[("a", "0.88"), ("b", "0.53")]);
        let equal = check_pair("ch09", &p("09_reversal.md#results"), &same, &pages);
        assert!(equal[0].contains("the verdict is `exact`"), "{equal:?}");
    }

    #[test]
    fn tuples_compare_element_by_element_and_fractions_at_the_books_precision() {
        let p = pair("lecture = \"(0, 4, 0, 0)\"\nbook = [\"q\"]\nverdict = \"exact\"");
        assert!(
            check_pair("ch02", &p, &values(&[("q", "(0.00, 4.00, 0.00, 0.00)")]), &pages)
                .is_empty()
        );
        let wrong = check_pair("ch02", &p, &values(&[("q", "(0.00, 4.00, 0.60, 0.00)")]), &pages);
        assert!(wrong[0].contains("not equal"), "{wrong:?}");
        let short = check_pair("ch02", &p, &values(&[("q", "(0.00, 4.00, 0.00)")]), &pages);
        assert!(short[0].contains("4 lecture figure(s) against 3"), "{short:?}");
        let third = pair("lecture = \"(1/3, 1/3, 1/3)\"\nbook = [\"w\"]\nverdict = \"exact\"");
        let v = values(&[("w", "(0.3333, 0.3333, 0.3333)")]);
        assert!(check_pair("ch02", &third, &v, &pages).is_empty());
        let off = values(&[("w", "(0.3333, 0.3334, 0.3333)")]);
        assert!(!check_pair("ch02", &third, &off, &pages).is_empty());
        let root = pair("lecture = \"√2\"\nbook = [\"r\"]\nverdict = \"exact\"");
        assert!(check_pair("ch10", &root, &values(&[("r", "1.4142")]), &pages).is_empty());
        assert!(!check_pair("ch10", &root, &values(&[("r", "1.4152")]), &pages).is_empty());
        let every = pair("lecture = \"1.000\"\nbook = [\"w\"]\nverdict = \"exact\"");
        assert!(check_pair("ch05", &every, &values(&[("w", "(1.000, 1.000)")]), &pages).is_empty());
        assert!(
            !check_pair("ch05", &every, &values(&[("w", "(1.000, 0.990)")]), &pages).is_empty()
        );
    }

    #[test]
    fn a_factor_and_a_rounding_tolerance_fail_outside_them() {
        let p = pair("lecture = \"5.3e−07\"\nbook = [\"s\"]\nverdict = \"agrees\"\nfactor = 10");
        assert!(check_pair("ch01", &p, &values(&[("s", "1.6e-06")]), &pages).is_empty());
        let wrong = check_pair("ch01", &p, &values(&[("s", "2.0e-11")]), &pages);
        assert!(wrong[0].contains("not within a factor 10"), "{wrong:?}");
        let r = pair("lecture = \"4.4e−16\"\nbook = [\"d\"]\nverdict = \"agrees\"\neps = 16");
        assert!(check_pair("ch03", &r, &values(&[("d", "2.2e-16")]), &pages).is_empty());
        let wrong = check_pair("ch03", &r, &values(&[("d", "4.4e-15")]), &pages);
        assert!(wrong[0].contains("not both within 16ε"), "{wrong:?}");
        let two =
            pair("lecture = \"1\"\nbook = [\"d\"]\nverdict = \"agrees\"\nwithin = 1.0\neps = 4");
        assert!(
            check_pair("ch03", &two, &values(&[("d", "1")]), &pages)[0].contains("one tolerance")
        );
        let exact = pair("lecture = \"1\"\nbook = [\"d\"]\nverdict = \"exact\"\neps = 4");
        assert!(
            check_pair("ch03", &exact, &values(&[("d", "1")]), &pages)[0]
                .contains("only an `agrees`")
        );
        let unknown =
            pair("lecture = \"1\"\nbook = [\"d\"]\nverdict = \"exact\"\ncause_unknown = true");
        assert!(
            check_pair("ch03", &unknown, &values(&[("d", "1")]), &pages)[0]
                .contains("only a `differs`")
        );
    }

    #[test]
    fn an_orphaned_pair_is_refused() {
        let p = pair("lecture = \"0.5\"\nbook = [\"renamed\"]\nverdict = \"exact\"");
        let wrong = check_pair("ch03", &p, &values(&[("kept", "0.5")]), &pages);
        assert!(wrong[0].contains("`renamed` is not a value ch03 records"), "{wrong:?}");
    }

    #[test]
    fn unknown_fields_and_verdicts_are_refused() {
        let bad = "[[pair]]\nsource = \"x\"\nwhat = { zh = \"a\", en = \"a\" }\nlecture = \"1\"\nverdict = \"close\"";
        assert!(parse(bad).is_err());
        let typo = "[[pair]]\nsource = \"x\"\nwhat = { zh = \"a\", en = \"a\" }\nlecture = \"1\"\nverdict = \"exact\"\nwithn = 1.0";
        assert!(parse(typo).is_err());
    }

    #[test]
    fn headings_give_their_ids() {
        let page = "# T\n## <span>结果</span> <span>Results</span> {#results}\ntext {#not}\n";
        assert_eq!(heading_ids(page), vec!["results".to_string()]);
    }
}
