#!/usr/bin/env bash
# The numerics contract (see CONTRIBUTING.md): every chapter binary — and
# the autograd crate's 50-step training run — prints the same bytes
#   - in release (the reference) and in debug,
#   - with RAYON_NUM_THREADS=1 and =2,
#   - under qemu-x86_64 -cpu Haswell-v4 (an AVX2+FMA CPU that is not this one).
# Timings are the only output allowed to differ; TXBOOK_HIDE_TIMINGS makes
# the binaries print them masked, exactly as the snapshots do.
# A chapter whose full run trains many models (minutes natively, hours under
# emulation) keeps a `determinism.args` file: every variant then runs with
# those smaller options — the same code paths on smaller sweeps. Its full
# configuration is still pinned, natively, by the chapter's snapshot test.
set -euo pipefail
cd "$(dirname "$0")/.."
export TXBOOK_HIDE_TIMINGS=1

command -v qemu-x86_64 >/dev/null || { echo "determinism: qemu-x86_64 is missing (apt-get install qemu-user)" >&2; exit 1; }

packages=()
declare -A extra=()
for manifest in chapters/*/Cargo.toml; do
  p="$(sed -n 's/^name = "\(.*\)"/\1/p' "$manifest" | head -n 1)"
  packages+=("$p")
  args_file="$(dirname "$manifest")/determinism.args"
  if [[ -f "$args_file" ]]; then extra[$p]="$(tr '\n' ' ' < "$args_file")"; fi
done
flags=()
for p in "${packages[@]}"; do flags+=(-p "$p"); done
for profile in --release ""; do
  # shellcheck disable=SC2086
  cargo build --quiet $profile --bins "${flags[@]}"
  # shellcheck disable=SC2086
  cargo build --quiet $profile -p autograd --example determinism
done

# name, release binary, debug binary
programs=()
for p in "${packages[@]}"; do programs+=("$p target/release/$p target/debug/$p ${extra[$p]:-}"); done
programs+=("autograd-training target/release/examples/determinism target/debug/examples/determinism")

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
failed=0
for entry in "${programs[@]}"; do
  read -r name release debug args <<< "$entry"
  if [[ -n "$args" ]]; then printf '%-24s with: %s\n' "$name" "$args"; fi
  # shellcheck disable=SC2086
  "$release" $args > "$out/$name.ref"
  declare -A runs=(
    [debug]="$debug $args"
    [threads-1]="env RAYON_NUM_THREADS=1 $release $args"
    [threads-2]="env RAYON_NUM_THREADS=2 $release $args"
    [haswell]="qemu-x86_64 -cpu Haswell-v4 $release $args"
  )
  for run in debug threads-1 threads-2 haswell; do
    # shellcheck disable=SC2086
    ${runs[$run]} > "$out/$name.$run" 2> "$out/$name.$run.err" || {
      printf '%-24s %-10s FAILED to run:\n' "$name" "$run"; cat "$out/$name.$run.err"; failed=1; continue; }
    if cmp -s "$out/$name.ref" "$out/$name.$run"; then
      printf '%-24s %-10s identical (%s lines)\n' "$name" "$run" "$(wc -l < "$out/$name.ref")"
    else
      printf '%-24s %-10s DIFFERS from release:\n' "$name" "$run"
      diff "$out/$name.ref" "$out/$name.$run" | head -n 20
      failed=1
    fi
  done
  unset runs
done
exit "$failed"
