//! The glossary: `book/glossary.json` is the one list of the book's terms,
//! and `{{glossary glossary.json}}` renders it as a Chinese block and an
//! English block.
//!
//! Each language is sorted the way its reader looks a word up: the English
//! block alphabetically, the Chinese block by pinyin (a term that starts with
//! Latin letters, like “softmax”, sorts under its own spelling). Entries
//! carry their own anchors, `#mask` in English and `#zh-mask` in Chinese:
//! the language switch hides one block, and a link must land on the block
//! that is showing, so the two cannot share an id. After the headword an
//! entry shows the other names a page may use for it (查询 for query), since
//! a reader looks up the word met on the page, not the headword.

use std::path::Path;

use serde_json::Value;

/// One term in both languages.
#[derive(Debug, Clone)]
pub struct Term {
    /// The anchor, lowercase ASCII: `glossary.md#mask`.
    pub id: String,
    /// The Chinese headword first, then the forms also accepted as it.
    pub zh: Vec<String>,
    /// The English headword first, then its accepted variants.
    pub en: Vec<String>,
    /// Forms the page shows after the Chinese headword (查询 for query), so
    /// a reader who meets one on a page finds the entry; each is in `zh`.
    pub zh_also: Vec<String>,
    /// The same for the English block (“recurrent network” for RNN).
    pub en_also: Vec<String>,
    /// Toneless pinyin of a headword that begins with a Han character.
    pub pinyin: Option<String>,
    pub zh_def: String,
    pub en_def: String,
    /// The page (and anchor) that introduces the term: `08_decoder_masks.md#look-ahead-mask`.
    pub page: String,
    /// A form of it is also an everyday word in one language (English
    /// “value”, “head”; Chinese 序列 for any list), so a paragraph can say it
    /// without meaning the term: it is checked per page, not per paragraph.
    pub everyday: bool,
    /// `Some("zh")`: only a Chinese mention is checked (it needs an English
    /// one), because the English form also means other things (“values” of
    /// a table) or the Chinese often says the term with a plain word (词 for
    /// a token); `Some("en")` the other way round.
    pub one_way: Option<String>,
}

impl Term {
    /// The key the Chinese block sorts by.
    pub fn zh_key(&self) -> String {
        self.pinyin.clone().unwrap_or_else(|| self.zh[0].clone()).to_lowercase()
    }
}

/// Read the glossary data; every problem is named by entry.
pub fn load(path: &Path) -> Result<Vec<Term>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    parse(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// Parse the glossary's JSON text.
pub fn parse(text: &str) -> Result<Vec<Term>, String> {
    let data: Value = serde_json::from_str(text).map_err(|e| format!("not valid JSON: {e}"))?;
    let entries = data["terms"].as_array().ok_or("no `terms` list")?;
    entries.iter().enumerate().map(|(i, e)| term(e).map_err(|m| format!("term {i}: {m}"))).collect()
}

fn term(e: &Value) -> Result<Term, String> {
    let text = |field: &str| -> Result<String, String> {
        match e[field].as_str() {
            Some(s) if !s.trim().is_empty() => Ok(s.to_string()),
            _ => Err(format!("`{field}` must be a non-empty string")),
        }
    };
    let forms = |field: &str| -> Result<Vec<String>, String> {
        let list = e[field].as_array().ok_or(format!("`{field}` must be a list"))?;
        let forms: Vec<String> = list.iter().filter_map(Value::as_str).map(String::from).collect();
        if forms.is_empty() || forms.len() != list.len() || forms.iter().any(|f| f.is_empty()) {
            return Err(format!("`{field}` must be a non-empty list of non-empty strings"));
        }
        Ok(forms)
    };
    // Optional: no field is no names to show, but a field must be a list of forms.
    let shown = |field: &str, forms: &[String]| -> Result<Vec<String>, String> {
        if e[field].is_null() {
            return Ok(Vec::new());
        }
        let list = e[field].as_array().ok_or(format!("`{field}` must be a list"))?;
        let names: Vec<String> = list.iter().filter_map(Value::as_str).map(String::from).collect();
        if names.len() != list.len() {
            return Err(format!("`{field}` must be a list of strings"));
        }
        // A shown name the check does not know would be a name the pages cannot use.
        match names.iter().find(|n| !forms[1..].contains(n)) {
            Some(n) => Err(format!("`{field}` shows “{n}”, which is not one of its other forms")),
            None => Ok(names),
        }
    };
    let id = text("id")?;
    if !id.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-') {
        return Err(format!("id `{id}` must be lowercase ASCII, digits and -"));
    }
    let zh = forms("zh").map_err(|m| format!("`{id}`: {m}"))?;
    let en = forms("en").map_err(|m| format!("`{id}`: {m}"))?;
    let t = Term {
        zh_also: shown("zh_also", &zh).map_err(|m| format!("`{id}`: {m}"))?,
        en_also: shown("en_also", &en).map_err(|m| format!("`{id}`: {m}"))?,
        zh,
        en,
        pinyin: e["pinyin"].as_str().map(String::from),
        zh_def: text("zh_def").map_err(|m| format!("`{id}`: {m}"))?,
        en_def: text("en_def").map_err(|m| format!("`{id}`: {m}"))?,
        page: text("page").map_err(|m| format!("`{id}`: {m}"))?,
        everyday: match &e["everyday"] {
            Value::Null => false,
            Value::Bool(b) => *b,
            _ => return Err(format!("`{id}`: `everyday` must be true or false")),
        },
        one_way: match e["one_way"].as_str() {
            None if e["one_way"].is_null() => None,
            Some(l @ ("zh" | "en")) => Some(l.to_string()),
            _ => return Err(format!("`{id}`: `one_way` must be \"zh\" or \"en\"")),
        },
        id,
    };
    if t.one_way.is_some() && !t.everyday {
        return Err(format!("`{}`: a one-way term is an everyday one", t.id));
    }
    let han_first = t.zh[0].chars().next().is_some_and(|c| !c.is_ascii());
    if han_first != t.pinyin.is_some() {
        return Err(format!(
            "`{}`: give pinyin exactly when the Chinese headword starts with Chinese",
            t.id
        ));
    }
    Ok(t)
}

/// The two blocks of the glossary page.
pub fn render(terms: &[Term]) -> String {
    let mut zh: Vec<&Term> = terms.iter().collect();
    zh.sort_by_key(|t| t.zh_key());
    let mut en: Vec<&Term> = terms.iter().collect();
    en.sort_by_key(|t| t.en[0].to_lowercase());
    let mut out = String::from("<div lang=\"zh\">\n\n");
    for t in zh {
        // “Adam”, “dropout”: a headword both languages spell alike is shown once.
        let en = if t.zh[0].eq_ignore_ascii_case(&t.en[0]) {
            String::new()
        } else {
            format!(" · {}", t.en[0])
        };
        let link = page_link(&t.page, true);
        let names = also(&t.zh_also, "（又作 ", "、", "）");
        out += &format!(
            "- <a id=\"zh-{}\"></a>**{}**{names}{en}：{}（见{link}）\n",
            t.id, t.zh[0], t.zh_def
        );
    }
    out += "\n</div>\n<div lang=\"en\">\n\n";
    for t in en {
        out += &format!(
            "- <a id=\"{}\"></a>**{}**{}: {} ({})\n",
            t.id,
            t.en[0],
            also(&t.en_also, " (also ", ", ", ")"),
            t.en_def,
            page_link(&t.page, false)
        );
    }
    out + "\n</div>\n"
}

/// The other names after a headword: “（又作 查询）”, “ (also recurrent network)”.
fn also(names: &[String], open: &str, sep: &str, close: &str) -> String {
    if names.is_empty() { String::new() } else { format!("{open}{}{close}", names.join(sep)) }
}

/// `[第 8 章](08_decoder_masks.md#…)` or `[chapter 8](…)`; the afterword by name.
fn page_link(page: &str, zh: bool) -> String {
    let file = page.split('#').next().unwrap_or(page);
    let number = file.split('_').next().and_then(|n| n.parse::<u32>().ok());
    let label = match (number, zh) {
        (Some(n), true) => format!("第 {n} 章"),
        (Some(n), false) => format!("chapter {n}"),
        (None, _) => match (file, zh) {
            ("afterword.md", true) => "后记".to_string(),
            ("afterword.md", false) => "the afterword".to_string(),
            ("preface.md", true) => "前言".to_string(),
            ("preface.md", false) => "the preface".to_string(),
            _ => file.trim_end_matches(".md").to_string(),
        },
    };
    format!("[{label}]({page})")
}
