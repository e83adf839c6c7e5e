//! How far apart are two models, and how far apart are one model's seeds?
//! The numbers every verdict of Lecture 17 §9 rests on.

// ANCHOR: stats
/// Mean, sample standard deviation (n − 1), min and max of one model's
/// seeds.
#[derive(Clone, Copy, Debug)]
pub struct Summary {
    pub n: usize,
    pub mean: f64,
    pub sd: f64,
    pub min: f64,
    pub max: f64,
}

pub fn summary(xs: &[f64]) -> Summary {
    let n = xs.len();
    let mean = xs.iter().sum::<f64>() / n as f64;
    let ss = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>();
    let sd = if n > 1 { (ss / (n - 1) as f64).sqrt() } else { 0.0 };
    let min = xs.iter().copied().fold(f64::INFINITY, f64::min);
    let max = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    Summary { n, mean, sd, min, max }
}

/// The sampling error of an accuracy `p` measured on `n` independent
/// draws: what a different test set of the same size would change.
pub fn binomial_se(p: f64, n: usize) -> f64 {
    (p * (1.0 - p) / n as f64).sqrt()
}

/// The difference of two models' means, `b − a`, and its standard error
/// from the spread of the seeds (each seed also has its own test set, so
/// the test's sampling error is inside that spread).
pub fn gap(b: &Summary, a: &Summary) -> (f64, f64) {
    let se = (b.sd * b.sd / b.n as f64 + a.sd * a.sd / a.n as f64).sqrt();
    (b.mean - a.mean, se)
}
// ANCHOR_END: stats

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hand_worked_summary_and_gap() {
        let s = summary(&[1.0, 2.0, 3.0, 6.0]);
        assert_eq!((s.n, s.mean, s.min, s.max), (4, 3.0, 1.0, 6.0));
        // squares 4 + 1 + 0 + 9 = 14 over n − 1 = 3
        assert!((s.sd - (14.0f64 / 3.0).sqrt()).abs() < 1e-15);
        let flat = summary(&[2.0; 4]);
        let (g, se) = gap(&s, &flat);
        assert_eq!(g, 1.0);
        assert!((se - s.sd / 2.0).abs() < 1e-15);
        assert_eq!(binomial_se(0.5, 100), 0.05);
        assert_eq!(summary(&[0.3]).sd, 0.0);
    }
}
