//! The city language: sentences about a traveller's round trip, drawn from a
//! small stochastic grammar whose next-token distribution is known exactly.
//!
//! ```text
//! BOS name from HOME travelled to LEG (, then LEG){0,2} and PRONOUN returned to HOME . EOS
//! LEG = CITY in COUNTRY(CITY) by TRANSPORT
//! ```
//!
//! A name is drawn uniformly from 16 (8 take "she", 8 "he"); HOME uniformly
//! from 40 cities; each destination uniformly from the cities not named yet;
//! its country follows from the city; the transport depends on whether the
//! trip leaves the country the traveller is in; after each leg the trip goes
//! on with probability ½ (at most three legs). Every other token is forced.
//!
//! The grammar is read left to right by one state machine, [`State`]: after
//! any prefix it knows exactly which tokens may follow and with what
//! probability. Sampling a sentence and scoring one are the same walk, so
//! the probabilities a model is measured against are the ones its data came
//! from.

use rand::{Rng, RngExt};

/// Padding, the start and the end of a sentence.
pub const PAD: usize = 0;
pub const BOS: usize = 1;
pub const EOS: usize = 2;

const WORDS: [&str; 12] =
    ["from", "travelled", "to", "in", "by", ",", "then", "and", "she", "he", "returned", "."];
const NAMES: [&str; 16] = [
    "Ana", "Mei", "Sara", "Lena", "Yuki", "Nora", "Ines", "Amira", // she
    "Omar", "Ivan", "Kenji", "Luca", "Tomas", "Ravi", "Hugo", "Pavel", // he
];
const COUNTRIES: [&str; 10] =
    ["France", "Italy", "Spain", "Germany", "Japan", "China", "Brazil", "Egypt", "Canada", "India"];
/// Four cities per country, in the order of [`COUNTRIES`].
const CITIES: [&str; 40] = [
    "Paris", "Lyon", "Nice", "Lille", "Rome", "Milan", "Naples", "Turin", "Madrid", "Seville",
    "Valencia", "Bilbao", "Berlin", "Munich", "Hamburg", "Cologne", "Tokyo", "Osaka", "Kyoto",
    "Sapporo", "Beijing", "Shanghai", "Chengdu", "Xian", "Rio", "Recife", "Salvador", "Curitiba",
    "Cairo", "Luxor", "Aswan", "Giza", "Toronto", "Montreal", "Quebec", "Calgary", "Delhi",
    "Mumbai", "Pune", "Kolkata",
];
const TRANSPORTS: [&str; 5] = ["plane", "train", "bus", "ship", "car"];

/// How many cities the grammar names from.
pub const CITY_COUNT: usize = CITIES.len();
/// At most this many legs, so at most this many tokens in a sentence.
pub const MAX_LEGS: usize = 3;
pub const MAX_LEN: usize = 11 + 7 * MAX_LEGS; // BOS … EOS with three legs: 32
/// The chance of another leg after each leg but the last allowed.
pub const GO_ON: f64 = 0.5;
/// Transport within one country, and across a border.
const DOMESTIC: [(usize, f64); 3] = [(1, 0.5), (2, 0.3), (4, 0.2)]; // train, bus, car
const ABROAD: [(usize, f64); 3] = [(0, 0.6), (1, 0.25), (3, 0.15)]; // plane, train, ship

const W0: usize = 3; // first word
const N0: usize = W0 + WORDS.len(); // first name
const K0: usize = N0 + NAMES.len(); // first country
const C0: usize = K0 + COUNTRIES.len(); // first city
const T0: usize = C0 + CITIES.len(); // first transport
/// Every token: 3 specials, 12 words, 16 names, 10 countries, 40 cities,
/// 5 transports.
pub const VOCAB: usize = T0 + TRANSPORTS.len();

fn word(w: &str) -> usize {
    W0 + WORDS.iter().position(|&x| x == w).expect("a word of the grammar")
}
fn country_of(city: usize) -> usize {
    city / 4
}

/// A token's text.
pub fn text(token: usize) -> &'static str {
    match token {
        PAD => "<pad>",
        BOS => "<s>",
        EOS => "</s>",
        t if t < N0 => WORDS[t - W0],
        t if t < K0 => NAMES[t - N0],
        t if t < C0 => COUNTRIES[t - K0],
        t if t < T0 => CITIES[t - C0],
        t => TRANSPORTS[t - T0],
    }
}

/// A sentence as text, without BOS and EOS.
pub fn sentence(tokens: &[usize]) -> String {
    let words: Vec<&str> =
        tokens.iter().filter(|&&t| t != BOS && t != EOS && t != PAD).map(|&t| text(t)).collect();
    words.join(" ").replace(" ,", ",").replace(" .", ".")
}

/// Where the reader of a sentence is: which slot comes next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Slot {
    Name,
    From,
    Home,
    Travelled,
    To,
    City,
    In,
    Country,
    By,
    Transport,
    After,
    Then,
    Pronoun,
    Returned,
    ToHome,
    HomeAgain,
    Period,
    End,
    Done,
}

// ANCHOR: state
/// The grammar's state after a prefix: enough to give the exact
/// distribution of the next token.
#[derive(Clone, Debug)]
pub struct State {
    slot: Slot,
    she: bool,
    home: usize,
    /// Cities named so far (home included), as a bit set over the 40.
    named: u64,
    /// The country the traveller is in, and the last city named.
    here: usize,
    city: usize,
    legs: usize,
}

impl Default for State {
    fn default() -> Self {
        Self::new()
    }
}

impl State {
    /// The state after BOS.
    pub fn new() -> Self {
        State { slot: Slot::Name, she: false, home: 0, named: 0, here: 0, city: 0, legs: 0 }
    }

    /// Every token that may come next, with its probability (they sum to 1).
    pub fn next(&self) -> Vec<(usize, f64)> {
        let one = |t: usize| vec![(t, 1.0)];
        match self.slot {
            Slot::Name => uniform((0..NAMES.len()).map(|i| N0 + i)),
            Slot::From => one(word("from")),
            Slot::Home => uniform((0..CITIES.len()).map(|i| C0 + i)),
            Slot::Travelled => one(word("travelled")),
            Slot::To | Slot::ToHome => one(word("to")),
            Slot::City => {
                uniform((0..CITIES.len()).filter(|&c| self.named >> c & 1 == 0).map(|c| C0 + c))
            }
            Slot::In => one(word("in")),
            Slot::Country => one(K0 + country_of(self.city)),
            Slot::By => one(word("by")),
            Slot::Transport => {
                let table = if country_of(self.city) == self.here { DOMESTIC } else { ABROAD };
                table.iter().map(|&(t, p)| (T0 + t, p)).collect()
            }
            Slot::After if self.legs < MAX_LEGS => {
                vec![(word(","), GO_ON), (word("and"), 1.0 - GO_ON)]
            }
            Slot::After => one(word("and")),
            Slot::Then => one(word("then")),
            Slot::Pronoun => one(word(if self.she { "she" } else { "he" })),
            Slot::Returned => one(word("returned")),
            Slot::HomeAgain => one(C0 + self.home),
            Slot::Period => one(word(".")),
            Slot::End => one(EOS),
            Slot::Done => vec![],
        }
    }

    /// Read one more token (one that [`State::next`] allows).
    pub fn push(&mut self, token: usize) {
        debug_assert!(self.next().iter().any(|&(t, _)| t == token), "{} here", text(token));
        self.slot = match self.slot {
            Slot::Name => {
                self.she = token - N0 < NAMES.len() / 2;
                Slot::From
            }
            Slot::From => Slot::Home,
            Slot::Home => {
                self.home = token - C0;
                self.named |= 1 << self.home;
                self.here = country_of(self.home);
                Slot::Travelled
            }
            Slot::Travelled => Slot::To,
            Slot::To => Slot::City,
            Slot::City => {
                self.city = token - C0;
                self.named |= 1 << self.city;
                self.legs += 1;
                Slot::In
            }
            Slot::In => Slot::Country,
            Slot::Country => Slot::By,
            Slot::By => Slot::Transport,
            Slot::Transport => {
                self.here = country_of(self.city);
                Slot::After
            }
            Slot::After if token == word(",") => Slot::Then,
            Slot::After => Slot::Pronoun,
            Slot::Then => Slot::City,
            Slot::Pronoun => Slot::Returned,
            Slot::Returned => Slot::ToHome,
            Slot::ToHome => Slot::HomeAgain,
            Slot::HomeAgain => Slot::Period,
            Slot::Period => Slot::End,
            Slot::End | Slot::Done => Slot::Done,
        };
    }

    /// The probability of `token` next.
    pub fn prob(&self, token: usize) -> f64 {
        self.next().iter().find(|&&(t, _)| t == token).map_or(0.0, |&(_, p)| p)
    }
}
// ANCHOR_END: state

fn uniform(tokens: impl Iterator<Item = usize>) -> Vec<(usize, f64)> {
    let tokens: Vec<usize> = tokens.collect();
    let p = 1.0 / tokens.len() as f64;
    tokens.into_iter().map(|t| (t, p)).collect()
}

// ANCHOR: sample
/// One sentence, BOS to EOS: walk the grammar, drawing each token from
/// [`State::next`].
pub fn sample(rng: &mut impl Rng) -> Vec<usize> {
    let (mut state, mut out) = (State::new(), vec![BOS]);
    while out.last() != Some(&EOS) {
        let choices = state.next();
        let mut u: f64 = rng.random_range(0.0..1.0);
        let mut pick = choices[choices.len() - 1].0;
        for &(t, p) in &choices {
            if u < p {
                pick = t;
                break;
            }
            u -= p;
        }
        state.push(pick);
        out.push(pick);
    }
    out
}

/// The exact p(x_t | x_<t) of every token after BOS, in order.
pub fn probabilities(sentence: &[usize]) -> Vec<f64> {
    let mut state = State::new();
    sentence[1..]
        .iter()
        .map(|&t| {
            let p = state.prob(t);
            state.push(t);
            p
        })
        .collect()
}
// ANCHOR_END: sample

/// The two tokens that only a look far back can predict: the home city
/// named again at the end (position 3 holds it), and the pronoun that
/// agrees with the name (position 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reach {
    HomeAgain,
    Pronoun,
    Other,
}

/// Which of [`Reach`] each token after BOS is.
pub fn reach(sentence: &[usize]) -> Vec<Reach> {
    let mut state = State::new();
    sentence[1..]
        .iter()
        .map(|&t| {
            let r = match state.slot {
                Slot::HomeAgain => Reach::HomeAgain,
                Slot::Pronoun => Reach::Pronoun,
                _ => Reach::Other,
            };
            state.push(t);
            r
        })
        .collect()
}

/// The most likely tokens at every position after BOS (several when the
/// grammar draws uniformly).
pub fn most_likely(sentence: &[usize]) -> Vec<Vec<usize>> {
    let mut state = State::new();
    sentence[1..]
        .iter()
        .map(|&t| {
            let next = state.next();
            let top = next.iter().map(|n| n.1).fold(0.0, f64::max);
            state.push(t);
            next.iter().filter(|n| n.1 == top).map(|n| n.0).collect()
        })
        .collect()
}

// ANCHOR: entropy
/// The exact entropy rate of the language: the expected sum over a
/// sentence of the entropy of each next token, and the expected number of
/// tokens after BOS. Their ratio is the floor no model can beat on average.
///
/// The walk branches over every destination and every "go on or stop", and
/// takes a single branch where the choice cannot change what follows: which
/// name (only she/he depends on it, and the pronoun is forced either way),
/// which transport, and which home (every country has four cities, so any
/// home is any other with the cities renamed).
pub fn entropy_rate() -> (f64, f64) {
    fn walk(state: &State) -> (f64, f64) {
        let choices = state.next();
        if choices.is_empty() {
            return (0.0, 0.0);
        }
        let here: f64 = choices.iter().map(|&(_, p)| -p * libm::log(p)).sum();
        let branches = match state.slot {
            Slot::Name | Slot::Home | Slot::Transport => &choices[..1],
            _ => &choices[..],
        };
        let (mut h, mut n) = (here, 1.0);
        let weight = |p: f64| if branches.len() == 1 { 1.0 } else { p };
        for &(t, p) in branches {
            let mut next = state.clone();
            next.push(t);
            let (h1, n1) = walk(&next);
            h += weight(p) * h1;
            n += weight(p) * n1;
        }
        (h, n)
    }
    walk(&State::new())
}
// ANCHOR_END: entropy
