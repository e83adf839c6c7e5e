"""make_fixtures.py -- PyTorch's own layers, written to JSON for the book's twin tests.

The book checks its two implementations (the forward-only `blocks` crate and
the `autograd` crate) against each other in f64. Two implementations by the
same hands can share a wrong convention: a biased or unbiased variance, where
epsilon sits, the order of a GRU's gates, which value of a mask means "hide".
So each layer is also built here, in PyTorch, in float64, with every parameter
drawn from a fixed generator; the script writes the parameters (under
PyTorch's names, in PyTorch's layouts), the inputs, the outputs and the
gradient of a fixed scalar loss with respect to every parameter and input.
The Rust crate `twin` loads each file into both implementations and compares.

PyTorch is never needed to build or test the book: the fixtures are
committed. Run this only to regenerate them (see README.md next to it):

    python3 -m venv target/torch && target/torch/bin/pip install torch==2.15.0
    target/torch/bin/python reference/pytorch/make_fixtures.py

Every tensor is written as {"shape": [...], "data": [...]} with the data
flattened in row-major order; Python writes each float64 with the shortest
decimal that reads back to the same bits. The scalar loss is the sum of
output * probe, with a fixed random probe of the output's shape, so that
every element of the output gets its own weight in the gradient.
"""
import json
import math
import os
import platform
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_default_dtype(torch.float64)
torch.set_num_threads(1)

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "fixtures")
COMMAND = "target/torch/bin/python reference/pytorch/make_fixtures.py"

# One small shape for every layer: big enough for two heads, a padded
# sequence and a cross-attention of unequal lengths, small enough that each
# file is a few kilobytes.
BATCH, S_TGT, S_SRC, D, HEADS, D_FF = 2, 5, 6, 8, 2, 16
GRU_IN, GRU_HIDDEN = 4, 6


def gen(seed):
    g = torch.Generator()
    g.manual_seed(seed)
    return g


def uniform(shape, g, lo=-1.0, hi=1.0):
    return torch.rand(shape, generator=g) * (hi - lo) + lo


def tensor(t):
    t = t.detach()
    return {"shape": list(t.shape), "data": [float(v) for v in t.reshape(-1).tolist()]}


def randomise(module, g, is_norm=lambda name: "norm" in name):
    """Every parameter from the generator: LayerNorm scales in [0.5, 1.5],
    everything else in [-0.5, 0.5], so that no default (zero bias, unit
    scale) can hide a parameter that was read into the wrong place."""
    with torch.no_grad():
        for name, p in module.named_parameters():
            if is_norm(name) and name.endswith("weight"):
                p.copy_(uniform(p.shape, g, 0.5, 1.5))
            else:
                p.copy_(uniform(p.shape, g, -0.5, 0.5))


def probe_loss(out, g):
    probe = uniform(out.shape, g)
    return (out * probe).sum(), probe


def write(name, about, config, params, inputs, outputs, grads, facts=None, words=None):
    body = {
        "case": name,
        "about": about,
        "config": config,
        "made_by": {
            "command": COMMAND,
            "torch": torch.__version__,
            "python": platform.python_version(),
            "dtype": "float64",
        },
        "loss": "sum(output * probe)" if "probe" in inputs else "the output itself",
        "params": {k: tensor(v) for k, v in params.items()},
        "inputs": {k: tensor(v) for k, v in inputs.items()},
        "outputs": {k: tensor(v) for k, v in outputs.items()},
        "grads": {k: tensor(v) for k, v in grads.items()},
    }
    if facts:
        body["facts"] = facts
    if words:
        body["words"] = words
    path = os.path.join(OUT, f"{name}.json")
    with open(path, "w") as f:
        json.dump(body, f, separators=(",", ":"))
        f.write("\n")
    print(f"{path}: {os.path.getsize(path):,} bytes")


def grads_of(module, extra):
    out = {k: p.grad for k, p in module.named_parameters()}
    out.update({k: v.grad for k, v in extra.items()})
    return out


def padded_keys(batch, length, pads):
    """key_padding_mask: True = a padding position (PyTorch's polarity).
    The last `pads` positions of the last sequence are padding."""
    m = torch.zeros(batch, length, dtype=torch.bool)
    m[batch - 1, length - pads:] = True
    return m


def causal_hidden(length):
    """attn_mask for nn.MultiheadAttention: True = may NOT look."""
    return torch.triu(torch.ones(length, length, dtype=torch.bool), diagonal=1)


def layer_norm():
    g = gen(1)
    ln = nn.LayerNorm(D)
    randomise(ln, g)
    x = uniform((BATCH, S_TGT, D), g, -2.0, 3.0).requires_grad_()
    y = ln(x)
    loss, probe = probe_loss(y, g)
    loss.backward()
    write("layer_norm", f"nn.LayerNorm({D}), eps {ln.eps}, on (B={BATCH}, S={S_TGT}, d={D})",
          {"d": D, "eps": ln.eps},
          dict(ln.named_parameters()), {"x": x, "probe": probe}, {"y": y},
          grads_of(ln, {"x": x}))


def mha_causal():
    g = gen(2)
    mha = nn.MultiheadAttention(D, HEADS, dropout=0.0, batch_first=True)
    randomise(mha, g)
    x = uniform((BATCH, S_TGT, D), g).requires_grad_()
    out, w = mha(x, x, x, attn_mask=causal_hidden(S_TGT), need_weights=True,
                 average_attn_weights=False)
    loss, probe = probe_loss(out, g)
    loss.backward()
    write("mha_causal",
          f"nn.MultiheadAttention({D}, {HEADS}, batch_first) as self-attention under a causal "
          "attn_mask (True = hidden); weights per head, (B, h, S, S)",
          {"d": D, "heads": HEADS},
          dict(mha.named_parameters()), {"x": x, "probe": probe},
          {"out": out, "weights": w}, grads_of(mha, {"x": x}))


def mha_padding():
    g = gen(3)
    mha = nn.MultiheadAttention(D, HEADS, dropout=0.0, batch_first=True)
    randomise(mha, g)
    q = uniform((BATCH, S_TGT, D), g).requires_grad_()
    mem = uniform((BATCH, S_SRC, D), g).requires_grad_()
    pad = padded_keys(BATCH, S_SRC, 2)
    out, w = mha(q, mem, mem, key_padding_mask=pad, need_weights=True,
                 average_attn_weights=False)
    loss, probe = probe_loss(out, g)
    loss.backward()
    write("mha_padding",
          f"nn.MultiheadAttention({D}, {HEADS}, batch_first) as cross-attention from {S_TGT} "
          f"queries to {S_SRC} keys; key_padding_mask (True = padding) hides the last 2 keys "
          "of sequence 1",
          {"d": D, "heads": HEADS},
          dict(mha.named_parameters()),
          {"query": q, "memory": mem, "key_padding": pad.to(torch.float64), "probe": probe},
          {"out": out, "weights": w}, grads_of(mha, {"query": q, "memory": mem}))


def sdpa_fully_masked():
    g = gen(4)
    q = uniform((1, 1, 4, D), g).requires_grad_()
    k = uniform((1, 1, 5, D), g).requires_grad_()
    v = uniform((1, 1, 5, D), g).requires_grad_()
    keep = torch.tensor([[1, 0, 0, 0, 0],
                         [1, 1, 0, 0, 0],
                         [0, 0, 0, 0, 0],   # a query that may look at nothing
                         [1, 1, 1, 0, 1]], dtype=torch.bool)
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=keep)
    loss, probe = probe_loss(out, g)
    loss.backward()
    row = torch.full((5,), float("-inf"))
    # nn.MultiheadAttention (True = hidden) with the same fully hidden query
    mha = nn.MultiheadAttention(D, 1, dropout=0.0, batch_first=True)
    with torch.no_grad():
        _, w = mha(q[0].detach(), k[0].detach(), v[0].detach(), attn_mask=~keep,
                   need_weights=True)
    facts = {
        "sdpa_fully_masked_row_is_zero": bool((out[0, 0, 2] == 0).all()),
        "softmax_of_all_minus_inf_is_nan": bool(torch.softmax(row, 0).isnan().all()),
        "mha_fully_masked_weights_are_nan": bool(w[0, 2].isnan().all()),
    }
    write("sdpa_fully_masked",
          "F.scaled_dot_product_attention with a boolean attn_mask (True = may look); "
          "query 2 may look at no key",
          {"d": D}, {}, {"q": q, "k": k, "v": v, "keep": keep.to(torch.float64), "probe": probe},
          {"out": out}, {"q": q.grad, "k": k.grad, "v": v.grad}, facts)


def encoder_layer(norm_first):
    name = "encoder_pre" if norm_first else "encoder_post"
    g = gen(5 + norm_first)
    layer = nn.TransformerEncoderLayer(D, HEADS, D_FF, dropout=0.0, activation="relu",
                                       batch_first=True, norm_first=norm_first)
    randomise(layer, g)
    layer.train()  # dropout is 0; train mode keeps PyTorch off its inference fast path
    x = uniform((BATCH, S_SRC, D), g).requires_grad_()
    pad = padded_keys(BATCH, S_SRC, 2)
    y = layer(x, src_key_padding_mask=pad)
    loss, probe = probe_loss(y, g)
    loss.backward()
    write(name,
          f"nn.TransformerEncoderLayer({D}, {HEADS}, {D_FF}, dropout 0, ReLU, batch_first, "
          f"norm_first={norm_first}); src_key_padding_mask hides the last 2 positions of "
          "sequence 1",
          {"d": D, "heads": HEADS, "d_ff": D_FF, "eps": layer.norm1.eps},
          dict(layer.named_parameters()),
          {"x": x, "key_padding": pad.to(torch.float64), "probe": probe},
          {"y": y}, grads_of(layer, {"x": x}))


def decoder_layer(norm_first):
    name = "decoder_pre" if norm_first else "decoder_post"
    g = gen(7 + norm_first)
    layer = nn.TransformerDecoderLayer(D, HEADS, D_FF, dropout=0.0, activation="relu",
                                       batch_first=True, norm_first=norm_first)
    randomise(layer, g)
    layer.train()
    y_in = uniform((BATCH, S_TGT, D), g).requires_grad_()
    mem = uniform((BATCH, S_SRC, D), g).requires_grad_()
    pad = padded_keys(BATCH, S_SRC, 2)
    y = layer(y_in, mem, tgt_mask=causal_hidden(S_TGT), memory_key_padding_mask=pad)
    loss, probe = probe_loss(y, g)
    loss.backward()
    write(name,
          f"nn.TransformerDecoderLayer({D}, {HEADS}, {D_FF}, dropout 0, ReLU, batch_first, "
          f"norm_first={norm_first}); causal tgt_mask; memory_key_padding_mask hides the last "
          "2 source positions of sequence 1",
          {"d": D, "heads": HEADS, "d_ff": D_FF, "eps": layer.norm1.eps},
          dict(layer.named_parameters()),
          {"y": y_in, "memory": mem, "memory_key_padding": pad.to(torch.float64),
           "probe": probe},
          {"out": y}, grads_of(layer, {"y": y_in, "memory": mem}))


def gru():
    g = gen(9)
    cell = nn.GRU(GRU_IN, GRU_HIDDEN, num_layers=1, batch_first=True)
    randomise(cell, g)
    x = uniform((BATCH, S_TGT, GRU_IN), g).requires_grad_()
    h0 = uniform((1, BATCH, GRU_HIDDEN), g).requires_grad_()
    out, h_n = cell(x, h0)
    loss, probe = probe_loss(out, g)
    loss.backward()
    write("gru",
          f"nn.GRU({GRU_IN}, {GRU_HIDDEN}, 1 layer, batch_first) from a given h0; "
          "gates in PyTorch's order r, z, n",
          {"input": GRU_IN, "hidden": GRU_HIDDEN},
          dict(cell.named_parameters()), {"x": x, "h0": h0, "probe": probe},
          {"out": out, "h_n": h_n}, grads_of(cell, {"x": x, "h0": h0}))


def cross_entropy():
    g = gen(10)
    logits = uniform((7, 6), g, -3.0, 3.0).requires_grad_()
    targets = torch.tensor([3, 0, 5, 1, 0, 2, 4])
    loss = F.cross_entropy(logits, targets, ignore_index=0, label_smoothing=0.1)
    loss.backward()
    plain = F.cross_entropy(logits.detach(), targets, ignore_index=0)
    write("cross_entropy",
          "F.cross_entropy on 7 rows of 6 logits, ignore_index 0 (two rows ignored), "
          "label_smoothing 0.1; also the plain loss without smoothing",
          {"ignore_index": 0, "label_smoothing": 0.1}, {}, {"logits": logits, "targets": targets.to(torch.float64)},
          {"loss": loss.reshape(1), "loss_plain": plain.reshape(1)}, {"logits": logits.grad})


# --- Chapter 12: the framework against PyTorch ------------------------------

class Mlp(nn.Module):
    """GPT-2's feed-forward network, with GPT-2's names: c_fc, GELU in its
    tanh form, c_proj."""

    def __init__(self, d, d_ff):
        super().__init__()
        self.c_fc = nn.Linear(d, d_ff)
        self.act = nn.GELU(approximate="tanh")
        self.c_proj = nn.Linear(d_ff, d)

    def forward(self, x):
        return self.c_proj(self.act(self.c_fc(x)))


def ffn_gelu():
    g = gen(11)
    mlp = Mlp(D, D_FF)
    randomise(mlp, g)
    x = uniform((BATCH, S_TGT, D), g, -2.0, 2.0).requires_grad_()
    y = mlp(x)
    loss, probe = probe_loss(y, g)
    loss.backward()
    write("ffn_gelu",
          f"Linear({D}, {D_FF}), GELU(approximate='tanh'), Linear({D_FF}, {D}): GPT-2's "
          "feed-forward network",
          {"d": D, "d_ff": D_FF},
          dict(mlp.named_parameters()), {"x": x, "probe": probe}, {"y": y},
          grads_of(mlp, {"x": x}))


class CausalSelfAttention(nn.Module):
    """GPT-2's attention, written out: one c_attn makes Q, K and V, each is
    viewed as heads, and the heads are put back side by side before c_proj."""

    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.c_attn = nn.Linear(d, 3 * d)
        self.c_proj = nn.Linear(d, d)

    def forward(self, x):
        b, s, d = x.shape
        h = self.heads
        q, k, v = self.c_attn(x).split(d, dim=2)
        # (B, S, d) -> (B, S, h, d/h) is a view; transpose -> (B, h, S, d/h)
        # only changes the strides
        q, k, v = [t.view(b, s, h, d // h).transpose(1, 2) for t in (q, k, v)]
        scores = q @ k.transpose(-2, -1) / math.sqrt(d // h)
        scores = scores.masked_fill(causal_hidden(s), float("-inf"))
        y = torch.softmax(scores, dim=-1) @ v
        # the transpose back leaves y non-contiguous: view needs a copy first
        y = y.transpose(1, 2).contiguous().view(b, s, d)
        return self.c_proj(y)


class GptBlock(nn.Module):
    def __init__(self, d, heads, d_ff):
        super().__init__()
        self.ln_1 = nn.LayerNorm(d)
        self.attn = CausalSelfAttention(d, heads)
        self.ln_2 = nn.LayerNorm(d)
        self.mlp = Mlp(d, d_ff)

    def forward(self, x, masks):
        x = x + self.attn(self.ln_1(x)) * masks.pop(0)
        return x + self.mlp(self.ln_2(x)) * masks.pop(0)


class Gpt(nn.Module):
    """A GPT-2-style decoder-only model: token and learned position
    embeddings, Pre-LN blocks, a final LayerNorm, the output layer tied to
    the token table. Dropout is applied as given masks (0 or 1/(1-p)), on the
    embeddings and on each sub-layer's output, in that order."""

    def __init__(self, vocab, max_len, d, heads, d_ff, layers):
        super().__init__()
        self.wte = nn.Embedding(vocab, d)
        self.wpe = nn.Embedding(max_len, d)
        self.h = nn.ModuleList(GptBlock(d, heads, d_ff) for _ in range(layers))
        self.ln_f = nn.LayerNorm(d)

    def forward(self, ids, masks):
        masks = list(masks)
        s = ids.shape[1]
        x = (self.wte(ids) + self.wpe(torch.arange(s))) * masks.pop(0)
        for block in self.h:
            x = block(x, masks)
        assert not masks
        return self.ln_f(x) @ self.wte.weight.T


def dropout_masks(shapes, p, g):
    """Dropout masks made here, handed to the book: 0 with probability p,
    else 1/(1-p)."""
    return [(torch.rand(s, generator=g) >= p).to(torch.float64) / (1 - p) for s in shapes]


def gpt_dropout():
    g = gen(12)
    vocab, max_len, layers, p = 13, 8, 2, 0.1
    model = Gpt(vocab, max_len, D, HEADS, 4 * D, layers)
    randomise(model, g, is_norm=lambda name: "ln_" in name)
    model.train()
    ids = torch.randint(0, vocab, (BATCH, S_SRC), generator=g)
    targets = torch.randint(0, vocab, (BATCH, S_SRC), generator=g)
    masks = dropout_masks([(BATCH, S_SRC, D)] * (1 + 2 * layers), p, g)
    logits = model(ids, masks)
    loss = F.cross_entropy(logits.reshape(-1, vocab), targets.reshape(-1))
    loss.backward()
    inputs = {"ids": ids.to(torch.float64), "targets": targets.to(torch.float64)}
    inputs.update({f"mask_{i}": m for i, m in enumerate(masks)})
    write("gpt_dropout",
          f"a GPT-2-style decoder-only model written with torch: vocabulary {vocab}, "
          f"{max_len} learned positions, {layers} Pre-LN blocks (d {D}, {HEADS} heads, "
          f"GELU tanh network of {4 * D}), final LayerNorm, output tied to the token table; "
          f"dropout p = {p} on the embeddings and after each sub-layer, as masks given to "
          "both sides; loss: mean cross-entropy of next tokens",
          {"vocab": vocab, "max_len": max_len, "d": D, "heads": HEADS, "d_ff": 4 * D,
           "layers": layers, "p": p},
          dict(model.named_parameters()), inputs,
          {"logits": logits, "loss": loss.reshape(1)}, grads_of(model, {}))


# The review language of chapter 12 (chapters/12_own_framework/src/reviews.rs):
# the same words in the same order, the same held-out pairs, the same mix.
WORDS = ["<pad>", "the", "was", "not", "but",
         "food", "service", "staff", "room", "music", "coffee", "view", "bed",
         "good", "great", "lovely", "excellent", "friendly", "tasty", "clean", "superb",
         "bad", "awful", "terrible", "rude", "bland", "dirty", "poor", "dull"]
SUBJECT0, ADJECTIVE0, REVIEW_POSITIONS = 5, 13, 16


def review(rng):
    """One training review: plain, negation or contrast in the mix 2 : 1 : 1,
    only from pairs (subject s, adjective a) with (s + a) % 4 != 0."""
    def pair(positive):
        while True:
            s, a = rng.randrange(8), rng.randrange(8) + (0 if positive else 8)
            if (s + a) % 4 != 0:
                return s, a

    def clause(s, a, negated):
        return [1, SUBJECT0 + s, 2] + ([3] if negated else []) + [ADJECTIVE0 + a]

    kind = rng.choice(["plain", "plain", "negation", "contrast"])
    if kind == "contrast":
        while True:
            first, second = pair(True), pair(False)
            if first[0] != second[0]:
                break
        if rng.random() < 0.5:
            first, second = second, first
        return clause(*first, False) + [4] + clause(*second, False), int(second[1] < 8)
    s, a = pair(rng.random() < 0.5)
    negated = kind == "negation"
    return clause(s, a, negated), int((a < 8) != negated)


class ReviewClassifier(nn.Module):
    """Chapter 12's classifier: token embeddings + learned positions, one
    Post-LN encoder layer (padding masked), the mean over real tokens, a
    linear layer to two classes."""

    def __init__(self, vocab, max_len, d, heads, d_ff):
        super().__init__()
        self.tokens = nn.Embedding(vocab, d)
        self.positions = nn.Embedding(max_len, d)
        self.layer = nn.TransformerEncoderLayer(d, heads, d_ff, dropout=0.0, activation="relu",
                                                batch_first=True, norm_first=False)
        self.head = nn.Linear(d, 2)

    def forward(self, ids):
        pad = ids == 0
        x = self.tokens(ids) + self.positions(torch.arange(ids.shape[1]))
        x = self.layer(x, src_key_padding_mask=pad)
        real = (~pad).to(torch.float64).unsqueeze(-1)
        return self.head((x * real).sum(1) / real.sum(1))


def classifier_steps():
    import random
    torch.manual_seed(13)  # PyTorch's own initialisation, then copied to the book
    d, heads, d_ff, batch, steps, lr = 32, 4, 64, 32, 20, 3e-3
    model = ReviewClassifier(len(WORDS), REVIEW_POSITIONS, d, heads, d_ff)
    model.train()  # dropout is 0; train mode keeps PyTorch off its inference fast path
    initial = {k: v.detach().clone() for k, v in model.named_parameters()}
    opt = torch.optim.Adam(model.parameters(), lr=lr, betas=(0.9, 0.999), eps=1e-8)
    rng = random.Random(13)
    inputs, losses = {}, []
    for step in range(steps):
        reviews = [review(rng) for _ in range(batch)]
        length = max(len(r) for r, _ in reviews)
        ids = torch.tensor([r + [0] * (length - len(r)) for r, _ in reviews])
        labels = torch.tensor([y for _, y in reviews])
        opt.zero_grad()
        loss = F.cross_entropy(model(ids), labels)
        loss.backward()
        opt.step()
        losses.append(loss.item())
        inputs[f"ids_{step:02}"] = ids.to(torch.float64)
        inputs[f"labels_{step:02}"] = labels.to(torch.float64)
    outputs = {"losses": torch.tensor(losses)}
    outputs.update({f"final.{k}": v for k, v in model.named_parameters()})
    write("classifier_steps",
          f"chapter 12's review classifier (vocabulary {len(WORDS)}, {REVIEW_POSITIONS} learned "
          f"positions, nn.TransformerEncoderLayer({d}, {heads}, {d_ff}, Post-LN, ReLU, "
          f"dropout 0), mean over real tokens, Linear({d}, 2)) from PyTorch's own "
          f"initialisation, trained {steps} steps with torch.optim.Adam(lr {lr}, betas "
          f"(0.9, 0.999), eps 1e-8) on batches of {batch} training reviews; the loss before "
          "each step and the parameters after the last",
          {"vocab": len(WORDS), "max_len": REVIEW_POSITIONS, "d": d, "heads": heads,
           "d_ff": d_ff, "batch": batch, "steps": steps, "lr": lr, "beta1": 0.9,
           "beta2": 0.999, "eps": 1e-8, "pad": 0},
          initial, inputs, outputs, {}, words=WORDS)


def main():
    os.makedirs(OUT, exist_ok=True)
    print(f"torch {torch.__version__}, python {platform.python_version()}, {sys.platform}")
    layer_norm()
    mha_causal()
    mha_padding()
    sdpa_fully_masked()
    encoder_layer(False)
    encoder_layer(True)
    decoder_layer(False)
    decoder_layer(True)
    gru()
    cross_entropy()
    ffn_gelu()
    gpt_dropout()
    classifier_steps()


if __name__ == "__main__":
    main()
