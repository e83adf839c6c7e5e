#!/usr/bin/env bash
# The numerics contract (see CONTRIBUTING.md): every chapter binary — and
# the autograd crate's training run — prints the same bytes
#   - in release with RAYON_NUM_THREADS=2 (the reference),
#   - in release with RAYON_NUM_THREADS=1,
#   - in debug (the book's crates at opt-level 0, debug assertions and
#     overflow checks on),
#   - under qemu-x86_64 -cpu Haswell-v4 (an AVX2+FMA CPU that is not this one).
# Timings are the only output allowed to differ; TXBOOK_HIDE_TIMINGS makes
# the binaries print them masked, exactly as the snapshots do.
#
# Every chapter keeps a `determinism.args` file (empty: the book's
# configuration): the release, thread and debug runs use those options —
# every demo and code path, on smaller sweeps for the chapters that train.
# The full configuration is pinned, natively, by the chapter's snapshot test.
# Emulation is far slower still (qemu 7.2 ran one f32 training step of the
# reversal Transformer in 8.5 s against 1.5 ms natively), so the Haswell run
# uses `determinism.haswell.args` and is compared with a release run given
# the same options. A chapter without that file (one that trains, whose
# smallest options still take many minutes emulated) runs its
# `determinism.args` under emulation for at most PREFIX_SECONDS, and every
# line it printed by then must equal the release run's line (the script says
# how many). The runs are independent: they go two at a time (this machine has
# two cores), the long ones first.
set -euo pipefail
cd "$(dirname "$0")/.."
export TXBOOK_HIDE_TIMINGS=1
PREFIX_SECONDS=60

command -v qemu-x86_64 >/dev/null || { echo "determinism: qemu-x86_64 is missing (apt-get install qemu-user)" >&2; exit 1; }

packages=()
declare -A extra=() haswell=()
for manifest in chapters/*/Cargo.toml; do
  p="$(sed -n 's/^name = "\(.*\)"/\1/p' "$manifest" | head -n 1)"
  packages+=("$p")
  dir="$(dirname "$manifest")"
  [[ -f "$dir/determinism.args" ]] || { echo "determinism: $dir/determinism.args is missing" >&2; exit 1; }
  extra[$p]="$(tr '\n' ' ' < "$dir/determinism.args")"
  if [[ -f "$dir/determinism.haswell.args" ]]; then haswell[$p]="$(tr '\n' ' ' < "$dir/determinism.haswell.args")"; fi
done
extra[autograd-training]=""
haswell[autograd-training]="--steps 3"
# The release binaries: the whole workspace's binaries and examples, the
# same feature resolution as `cargo test --release`, so this is the build the
# tests made. The debug binaries: the book's own crates at opt-level 0 with
# debug assertions and overflow checks (what `cargo build` gives them),
# built in the release profile so that the dependencies (faer above all) are
# the optimised ones already built instead of a second build of every one.
members=$(cargo metadata --no-deps --format-version 1 |
  python3 -c 'import json, sys; print(" ".join(p["name"] for p in json.load(sys.stdin)["packages"]))')
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
bins="$out/bins"
debug_config="$out/debug.toml"
for m in $members; do
  printf '[profile.release.package.%s]\nopt-level = 0\ndebug-assertions = true\noverflow-checks = true\n' "$m"
done > "$debug_config"
for variant in release debug; do
  config=()
  [[ $variant == debug ]] && config=(--config "$debug_config")
  cargo build --quiet --release "${config[@]}" --workspace --bins --examples
  mkdir -p "$bins/$variant"
  for p in "${packages[@]}"; do cp "target/release/$p" "$bins/$variant/"; done
  cp target/release/examples/determinism "$bins/$variant/autograd-training"
done
# Leave target/release as the tests and readers' `cargo run --release` find it.
cargo build --quiet --release --workspace --bins --examples

names=("${packages[@]}" autograd-training)
# One line per run: "name variant program options…", the long ones first.
jobs="$out/jobs"
: > "$jobs"
for name in "${names[@]}"; do
  if [[ -v "haswell[$name]" ]]; then
    echo "$name haswell qemu-x86_64 -cpu Haswell-v4 $bins/release/$name ${haswell[$name]}" >> "$jobs"
  else
    echo "$name haswell-prefix timeout $PREFIX_SECONDS qemu-x86_64 -cpu Haswell-v4 $bins/release/$name ${extra[$name]}" >> "$jobs"
  fi
done
for name in "${names[@]}"; do echo "$name debug $bins/debug/$name ${extra[$name]}" >> "$jobs"; done
for name in "${names[@]}"; do
  echo "$name ref $bins/release/$name ${extra[$name]}" >> "$jobs"
  echo "$name threads-1 $bins/release/$name ${extra[$name]}" >> "$jobs"
  if [[ -v "haswell[$name]" ]]; then echo "$name ref-haswell $bins/release/$name ${haswell[$name]}" >> "$jobs"; fi
done
run_one() {
  local dir=$1 line=$2 name variant threads=2
  read -r name variant cmd <<< "$line"
  [[ $variant == threads-1 ]] && threads=1
  local start=$SECONDS
  # shellcheck disable=SC2086
  local status=0
  RAYON_NUM_THREADS=$threads $cmd > "$dir/$name.$variant" 2> "$dir/$name.$variant.err" || status=$?
  # a prefix run that the time limit stopped (timeout's 124) has done its part
  if [[ $status == 0 || ($variant == haswell-prefix && $status == 124) ]]; then
    echo "$((SECONDS - start))" > "$dir/$name.$variant.secs"
  else
    echo "failed" > "$dir/$name.$variant.secs"
  fi
}
export -f run_one
# shellcheck disable=SC2016
xargs -P 2 -d '\n' -n 1 bash -c 'run_one "$0" "$1"' "$out" < "$jobs"

failed=0
compare() { # name variant reference
  local name=$1 variant=$2 ref=$3 secs
  secs="$(cat "$out/$name.$variant.secs")"
  if [[ "$secs" == failed ]]; then
    printf '%-24s %-10s FAILED to run:\n' "$name" "$variant"; cat "$out/$name.$variant.err"; failed=1; return
  fi
  if cmp -s "$out/$name.$ref" "$out/$name.$variant"; then
    printf '%-24s %-10s identical (%s lines, %s s; release %s s)\n' "$name" "$variant" \
      "$(wc -l < "$out/$name.$ref")" "$secs" "$(cat "$out/$name.$ref.secs")"
  else
    printf '%-24s %-10s DIFFERS from release:\n' "$name" "$variant"
    diff "$out/$name.$ref" "$out/$name.$variant" | head -n 20
    failed=1
  fi
}
for name in "${names[@]}"; do
  if [[ -n "${extra[$name]}" ]]; then printf '%-24s with: %s\n' "$name" "${extra[$name]}"; fi
  for ref in ref ref-haswell; do
    if [[ -f "$out/$name.$ref.secs" && "$(cat "$out/$name.$ref.secs")" == failed ]]; then
      printf '%-24s %-10s FAILED to run:\n' "$name" "$ref"; cat "$out/$name.$ref.err"; failed=1; continue 2
    fi
  done
  compare "$name" threads-1 ref
  compare "$name" debug ref
  if [[ -v "haswell[$name]" ]]; then
    printf '%-24s haswell with: %s\n' "$name" "${haswell[$name]}"
    compare "$name" haswell ref-haswell
  else
    # the lines printed in full before the time limit, against as many of
    # the release run's first lines
    f="$out/$name.haswell-prefix"
    if [[ -s "$f" && -n "$(tail -c 1 "$f")" ]]; then sed -i '$ d' "$f"; fi # a line cut short
    lines=$(wc -l < "$f")
    head -n "$lines" "$out/$name.ref" > "$out/$name.ref-prefix"
    cp "$out/$name.ref.secs" "$out/$name.ref-prefix.secs"
    printf '%-24s haswell for %s s: %s of %s lines\n' "$name" "$PREFIX_SECONDS" "$lines" "$(wc -l < "$out/$name.ref")"
    if ((lines == 0)) && [[ "$(cat "$f.secs")" != failed ]]; then
      printf '%-24s %-10s printed nothing in %s s\n' "$name" haswell "$PREFIX_SECONDS"; failed=1
    else
      compare "$name" haswell-prefix ref-prefix
    fi
  fi
done
exit "$failed"
