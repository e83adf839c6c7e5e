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

use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;

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

/// Control characters dropped, white space made a plain space, every CJK
/// character set apart by spaces, lower case, accents stripped.
fn normalise(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if c == '\0' || c == '\u{fffd}' || (c.is_control() && !c.is_whitespace()) {
            continue;
        }
        if c.is_whitespace() {
            out.push(' ');
        } else if is_cjk(c) {
            out.push(' ');
            out.push(c);
            out.push(' ');
        } else {
            for l in c.to_lowercase() {
                out.push(l);
            }
        }
    }
    strip_accents(&out)
}

/// Accents stripped: decompose (NFD) and drop the combining marks.
fn strip_accents(text: &str) -> String {
    text.nfd().filter(|&c| !is_combining_mark(c)).collect()
}

/// The CJK Unified Ideographs and their extensions, as BERT counts them.
fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x4E00..=0x9FFF | 0x3400..=0x4DBF | 0x20000..=0x2A6DF | 0x2A700..=0x2B73F
        | 0x2B740..=0x2B81F | 0x2B820..=0x2CEAF | 0xF900..=0xFAFF | 0x2F800..=0x2FA1F)
}

/// BERT's punctuation: the ASCII symbols, and every character of Unicode's
/// punctuation categories (P*).
fn is_punctuation(c: char) -> bool {
    static PUNCTUATION: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    c.is_ascii_punctuation()
        || PUNCTUATION
            .get_or_init(|| regex::Regex::new(r"^\p{P}$").expect("a valid class"))
            .is_match(c.encode_utf8(&mut [0; 4]))
}

/// Split at white space, then every punctuation character a word of its own.
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
