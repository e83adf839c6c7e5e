//! Lecture 17 demos 03.2 and 03.3 with Lecture 6 02.2 — moving k positions is
//! one fixed rotation, and so the dot product of two encodings depends on
//! their distance only.

use blocks::{matmul, max_diff, worse};
use faer::Mat;
use record::svg::{LinePlot, Series};
use record::{Notebook, say, show};

use crate::sinusoids::{encoding, table};

/// M_k: (d, d), block-diagonal; block i rotates the pair (sin, cos) of
/// speed ω_i by the angle ω_i·k, so that PE(p)·M_k = PE(p + k) (rows).
pub fn shift(k: f64, d: usize) -> Mat<f64> {
    let mut m = Mat::zeros(d, d);
    for i in 0..d / 2 {
        let b = k / libm::pow(10_000.0, 2.0 * i as f64 / d as f64);
        let (s, c) = (libm::sin(b), libm::cos(b));
        // [sin a, cos a]·[[cos b, −sin b], [sin b, cos b]] = [sin(a+b), cos(a+b)]
        m[(2 * i, 2 * i)] = c;
        m[(2 * i, 2 * i + 1)] = -s;
        m[(2 * i + 1, 2 * i)] = s;
        m[(2 * i + 1, 2 * i + 1)] = c;
    }
    m
}

// ANCHOR: distance_only
/// PE(p)·PE(q), summed in order.
pub fn dot(p: f64, q: f64, d: usize) -> f64 {
    encoding(p, d).iter().zip(encoding(q, d)).map(|(a, b)| a * b).sum()
}

/// The standard deviation of PE(t)·PE(t + k) over the starts t = 0..299,
/// summed in order. The values are shifted by the first one before the
/// mean is taken: summing 300 dot products of size ~d/2 directly would put
/// a rounding error into the mean larger than the spread being measured.
fn std_over_start(k: f64, d: usize) -> f64 {
    let dots: Vec<f64> = (0..300).map(|t| dot(f64::from(t), f64::from(t) + k, d)).collect();
    let dev: Vec<f64> = dots.iter().map(|v| v - dots[0]).collect();
    let mean = dev.iter().sum::<f64>() / dev.len() as f64;
    (dev.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / dev.len() as f64).sqrt()
}

/// The formula: Σ_i cos(ω_i k), the same whatever p is.
pub fn sum_of_cosines(k: f64, d: usize) -> f64 {
    (0..d / 2).map(|i| libm::cos(k / libm::pow(10_000.0, 2.0 * i as f64 / d as f64))).sum()
}
// ANCHOR_END: distance_only

// ANCHOR: rotation
/// PE(p + k) = PE(p)·M_k for every p in 0..299, forwards and backwards;
/// M_k is orthogonal and M_3·M_7 = M_10.
pub fn rotation(d: usize, nb: &mut Notebook) {
    nb.demo("rotation", "L17 03.2 · L6 02.2 · Moving k positions is one rotation M_k");
    let positions: Vec<f64> = (0..300).map(f64::from).collect();
    let pe = table(positions.iter().copied(), d); // (300, d)
    say!(nb, "d_model = {d}, positions p = 0..299");
    say!(nb, "{:>5} {:>26} {:>22}", "k", "max |PE(p)·M_k − PE(p+k)|", "max |M_kᵀM_k − I|");
    for k in [1.0, 3.0, 10.0, 40.0, -5.0] {
        let m = shift(k, d);
        let moved = matmul(pe.as_ref(), m.as_ref()); // (300, d)
        let target = table(positions.iter().map(|p| p + k), d);
        let name = if k < 0.0 { format!("m{}", -k) } else { format!("{k}") };
        let err =
            nb.value(&format!("rotation_error_k{name}"), show::sci(max_diff(&moved, &target), 1));
        let gram = matmul(m.transpose(), m.as_ref()); // M_kᵀ·M_k
        let orth = nb.value(
            &format!("orthogonality_k{name}"),
            show::sci(max_diff(&gram, &Mat::identity(d, d)), 1),
        );
        say!(nb, "{k:>5} {err:>26} {orth:>22}");
    }
    // Lecture 6 works at d = 512: more pairs, slower hands, the same check
    let wide = 512;
    let pe = table(positions.iter().copied(), wide); // (300, 512)
    let err = [1.0, 3.0, 10.0, 40.0, -5.0]
        .into_iter()
        .map(|k| {
            let moved = matmul(pe.as_ref(), shift(k, wide).as_ref()); // (300, 512)
            max_diff(&moved, &table(positions.iter().map(|p| p + k), wide))
        })
        .fold(0.0, worse);
    let err = nb.value("rotation_error_d512", show::sci(err, 1));
    say!(nb, "d_model = {wide}, the same p and k: largest |PE(p)·M_k − PE(p+k)| = {err}");
    let composed = matmul(shift(3.0, d).as_ref(), shift(7.0, d).as_ref());
    let err = nb.value("compose_error", show::sci(max_diff(&composed, &shift(10.0, d)), 1));
    say!(
        nb,
        "max |M_3·M_7 − M_10| = {err}: rotations by 3 and then 7 positions are one rotation by 10"
    );
}
// ANCHOR_END: rotation

/// PE(p)·PE(p + k) from several starting positions p: the same row every
/// time, Σ_i cos(ω_i k); and the shape of that row as k grows.
pub fn distance_only(d: usize, nb: &mut Notebook) {
    nb.demo("distance_only", "L17 03.3 · L6 02.2 · PE(p)·PE(p+k) depends on k only");
    let ks = [0.0, 1.0, 2.0, 3.0, 5.0, 10.0, 20.0, 50.0, 100.0];
    let head: Vec<String> = ks.iter().map(|k| format!("{:>7}", format!("k={k}"))).collect();
    say!(nb, "{:>12} {}", "", head.join(""));
    let mut worst = 0.0f64;
    for p in [0.0, 37.0, 150.0, 280.0] {
        let row: Vec<f64> = ks.iter().map(|&k| dot(p, p + k, d)).collect();
        worst =
            ks.iter().zip(&row).map(|(&k, v)| (v - sum_of_cosines(k, d)).abs()).fold(worst, worse);
        let cells: Vec<String> = row.iter().map(|v| format!("{:>7}", show::num(*v, 2))).collect();
        say!(nb, "{:>12} {}", format!("p = {p}"), cells.join(""));
    }
    let cells: Vec<String> =
        ks.iter().map(|&k| format!("{:>7}", show::num(sum_of_cosines(k, d), 2))).collect();
    say!(nb, "{:>12} {}", "Σ cos(ω_i k)", cells.join(""));
    let worst = nb.value("distance_only_error", show::sci(worst, 1));
    say!(nb, "largest difference from Σ_i cos(ω_i k) over the four rows: {worst}");

    // Lecture 6's statistic: the standard deviation over t of PE(t)·PE(t+k)
    for (width, name) in [(d, "distance_std"), (512, "distance_std_d512")] {
        let std = ks.iter().map(|&k| std_over_start(k, width)).fold(0.0, worse);
        let std = nb.value(name, show::sci(std, 1));
        say!(nb, "d_model = {width}: std over t = 0..299 of PE(t)·PE(t+k), largest over k: {std}");
    }

    let curve: Vec<f64> = (0..=100).map(|k| dot(0.0, f64::from(k), d)).collect();
    let rebounds = (1..60).filter(|&k| curve[k] > curve[k - 1]).count();
    let rebounds = nb.value("rebounds", rebounds.to_string());
    say!(nb, "k = 0..59: the dot product goes back up {rebounds} times on the way down");
    let (at50, at100) = (
        nb.value("dot_k50", show::num(curve[50], 2)),
        nb.value("dot_k100", show::num(curve[100], 2)),
    );
    say!(nb, "k = 50: {at50}, k = 100: {at100}");

    let series = [Series {
        label: "PE(p)·PE(p+k)",
        colour: "#1f77b4",
        points: curve.iter().enumerate().map(|(k, &v)| (k as f64, v)).collect(),
    }];
    let plot = LinePlot { series: &series, x_label: "distance k", y_label: "dot product" };
    nb.figure("dot_vs_distance", plot.to_svg());
}
