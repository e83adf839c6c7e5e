//! The tables and the figure of the lookup sweep (Lecture 17 demo 02.3).

use record::svg::CountGrid;
use record::{Notebook, say, show};

use crate::lookup::{ADAM_LRS, Method};

/// The tables: first step to 90% per cell (each also a value, e.g.
/// `dk16_raw_sgd_0_03`), then per row the fastest and how many learning
/// rates got there; and the grid as a figure. `tag` starts every name.
pub fn report(
    dks: &[usize],
    optimizers: &[Method],
    firsts: &[Option<u32>],
    steps: u32,
    tag: &str,
    nb: &mut Notebook,
) {
    let cell = |f: Option<u32>| f.map_or("—".to_string(), |s| s.to_string());
    let lr_label = |o: &Method| match o {
        Method::Adam(lr) | Method::Sgd(lr) => show::short(*lr),
    };
    let (adam, sgd) = optimizers.split_at(ADAM_LRS.len());
    say!(nb, "");
    say!(nb, "first step with ≥ 90% held-out accuracy (— : not within {steps} steps)");
    let header_adam: Vec<String> = adam.iter().map(|o| format!("{:>6}", lr_label(o))).collect();
    let header_sgd: Vec<String> = sgd.iter().map(|o| format!("{:>5}", lr_label(o))).collect();
    say!(nb, "{:>15} │ Adam lr {} │ SGD lr {}", "", header_adam.join(""), header_sgd.join(""));
    let mut rows = Vec::new();
    let mut grid = Vec::new();
    let mut row_names = Vec::new();
    for (r, chunk) in firsts.chunks(optimizers.len()).enumerate() {
        let (d, scaled) = (dks[r / 2], r % 2 == 0);
        let name = format!("d_k {d:>4} {:<6}", if scaled { "scaled" } else { "raw" });
        let kind = if scaled { "scaled" } else { "raw" };
        for (o, &f) in optimizers.iter().zip(chunk) {
            let (opt, lr) = match o {
                Method::Adam(lr) => ("adam", lr),
                Method::Sgd(lr) => ("sgd", lr),
            };
            let lr = show::short(*lr).replace('.', "_");
            nb.value(&format!("{tag}dk{d}_{kind}_{opt}_{lr}"), cell(f));
        }
        let (a, s) = chunk.split_at(adam.len());
        let a_cells: Vec<String> = a.iter().map(|&f| format!("{:>6}", cell(f))).collect();
        let s_cells: Vec<String> = s.iter().map(|&f| format!("{:>5}", cell(f))).collect();
        say!(nb, "{name} │ {:>7} {} │ {:>6} {}", "", a_cells.join(""), "", s_cells.join(""));
        rows.push((d, scaled, a.to_vec(), s.to_vec()));
        grid.push(chunk.iter().map(|f| f.map(u64::from)).collect::<Vec<_>>());
        row_names.push(format!("d_k {d}, {}", if scaled { "÷√d_k" } else { "no scale" }));
    }

    say!(nb, "");
    say!(nb, "per row: the fastest learning rate's step, and how many rates reach 90%");
    say!(
        nb,
        "{:>15} │ {:>13} {:>8} │ {:>12} {:>8}",
        "",
        "Adam fastest",
        "reached",
        "SGD fastest",
        "reached"
    );
    for (d, scaled, a, s) in &rows {
        let row = format!("{tag}dk{d}_{}", if *scaled { "scaled" } else { "raw" });
        let best = |v: &[Option<u32>]| v.iter().flatten().min().copied();
        let count = |v: &[Option<u32>]| v.iter().flatten().count();
        let a_best = nb.value(&format!("{row}_adam_best"), cell(best(a)));
        let a_count = nb.value(&format!("{row}_adam_reached"), format!("{}/{}", count(a), a.len()));
        let s_best = nb.value(&format!("{row}_sgd_best"), cell(best(s)));
        let s_count = nb.value(&format!("{row}_sgd_reached"), format!("{}/{}", count(s), s.len()));
        let name = format!("d_k {d:>4} {:<6}", if *scaled { "scaled" } else { "raw" });
        say!(nb, "{name} │ {a_best:>13} {a_count:>8} │ {s_best:>12} {s_count:>8}");
    }

    let col_names: Vec<String> = optimizers
        .iter()
        .map(|o| match o {
            Method::Adam(lr) => format!("A {}", show::short(*lr)),
            Method::Sgd(lr) => format!("S {}", show::short(*lr)),
        })
        .collect();
    let cols: Vec<&str> = col_names.iter().map(String::as_str).collect();
    let rows: Vec<&str> = row_names.iter().map(String::as_str).collect();
    let figure = CountGrid {
        row_labels: &rows,
        col_labels: &cols,
        counts: &grid,
        row_axis: "d_k, scale",
        col_axis: "optimizer (A = Adam, S = SGD) and learning rate →",
        max: u64::from(steps),
        legend: "first step at 90%",
        missing: "not reached",
    };
    nb.figure(&format!("{tag}steps_to_90"), figure.to_svg());
}
