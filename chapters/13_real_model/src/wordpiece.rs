//! BERT's tokenizer, written out: the text is cleaned, lower-cased and
//! stripped of accents, split at white space and punctuation (every CJK
//! character a word of its own), and each word cut greedily into the
//! longest pieces the vocabulary holds, later pieces marked `##`. A word
//! that cannot be cut, or is longer than 100 characters, becomes `[UNK]`.
//! The ids are framed as `[CLS] … [SEP]`.
//!
//! This is what the model's `tokenizer.json` asks for (`BertNormalizer`
//! with lowercase and Chinese characters split, `BertPreTokenizer`,
//! `WordPiece` with prefix `##` and 100 characters at most); the chapter
//! checks it against the reference library's ids.

use std::collections::HashMap;

use std::sync::OnceLock;

use regex::Regex;
use unicode_normalization::UnicodeNormalization;

/// A WordPiece vocabulary: one token per line of `vocab.txt`, id = line.
pub struct WordPiece {
    ids: HashMap<String, usize>,
    tokens: Vec<String>,
    pub unk: usize,
    pub cls: usize,
    pub sep: usize,
    pub pad: usize,
}

impl WordPiece {
    /// From the text of `vocab.txt`; `None` if a special token is missing.
    pub fn from_vocab(text: &str) -> Option<Self> {
        let tokens: Vec<String> = text.lines().map(str::to_owned).collect();
        let ids: HashMap<String, usize> =
            tokens.iter().enumerate().map(|(i, t)| (t.clone(), i)).collect();
        let id = |t: &str| ids.get(t).copied();
        Some(WordPiece {
            unk: id("[UNK]")?,
            cls: id("[CLS]")?,
            sep: id("[SEP]")?,
            pad: id("[PAD]")?,
            ids,
            tokens,
        })
    }

    /// How many tokens the vocabulary holds.
    pub fn len(&self) -> usize {
        self.tokens.len()
    }

    pub fn is_empty(&self) -> bool {
        self.tokens.is_empty()
    }

    /// The token of an id.
    pub fn token(&self, id: usize) -> &str {
        &self.tokens[id]
    }

    // ANCHOR: encode
    /// `[CLS]`, the pieces of every word, `[SEP]`.
    pub fn encode(&self, text: &str) -> Vec<usize> {
        let mut ids = vec![self.cls];
        for word in words(&normalise(text)) {
            ids.extend(self.pieces(&word));
        }
        ids.push(self.sep);
        ids
    }

    /// Greedy longest-match-first: the longest prefix in the vocabulary,
    /// then the longest `##`-piece of the rest, and so on.
    fn pieces(&self, word: &str) -> Vec<usize> {
        let chars: Vec<char> = word.chars().collect();
        if chars.len() > 100 {
            return vec![self.unk];
        }
        let mut out = Vec::new();
        let mut start = 0;
        while start < chars.len() {
            let found = (start + 1..=chars.len()).rev().find_map(|end| {
                let piece: String = chars[start..end].iter().collect();
                let piece = if start > 0 { format!("##{piece}") } else { piece };
                self.ids.get(&piece).map(|&id| (id, end))
            });
            match found {
                Some((id, end)) => {
                    out.push(id);
                    start = end;
                }
                None => return vec![self.unk], // the whole word, not just the rest
            }
        }
        out
    }
    // ANCHOR_END: encode
}

// ANCHOR: normalise
/// The text as BERT's normaliser leaves it: control and format characters
/// dropped (Unicode's C* categories, but tab, newline and return, which are
/// white space), white space made a plain space, every CJK character set
/// apart by spaces, accents stripped (decompose, drop the non-spacing
/// marks), lower case.
fn normalise(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if c == '\0' || c == '\u{fffd}' || (is_other(c) && !matches!(c, '\t' | '\n' | '\r')) {
            continue;
        }
        if c.is_whitespace() {
            out.push(' ');
        } else if is_cjk(c) {
            out.push(' ');
            out.push(c);
            out.push(' ');
        } else {
            out.push(c);
        }
    }
    let stripped: String = out.nfd().filter(|&c| !is_nonspacing_mark(c)).collect();
    stripped.to_lowercase()
}

/// The CJK ideographs, as the reference tokenizer counts them.
fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x4E00..=0x9FFF | 0x3400..=0x4DBF | 0x20000..=0x2A6DF | 0x2A700..=0x2B73F
        | 0x2B740..=0x2B81F | 0x2B920..=0x2CEAF | 0xF900..=0xFAFF | 0x2F800..=0x2FA1F)
}

/// Split at white space, then every punctuation character (ASCII symbols,
/// and Unicode's P* categories) a word of its own.
fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for chunk in text.split_whitespace() {
        let mut word = String::new();
        for c in chunk.chars() {
            if is_punctuation(c) {
                if !word.is_empty() {
                    out.push(std::mem::take(&mut word));
                }
                out.push(c.to_string());
            } else {
                word.push(c);
            }
        }
        if !word.is_empty() {
            out.push(word);
        }
    }
    out
}
// ANCHOR_END: normalise

/// Whether `c` is in a Unicode class, by the `regex` crate's tables.
fn in_class(cell: &'static OnceLock<Regex>, pattern: &str, c: char) -> bool {
    let class = cell.get_or_init(|| Regex::new(pattern).expect("a valid class"));
    class.is_match(c.encode_utf8(&mut [0; 4]))
}

/// ASCII symbols and Unicode's punctuation (P*).
fn is_punctuation(c: char) -> bool {
    static P: OnceLock<Regex> = OnceLock::new();
    c.is_ascii_punctuation() || in_class(&P, r"^\p{P}$", c)
}

/// A non-spacing mark (Mn): what accent stripping drops after decomposing.
fn is_nonspacing_mark(c: char) -> bool {
    static MN: OnceLock<Regex> = OnceLock::new();
    in_class(&MN, r"^\p{Mn}$", c)
}

/// Control, format, unassigned and private-use characters (Cc, Cf, Cn, Co).
fn is_other(c: char) -> bool {
    static C: OnceLock<Regex> = OnceLock::new();
    in_class(&C, r"^[\p{Cc}\p{Cf}\p{Cn}\p{Co}]$", c)
}
