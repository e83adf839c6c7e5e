//! Numbers as the book prints them.
//!
//! One place decides how a number looks, so a value quoted in the prose,
//! the printed table and a figure label always agree. A result that rounds
//! to zero prints as `0.000`, never `-0.000`.

use faer::MatRef;

/// `x` with `decimals` digits after the point.
pub fn num(x: f64, decimals: usize) -> String {
    let s = format!("{x:.decimals$}");
    match s.strip_prefix('-') {
        Some(rest) if rest.bytes().all(|b| b == b'0' || b == b'.') => rest.to_string(),
        _ => s,
    }
}

/// A vector as `(a, b, c)`.
pub fn tuple(xs: impl IntoIterator<Item = f64>, decimals: usize) -> String {
    let parts: Vec<String> = xs.into_iter().map(|x| num(x, decimals)).collect();
    format!("({})", parts.join(", "))
}

/// Row `i` of a matrix as `(a, b, c)`.
pub fn row(m: MatRef<'_, f64>, i: usize, decimals: usize) -> String {
    tuple((0..m.ncols()).map(|j| m[(i, j)]), decimals)
}

/// Row `i` of a matrix as an iterator.
pub fn row_values(m: MatRef<'_, f64>, i: usize) -> impl Iterator<Item = f64> + '_ {
    (0..m.ncols()).map(move |j| m[(i, j)])
}

/// A matrix as aligned lines, one per row, each starting with its label and
/// with a header of column labels. Every cell is `width` wide.
pub fn table(
    m: MatRef<'_, f64>,
    row_labels: &[&str],
    col_labels: &[&str],
    decimals: usize,
) -> Vec<String> {
    let label_w = row_labels.iter().map(|l| l.chars().count()).max().unwrap_or(0);
    let cell_w = col_labels
        .iter()
        .map(|l| l.chars().count())
        .chain(std::iter::once(decimals + 3))
        .max()
        .unwrap_or(0);
    let mut lines = Vec::with_capacity(m.nrows() + 1);
    let mut header = " ".repeat(label_w);
    for c in col_labels {
        header.push_str(&format!("  {c:>cell_w$}"));
    }
    lines.push(header.trim_end().to_string());
    for (i, label) in row_labels.iter().enumerate() {
        let mut line = format!("{label:<label_w$}");
        for j in 0..m.ncols() {
            line.push_str(&format!("  {:>cell_w$}", num(m[(i, j)], decimals)));
        }
        lines.push(line);
    }
    lines
}

/// `x` in scientific notation with `decimals` digits after the point and a
/// signed two-digit exponent: `5.3e-07`, `2.3e+00`.
pub fn sci(x: f64, decimals: usize) -> String {
    if x == 0.0 {
        return format!("{:.decimals$}e+00", 0.0);
    }
    let s = format!("{x:.decimals$e}");
    let (mantissa, exp) = s.split_once('e').unwrap();
    let e: i32 = exp.parse().unwrap();
    format!("{mantissa}e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs())
}

/// `x` in its shortest form up to 6 decimals: 16 → `16`, 2.5 → `2.5`.
pub fn short(x: f64) -> String {
    let s = num(x, 6);
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// A whole number with thousands separated by commas: 1050624 → `1,050,624`.
pub fn grouped(n: usize) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negative_zero_is_not_printed() {
        assert_eq!(num(-0.0, 3), "0.000");
        assert_eq!(num(-1e-17, 3), "0.000");
        assert_eq!(num(-0.0004, 3), "0.000");
        assert_eq!(num(-0.0005001, 3), "-0.001");
        assert_eq!(tuple([0.25, 1.0], 2), "(0.25, 1.00)");
        assert_eq!(
            (sci(5.3e-7, 1), sci(2.3, 1), sci(0.0, 1)),
            ("5.3e-07".into(), "2.3e+00".into(), "0.0e+00".into())
        );
        assert_eq!(
            (short(16.0), short(2.5), short(0.125)),
            ("16".into(), "2.5".into(), "0.125".into())
        );
    }
}
