//! Lecture 6 §9.3 — a synthetic set of one-line reviews, made so that three
//! kinds of sentence ask three different things of a model:
//!
//! ```text
//! plain      the food was good                        → positive
//! negation   the food was not good                    → negative
//! contrast   the food was good but the service was bad → negative (the clause after "but")
//! ```
//! A contrast sentence and the one with its clauses swapped hold the same
//! words, as often each, and carry opposite labels: only order tells them
//! apart.
//!
//! Held out: a quarter of the (subject, adjective) pairs. Training sentences
//! use only the other pairs; every test sentence is made of held-out pairs
//! alone, so no test sentence — and no clause of one — was seen in training.

use rand::RngExt;

/// The padding id.
pub const PAD: usize = 0;
const FIXED: [&str; 5] = ["<pad>", "the", "was", "not", "but"];
pub const SUBJECTS: [&str; 8] =
    ["food", "service", "staff", "room", "music", "coffee", "view", "bed"];
pub const POSITIVE: [&str; 8] =
    ["good", "great", "lovely", "excellent", "friendly", "tasty", "clean", "superb"];
pub const NEGATIVE: [&str; 8] =
    ["bad", "awful", "terrible", "rude", "bland", "dirty", "poor", "dull"];
const THE: usize = 1;
const WAS: usize = 2;
const NOT: usize = 3;
const BUT: usize = 4;
/// The longest sentence of the set: a contrast, 9 tokens.
pub const MAX_LEN: usize = 9;
/// Rows of the classifier's learned position table: more than [`MAX_LEN`],
/// so that longer sentences can be put to a trained model (rows 9.. are
/// never trained: no training sentence reaches them).
pub const POSITIONS: usize = 16;

/// Every word, by id: `<pad>`, the four function words, the subjects, the
/// positive adjectives, the negative ones.
pub fn vocabulary() -> Vec<&'static str> {
    FIXED.iter().chain(&SUBJECTS).chain(&POSITIVE).chain(&NEGATIVE).copied().collect()
}

/// A subject, by index into [`SUBJECTS`].
fn subject_id(s: usize) -> usize {
    FIXED.len() + s
}

/// An adjective, by index 0..16: 0..8 positive, 8..16 negative.
fn adjective_id(a: usize) -> usize {
    FIXED.len() + SUBJECTS.len() + a
}

/// Whether adjective `a` is positive.
pub fn positive(a: usize) -> bool {
    a < POSITIVE.len()
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Plain,
    Negation,
    Contrast,
}

impl Kind {
    pub const ALL: [Kind; 3] = [Kind::Plain, Kind::Negation, Kind::Contrast];

    pub fn name(self) -> &'static str {
        match self {
            Kind::Plain => "plain",
            Kind::Negation => "negation",
            Kind::Contrast => "contrast",
        }
    }
}

/// One review: its token ids and its label (1 = positive, 0 = negative).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Review {
    pub kind: Kind,
    pub ids: Vec<usize>,
    pub label: usize,
}

// ANCHOR: grammar
/// A (subject, adjective) pair, by index: adjectives 0..8 are positive,
/// 8..16 negative.
pub type Pair = (usize, usize);

/// `the <subject> was [not] <adjective>`.
fn clause(s: usize, a: usize, negated: bool) -> Vec<usize> {
    let mut ids = vec![THE, subject_id(s), WAS];
    if negated {
        ids.push(NOT);
    }
    ids.push(adjective_id(a));
    ids
}

pub fn plain(s: usize, a: usize) -> Review {
    Review { kind: Kind::Plain, ids: clause(s, a, false), label: positive(a) as usize }
}

pub fn negation(s: usize, a: usize) -> Review {
    Review { kind: Kind::Negation, ids: clause(s, a, true), label: !positive(a) as usize }
}

/// `<first clause> but <second clause>`: the label is the second's.
pub fn contrast(first: Pair, second: Pair) -> Review {
    let mut ids = clause(first.0, first.1, false);
    ids.push(BUT);
    ids.extend(clause(second.0, second.1, false));
    Review { kind: Kind::Contrast, ids, label: positive(second.1) as usize }
}

/// The same words with the clauses in the other order.
pub fn swapped(r: &Review) -> Review {
    assert_eq!(r.kind, Kind::Contrast, "swapped: only a contrast has two clauses");
    let but = r.ids.iter().position(|&t| t == BUT).expect("a contrast has a but");
    let mut ids = r.ids[but + 1..].to_vec();
    ids.push(BUT);
    ids.extend(&r.ids[..but]);
    Review { kind: Kind::Contrast, ids, label: 1 - r.label }
}

/// Whether the (subject, adjective) pair is held out for testing: a quarter
/// of them, each subject with two positive and two negative adjectives.
pub fn held_out(s: usize, a: usize) -> bool {
    (s + a).is_multiple_of(4)
}
// ANCHOR_END: grammar

/// A contrast whose first clause is negated: `the S₁ was not A₁ but the S₂
/// was A₂`, the label still the second clause's.
pub fn negated_first(first: Pair, second: Pair) -> Review {
    let mut ids = clause(first.0, first.1, true);
    ids.push(BUT);
    ids.extend(clause(second.0, second.1, false));
    Review { kind: Kind::Contrast, ids, label: positive(second.1) as usize }
}

/// The pairs on one side of the split: the positive ones, the negative ones.
fn pairs(test: bool) -> (Vec<Pair>, Vec<Pair>) {
    let side = |range: std::ops::Range<usize>| -> Vec<Pair> {
        (0..SUBJECTS.len())
            .flat_map(|s| range.clone().map(move |a| (s, a)))
            .filter(|&(s, a)| held_out(s, a) == test)
            .collect()
    };
    (side(0..8), side(8..16))
}

/// Every contrast sentence of one side: a positive and a negative clause on
/// different subjects, in both orders.
fn contrasts(test: bool) -> Vec<Review> {
    let (pos, neg) = pairs(test);
    let mut out = Vec::new();
    for &p in &pos {
        for &n in neg.iter().filter(|n| n.0 != p.0) {
            out.push(contrast(p, n));
            out.push(contrast(n, p));
        }
    }
    out
}

/// Every sentence of one side, by kind.
pub fn all(test: bool, kind: Kind) -> Vec<Review> {
    let (pos, neg) = pairs(test);
    let both = pos.iter().chain(&neg);
    match kind {
        Kind::Plain => both.map(|&(s, a)| plain(s, a)).collect(),
        Kind::Negation => both.map(|&(s, a)| negation(s, a)).collect(),
        Kind::Contrast => contrasts(test),
    }
}

/// The training sentences, and how often each kind is drawn.
pub struct Training {
    pub by_kind: [Vec<Review>; 3],
    /// Shares of plain, negation and contrast sentences in a batch, as
    /// weights: most reviews are plain.
    pub mix: [u32; 3],
}

impl Training {
    pub fn new() -> Self {
        Training { by_kind: Kind::ALL.map(|k| all(false, k)), mix: [2, 1, 1] }
    }

    /// A batch of `size` reviews drawn with replacement: a kind by the mix,
    /// then a sentence of that kind.
    pub fn batch(&self, size: usize, rng: &mut impl rand::Rng) -> Vec<Review> {
        let total: u32 = self.mix.iter().sum();
        (0..size)
            .map(|_| {
                let mut pick = rng.random_range(0..total);
                let mut k = 0;
                while pick >= self.mix[k] {
                    pick -= self.mix[k];
                    k += 1;
                }
                let pool = &self.by_kind[k];
                pool[rng.random_range(0..pool.len())].clone()
            })
            .collect()
    }
}

impl Default for Training {
    fn default() -> Self {
        Self::new()
    }
}

/// A batch as one row of ids per review, padded to the longest: the ids one
/// after another (B·S), the length S, the labels.
pub fn padded(batch: &[Review]) -> (Vec<usize>, usize, Vec<usize>) {
    let len = batch.iter().map(|r| r.ids.len()).max().unwrap_or(0);
    let ids = batch
        .iter()
        .flat_map(|r| r.ids.iter().copied().chain(std::iter::repeat_n(PAD, len - r.ids.len())))
        .collect();
    (ids, len, batch.iter().map(|r| r.label).collect())
}

/// A review as words.
pub fn text(ids: &[usize]) -> String {
    let words = vocabulary();
    ids.iter().filter(|&&t| t != PAD).map(|&t| words[t]).collect::<Vec<_>>().join(" ")
}

/// The ids of a sentence written with the vocabulary's words.
pub fn parse(sentence: &str) -> Option<Vec<usize>> {
    let words = vocabulary();
    sentence.split_whitespace().map(|w| words.iter().position(|&v| v == w)).collect()
}
