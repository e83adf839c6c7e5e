//! The figures that follow from the maths alone must equal the lecture's,
//! digit for digit; the exercises' claims are checked with the options a
//! reader would pass.

use ch02_self_attention::{Options, run};
use clap::Parser;
use record::Notebook;

fn values(args: &[&str]) -> Vec<(String, String)> {
    let opts = Options::parse_from(std::iter::once("ch02").chain(args.iter().copied()));
    let mut nb = Notebook::quiet();
    run(&opts, &mut nb);
    nb.values().to_vec()
}

fn value(values: &[(String, String)], name: &str) -> String {
    values.iter().find(|(k, _)| k == name).unwrap_or_else(|| panic!("no value {name}")).1.clone()
}

#[test]
fn the_jane_example_reproduces_the_lecture() {
    let v = values(&[]);
    assert_eq!(value(&v, "afrique_to_visite"), "0.614");
    assert_eq!(value(&v, "afrique_output"), "(0.117, 0.648, 0.117, 0.117)");
    assert_eq!(value(&v, "visite_to_jane"), "0.379");
    assert_eq!(value(&v, "visite_to_afrique"), "0.379");
}

#[test]
fn the_soft_lookup_reproduces_the_lecture() {
    let v = values(&[]);
    assert_eq!(value(&v, "lookup_x1"), "23.795");
    assert_eq!(value(&v, "lookup_x64"), "20.000");
}

#[test]
fn exercise_1_reproduces_the_lecture_solution() {
    let v = values(&[]);
    assert_eq!(value(&v, "ex1_weights_1"), "(0.4223, 0.4223, 0.1554)");
    assert_eq!(value(&v, "ex1_weights_2"), "(0.2119, 0.5761, 0.2119)");
    assert_eq!(value(&v, "ex1_output_1"), "(0.5777, 0.5777)");
    assert_eq!(value(&v, "ex1_output_2"), "(0.4239, 0.7881)");
    assert_eq!(value(&v, "ex1_output_3"), "(0.6667, 0.6667)");
}

#[test]
fn exercise_2_strength_zero_gives_uniform_weights_and_the_mean() {
    // The exercise's demo and the Jane demo run at --strength 0 must agree.
    let v = values(&[]);
    assert_eq!(value(&v, "ex2_s0_min_weight"), "0.200");
    assert_eq!(value(&v, "ex2_s0_max_weight"), "0.200");
    assert_eq!(value(&v, "ex2_s0_afrique_output"), "(0.250, 0.250, 0.250, 0.250)");
    let zero = values(&["--strength", "0"]);
    assert_eq!(value(&zero, "afrique_to_visite"), value(&v, "ex2_s0_afrique_to_visite"));
    assert_eq!(value(&zero, "afrique_output"), value(&v, "ex2_s0_afrique_output"));
}

#[test]
fn exercise_2_strength_twelve_sharpens() {
    let v = values(&[]);
    let sharp: f64 = value(&v, "ex2_s12_afrique_to_visite").parse().unwrap();
    let default: f64 = value(&v, "afrique_to_visite").parse().unwrap();
    assert!(sharp > default && sharp > 0.9, "{sharp} vs {default}");
    let twelve = values(&["--strength", "12"]);
    assert_eq!(value(&twelve, "afrique_to_visite"), value(&v, "ex2_s12_afrique_to_visite"));
    assert_eq!(value(&v, "ex2_s12_visite_to_jane"), value(&v, "ex2_s12_visite_to_afrique"));
}

fn jane_text(args: &[&str]) -> String {
    let opts = Options::parse_from(std::iter::once("ch02").chain(args.iter().copied()));
    let mut nb = Notebook::quiet();
    run(&opts, &mut nb);
    nb.demos().iter().find(|d| d.anchor == "jane").unwrap().text.clone()
}

#[test]
fn the_jane_notes_follow_the_numbers_at_every_strength() {
    let line = |text: &str, start: &str| -> String {
        text.lines().find(|l| l.trim_start().starts_with(start)).unwrap().to_string()
    };
    let default = jane_text(&[]);
    assert!(line(&default, "A<3>").ends_with("(largest: \"action\")"));
    assert!(line(&default, "LayerNorm").ends_with("(largest: \"place\")"));
    let zero = jane_text(&["--strength", "0"]);
    assert!(line(&zero, "A<3>").ends_with("(all four equal)"), "{zero}");
    // At 40, action and place print alike after the LayerNorm: a tie.
    let forty = jane_text(&["--strength", "40"]);
    assert!(line(&forty, "LayerNorm").ends_with("(a tie for largest: \"action\", \"place\")"));
    let smallest = line(&forty, "the smallest weight");
    assert!(smallest.contains("e-") && !smallest.contains(" 0.000"), "{smallest}");
}

fn tuple(shown: &str) -> Vec<f64> {
    shown.trim_matches(['(', ')']).split(", ").map(|x| x.parse().unwrap()).collect()
}

#[test]
fn after_post_ln_the_place_is_still_l_afriques_largest_component() {
    let v = values(&[]);
    let after = tuple(&value(&v, "afrique_after_norm"));
    let place = after[2];
    assert!(after.iter().enumerate().all(|(j, &a)| j == 2 || a < place), "{after:?}");
}

#[test]
fn with_one_vector_visite_singles_out_neither_jane_nor_l_afrique() {
    let v = values(&[]);
    let jane = value(&v, "visite_to_jane_one_vector");
    assert_eq!(jane, value(&v, "visite_to_septembre_one_vector"));
    let own: f64 = value(&v, "visite_self_weight_one_vector").parse().unwrap();
    assert!(own > jane.parse().unwrap());
}

#[test]
fn exercise_1d_random_attention_is_near_uniform_only_at_the_smaller_init() {
    let v = values(&[]);
    let percent = |name: &str| -> f64 { value(&v, name).trim_end_matches('%').parse().unwrap() };
    assert!(percent("random_torch_entropy") > 95.0);
    assert!(percent("random_unit_entropy") < percent("random_torch_entropy"));
    let even: f64 = value(&v, "random_uniform_weight").parse().unwrap();
    let top: f64 = value(&v, "random_torch_max_weight").parse().unwrap();
    assert!(top > even && top < 4.0 * even, "{top} vs {even}");
}
