//! The lectures' worked example, shared by the chapters that return to it:
//! "Jane visite l'Afrique en septembre" as hand-made meaning vectors.

use faer::Mat;

use crate::mat;

/// The sentence, one word per row of [`sentence`].
pub const WORDS: [&str; 5] = ["Jane", "visite", "l'Afrique", "en", "septembre"];
/// The four meaning dimensions, one per column.
pub const MEANINGS: [&str; 4] = ["person", "action", "place", "time"];

/// The words as meaning vectors, `(5, 4)`. Each content word is pure in its
/// meaning. Lecture 17 does not list "en"; a quarter of every meaning is the
/// vector that reproduces all of its figures.
pub fn sentence() -> Mat<f64> {
    mat(&[
        [1.0, 0.0, 0.0, 0.0],     // Jane: a person
        [0.0, 1.0, 0.0, 0.0],     // visite: an action
        [0.0, 0.0, 1.0, 0.0],     // l'Afrique: a place
        [0.25, 0.25, 0.25, 0.25], // en: a little of everything
        [0.0, 0.0, 0.0, 1.0],     // septembre: a time
    ])
}
