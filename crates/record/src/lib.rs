//! # record — one way for every chapter to print, pin and publish its numbers
//!
//! A chapter's demos write through a [`Notebook`]:
//!
//! * [`Notebook::demo`] opens a demo (named like its `ANCHOR` in the code),
//!   and [`say!`] prints a line of it;
//! * [`Notebook::value`] records a named number exactly as it is printed,
//!   for the prose to quote (`{{value ch02.afrique_to_visite}}`);
//! * [`Notebook::figure`] records an SVG figure made from the chapter's own
//!   numbers;
//! * [`Notebook::timing`] formats a duration; timings are the only output
//!   that may differ between runs, so they are masked in snapshots and in
//!   the determinism check.
//!
//! The chapter's snapshot test runs the demos with their default options and
//! calls [`pin!`], which pins every demo's output, the values and the figures
//! as insta snapshots. The book reads those snapshot files — never a fresh
//! run — so the page, the prose and the tests all show the same numbers.

use std::path::Path;
use std::time::Duration;

pub mod show;
pub mod svg;

#[doc(hidden)]
pub use insta;
#[doc(hidden)]
pub use pinned;

/// What a timing looks like where timings are hidden.
pub const HIDDEN_TIMING: &str = "[timing]";
/// Set this environment variable (to anything) to hide timings in printed
/// output, as snapshots do; the determinism check uses it.
pub const HIDE_TIMINGS_ENV: &str = "TXBOOK_HIDE_TIMINGS";

/// One demo's printed output.
#[derive(Clone, Debug)]
pub struct Demo {
    /// The demo's anchor name, also its snapshot's name.
    pub anchor: String,
    /// Everything the demo printed, one `\n` after each line.
    pub text: String,
}

/// Records what a chapter prints, the values its prose quotes, its figures.
#[derive(Debug)]
pub struct Notebook {
    echo: bool,
    hide_timings: bool,
    demos: Vec<Demo>,
    values: Vec<(String, String)>,
    figures: Vec<(String, String)>,
}

impl Notebook {
    /// A notebook that also prints every line to stdout, for `cargo run`.
    pub fn printing() -> Self {
        Self::new(true, std::env::var_os(HIDE_TIMINGS_ENV).is_some())
    }

    /// A notebook that only records, with timings hidden: for snapshot tests.
    pub fn quiet() -> Self {
        Self::new(false, true)
    }

    fn new(echo: bool, hide_timings: bool) -> Self {
        Notebook { echo, hide_timings, demos: Vec::new(), values: Vec::new(), figures: Vec::new() }
    }

    /// Start a demo: `anchor` is the name of its `ANCHOR` in the source and
    /// of its snapshot; `title` is printed as its heading.
    #[track_caller]
    pub fn demo(&mut self, anchor: &str, title: &str) {
        assert!(is_name(anchor), "demo anchor {anchor:?}: use a-z, 0-9 and _");
        assert!(self.demos.iter().all(|d| d.anchor != anchor), "demo anchor {anchor:?} used twice");
        if !self.demos.is_empty() && self.echo {
            println!();
        }
        self.demos.push(Demo { anchor: anchor.to_string(), text: String::new() });
        self.line(format!("== {title} =="));
    }

    /// Print one line of the current demo.
    #[track_caller]
    pub fn line(&mut self, text: impl AsRef<str>) {
        let demo = self.demos.last_mut().expect("Notebook::line before any Notebook::demo");
        let text = text.as_ref();
        if self.echo {
            println!("{text}");
        }
        demo.text.push_str(text);
        demo.text.push('\n');
    }

    /// Record `shown` — a number formatted exactly as the demo prints it —
    /// under `name`, and hand it back for printing.
    #[track_caller]
    pub fn value(&mut self, name: &str, shown: impl Into<String>) -> String {
        let shown = shown.into();
        assert!(is_name(name), "value name {name:?}: use a-z, 0-9 and _");
        assert!(!shown.contains('\n'), "value {name} spans several lines");
        assert!(self.values.iter().all(|(n, _)| n != name), "value {name:?} recorded twice");
        self.values.push((name.to_string(), shown.clone()));
        shown
    }

    /// Record an SVG figure under `name`.
    #[track_caller]
    pub fn figure(&mut self, name: &str, svg: String) {
        assert!(is_name(name), "figure name {name:?}: use a-z, 0-9 and _");
        assert!(self.figures.iter().all(|(n, _)| n != name), "figure {name:?} recorded twice");
        self.figures.push((name.to_string(), svg));
    }

    /// A duration as printed: `12.30 ms`, or [`HIDDEN_TIMING`] in snapshots.
    pub fn timing(&self, elapsed: Duration) -> String {
        if self.hide_timings {
            return HIDDEN_TIMING.to_string();
        }
        let s = elapsed.as_secs_f64();
        match s {
            s if s < 1e-3 => format!("{:.1} µs", s * 1e6),
            s if s < 1.0 => format!("{:.2} ms", s * 1e3),
            s => format!("{s:.2} s"),
        }
    }

    /// Anything derived from a timing (a speed-up, a GFLOP/s figure), as
    /// printed: `text`, or [`HIDDEN_TIMING`] in snapshots.
    pub fn measured(&self, text: impl Into<String>) -> String {
        if self.hide_timings { HIDDEN_TIMING.to_string() } else { text.into() }
    }

    /// Whether lines also go to stdout (a reader's `cargo run`), so that a
    /// long demo may show its progress on stderr.
    pub fn is_printing(&self) -> bool {
        self.echo
    }

    /// Whether timings are hidden (snapshots, the determinism check). A demo
    /// may then skip work whose only product is a timing: nothing it prints
    /// depends on it.
    pub fn hides_timings(&self) -> bool {
        self.hide_timings
    }

    /// The demos in the order they ran.
    pub fn demos(&self) -> &[Demo] {
        &self.demos
    }

    /// The named values, `(name, shown)`, in recorded order.
    pub fn values(&self) -> &[(String, String)] {
        &self.values
    }

    /// The value recorded under `name`, as shown. Panics with the name if
    /// there is none (for tests).
    #[track_caller]
    pub fn shown(&self, name: &str) -> &str {
        let found = self.values.iter().find(|(n, _)| n == name);
        &found.unwrap_or_else(|| panic!("no value named {name:?}")).1
    }

    /// The value recorded under `name` as a number (a trailing `%` is
    /// dropped; `,` thousands separators are removed). Panics if it is not one.
    #[track_caller]
    pub fn number(&self, name: &str) -> f64 {
        let shown = self.shown(name);
        let plain = shown.trim_end_matches('%').replace(',', "");
        plain.parse().unwrap_or_else(|_| panic!("value {name} = {shown:?} is not a number"))
    }

    /// The named values, one `name = shown` line each, in recorded order.
    pub fn values_text(&self) -> String {
        pinned::values_text(self.values.iter().map(|(n, s)| (n.as_str(), s.as_str())))
    }

    /// The figures, `(name, svg)`, in recorded order.
    pub fn figures(&self) -> &[(String, String)] {
        &self.figures
    }

    /// The names of every snapshot [`pin!`] writes for this notebook.
    pub fn snapshot_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self.demos.iter().map(|d| d.anchor.clone()).collect();
        names.push(pinned::VALUES.to_string());
        names.extend(self.figures.iter().map(|(n, _)| pinned::figure_snapshot(n)));
        names
    }

    /// Write every figure to `dir/<name>.svg`.
    pub fn write_figures(&self, dir: &Path) -> std::io::Result<()> {
        std::fs::create_dir_all(dir)?;
        for (name, svg) in &self.figures {
            std::fs::write(dir.join(format!("{name}.svg")), svg)?;
        }
        Ok(())
    }
}

/// Names of demos, values and figures: what the book's `{{…}}` can spell.
pub fn is_name(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
}

/// Print a formatted line of the current demo: `say!(nb, "x = {x:.3}")`.
#[macro_export]
macro_rules! say {
    ($nb:expr) => { $nb.line("") };
    ($nb:expr, $($arg:tt)*) => { $nb.line(format!($($arg)*)) };
}

/// Pin a notebook: each demo's output, the values and the figures become
/// insta snapshots in the chapter's `tests/snapshots/`, and any snapshot
/// file there that this run did not produce fails the test (a renamed demo
/// must not leave a stale page behind). Call it from the chapter's test.
#[macro_export]
macro_rules! pin {
    ($nb:expr) => {{
        let nb: &$crate::Notebook = &$nb;
        let dir =
            ::std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join($crate::pinned::SNAPSHOT_DIR);
        let mut settings = $crate::insta::Settings::clone_current();
        settings.set_snapshot_path(&dir);
        settings.set_prepend_module_to_snapshot(false);
        settings.set_omit_expression(true);
        settings.bind(|| {
            for demo in nb.demos() {
                $crate::insta::assert_snapshot!(demo.anchor.as_str(), demo.text.as_str());
            }
            $crate::insta::assert_snapshot!($crate::pinned::VALUES, nb.values_text());
            for (name, svg) in nb.figures() {
                $crate::insta::assert_snapshot!(
                    $crate::pinned::figure_snapshot(name),
                    svg.as_str()
                );
            }
        });
        $crate::check_no_stale_snapshots(&dir, &nb.snapshot_names());
    }};
}

/// For a chapter whose run is long (it trains models): defines, in the test
/// file, `book_run()` — the book's configuration run once, quietly, and shared
/// by every test of the file — and two readers of its recorded values,
/// `get(name)` (the value as the page shows it) and `num(name)` (as a number).
///
/// `record::book_run!(ch04_sqrt_dk::run, ch04_sqrt_dk::Options);` (or the
/// names as imported)
#[macro_export]
macro_rules! book_run {
    ($run:path, $options:ty) => {
        fn book_run() -> &'static $crate::Notebook {
            static RUN: ::std::sync::OnceLock<$crate::Notebook> = ::std::sync::OnceLock::new();
            RUN.get_or_init(|| {
                let mut nb = $crate::Notebook::quiet();
                $run(&<$options>::default(), &mut nb);
                nb
            })
        }

        #[allow(dead_code)]
        fn get(name: &str) -> &'static str {
            book_run().shown(name)
        }

        #[allow(dead_code)]
        fn num(name: &str) -> f64 {
            book_run().number(name)
        }
    };
}

#[doc(hidden)]
#[track_caller]
pub fn check_no_stale_snapshots(dir: &Path, names: &[String]) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let file = entry.file_name().to_string_lossy().into_owned();
        if let Some(stem) = file.strip_suffix(".snap") {
            assert!(
                names.iter().any(|n| n == stem),
                "{} is not produced by any demo any more: delete it",
                entry.path().display()
            );
        }
    }
}

/// The whole `main` of a chapter binary: parse the options (a bad one is a
/// clap error: a message and exit code 2), run every demo printing as it
/// goes, and write the figures if `--figures DIR` was given. A figures
/// directory that cannot be written is refused with a sentence naming it
/// and exit code 2 — before the demos run, so a long run is not wasted.
pub fn chapter_main<O: clap::Parser>(
    run: fn(&O, &mut Notebook),
    figures: fn(&O) -> Option<&Path>,
) -> std::process::ExitCode {
    let opts = O::parse();
    let refuse = |why: String| {
        eprintln!("error: {why}");
        std::process::ExitCode::from(2)
    };
    if let Some(dir) = figures(&opts)
        && let Err(why) = figures_dir_ready(dir)
    {
        return refuse(why);
    }
    let mut nb = Notebook::printing();
    run(&opts, &mut nb);
    if let Some(dir) = figures(&opts) {
        if let Err(e) = nb.write_figures(dir) {
            return refuse(format!("cannot write the figures to {}: {e}", dir.display()));
        }
        eprintln!("figures written to {}", dir.display());
    }
    std::process::ExitCode::SUCCESS
}

/// Make sure figures can be written into `dir`: create it if needed and
/// write (then remove) a probe file. The error is a sentence for the reader.
pub fn figures_dir_ready(dir: &Path) -> Result<(), String> {
    let cannot = |e: std::io::Error| format!("cannot write the figures to {}: {e}", dir.display());
    std::fs::create_dir_all(dir).map_err(cannot)?;
    let probe = dir.join(".txbook-probe");
    std::fs::write(&probe, b"").map_err(cannot)?;
    std::fs::remove_file(&probe).map_err(cannot)
}

/// Command-line value parsers shared by the chapters.
pub mod cli {
    /// The largest `--seed` a chapter accepts: 2³² − 1. Every chapter
    /// derives its random streams by adding small offsets to its seed
    /// (`seed + 1`, `seed + k` for k < 10⁴), so a 32-bit seed keeps every
    /// such sum far from the end of `u64` — no overflow panic in a debug
    /// build, no silent wrap in release.
    pub const MAX_SEED: u64 = u32::MAX as u64;

    /// The parser of every chapter's `--seed`: a whole number in
    /// `0..=MAX_SEED`, with a message that says so.
    pub fn seed(s: &str) -> Result<u64, String> {
        let bad = || format!("a seed is a whole number from 0 to {MAX_SEED}, not `{s}`");
        let seed: u64 = s.trim().parse().map_err(|_| bad())?;
        if seed <= MAX_SEED { Ok(seed) } else { Err(bad()) }
    }

    /// A parser for a finite number in `[lo, hi]`, with a message that says so.
    pub fn float_in(
        lo: f64,
        hi: f64,
    ) -> impl Fn(&str) -> Result<f64, String> + Clone + Send + Sync + 'static {
        move |s: &str| {
            let x: f64 = s.trim().parse().map_err(|_| format!("`{s}` is not a number"))?;
            if x.is_finite() && (lo..=hi).contains(&x) {
                Ok(x)
            } else {
                Err(format!("must be between {lo} and {hi}"))
            }
        }
    }
}

#[cfg(test)]
mod seed_tests {
    use super::cli::{MAX_SEED, seed};

    #[test]
    fn a_seed_is_32_bits_so_that_seed_plus_an_offset_cannot_overflow() {
        assert_eq!(seed("0"), Ok(0));
        assert_eq!(seed("4294967295"), Ok(MAX_SEED));
        for bad in ["4294967296", "18446744073709551615", "-1", "seven", "1.5", ""] {
            let why = seed(bad).unwrap_err();
            assert!(why.contains("from 0 to 4294967295"), "{bad}: {why}");
        }
        // the largest offset any chapter adds is far below the headroom
        assert!(MAX_SEED.checked_add(u64::from(u32::MAX)).is_some());
    }
}
