#!/usr/bin/env bash
# The numerics contract (see CONTRIBUTING.md): every chapter binary prints
# the same bytes
#   - in release (the reference) and in debug,
#   - with RAYON_NUM_THREADS=1 and =2,
#   - under qemu-x86_64 -cpu Haswell-v4 (an AVX2+FMA CPU that is not this one).
# Timings are the only output allowed to differ; TXBOOK_HIDE_TIMINGS makes
# the binaries print them masked, exactly as the snapshots do.
set -euo pipefail
cd "$(dirname "$0")/.."
export TXBOOK_HIDE_TIMINGS=1

command -v qemu-x86_64 >/dev/null || { echo "determinism: qemu-x86_64 is missing (apt-get install qemu-user)" >&2; exit 1; }

packages=()
for manifest in chapters/*/Cargo.toml; do
  packages+=("$(sed -n 's/^name = "\(.*\)"/\1/p' "$manifest" | head -n 1)")
done
flags=()
for p in "${packages[@]}"; do flags+=(-p "$p"); done
cargo build --quiet --release --bins "${flags[@]}"
cargo build --quiet --bins "${flags[@]}"

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
failed=0
for p in "${packages[@]}"; do
  release="target/release/$p"
  debug="target/debug/$p"
  "$release" > "$out/$p.ref"
  declare -A runs=(
    [debug]="$debug"
    [threads-1]="env RAYON_NUM_THREADS=1 $release"
    [threads-2]="env RAYON_NUM_THREADS=2 $release"
    [haswell]="qemu-x86_64 -cpu Haswell-v4 $release"
  )
  for name in debug threads-1 threads-2 haswell; do
    # shellcheck disable=SC2086
    ${runs[$name]} > "$out/$p.$name" 2> "$out/$p.$name.err" || {
      printf '%-24s %-10s FAILED to run:\n' "$p" "$name"; cat "$out/$p.$name.err"; failed=1; continue; }
    if cmp -s "$out/$p.ref" "$out/$p.$name"; then
      printf '%-24s %-10s identical (%s lines)\n' "$p" "$name" "$(wc -l < "$out/$p.ref")"
    else
      printf '%-24s %-10s DIFFERS from release:\n' "$p" "$name"
      diff "$out/$p.ref" "$out/$p.$name" | head -n 20
      failed=1
    fi
  done
  unset runs
done
exit "$failed"
