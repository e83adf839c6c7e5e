//! The lecture's findings hold in substance (its digits came from other
//! random draws), and bad options are refused.

use ch01_path_length::{Options, run};
use clap::Parser;
use record::Notebook;

fn values(args: &[&str]) -> Vec<(String, f64)> {
    let opts = Options::parse_from(std::iter::once("ch01").chain(args.iter().copied()));
    let mut nb = Notebook::quiet();
    run(&opts, &mut nb);
    nb.values().iter().map(|(k, v)| (k.clone(), v.parse().unwrap())).collect()
}

fn get(v: &[(String, f64)], name: &str) -> f64 {
    v.iter().find(|(k, _)| k == name).unwrap().1
}

#[test]
fn the_rnn_forgets_exponentially_and_attention_does_not() {
    let v = values(&[]);
    // RNN: more than six orders of magnitude lost between distance 1 and 32
    assert!(get(&v, "rnn_d1") / get(&v, "rnn_dhalf") > 1e6);
    // attention: every distance within one order of magnitude of every other
    assert!(get(&v, "attn_max") / get(&v, "attn_min") < 10.0);
    // and far inputs matter as much as near ones
    let ratio = get(&v, "attn_avg_far") / get(&v, "attn_avg_near");
    assert!((0.5..2.0).contains(&ratio), "{ratio}");
}

#[test]
fn a_larger_recurrent_matrix_stops_forgetting() {
    let base = values(&[]);
    let big = values(&["--recurrent-scale", "3"]);
    assert!(get(&big, "rnn_dhalf") > 1e3 * get(&base, "rnn_dhalf"));
    // and it no longer decays at all: the far end is larger than the near one
    assert!(get(&big, "rnn_dlast") > get(&big, "rnn_d1"));
}

#[test]
fn bad_options_are_refused() {
    for args in [
        ["--len", "1"],
        ["--len", "999"],
        ["--seqs", "0"],
        ["--width", "0"],
        ["--recurrent-scale", "-1"],
        ["--recurrent-scale", "nan"],
    ] {
        let err =
            Options::try_parse_from(std::iter::once("ch01").chain(args)).expect_err("refused");
        assert_eq!(err.exit_code(), 2, "{args:?}");
    }
}
