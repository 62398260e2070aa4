"""Small Transformer encoder classifier: sinusoidal positions as a buffer, padding masks,
a causal mask, and a linear-warmup LambdaLR schedule."""

# Kept as the code these scripts imitate writes it (old-style super(), str.format, unused
# loop variables, closures defined in loops):
# ruff: noqa: UP018

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

PAD = 0


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, dropout=0.1, max_len=64):
        super().__init__()
        self.dropout = nn.Dropout(p=dropout)
        position = torch.arange(max_len).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
        pe = torch.zeros(max_len, 1, d_model)
        pe[:, 0, 0::2] = torch.sin(position * div_term)
        pe[:, 0, 1::2] = torch.cos(position * div_term)
        self.register_buffer("pe", pe)

    def forward(self, x):
        # x: (seq, batch, d_model)
        x = x + self.pe[: x.size(0)]
        return self.dropout(x)


def generate_square_subsequent_mask(sz):
    mask = (torch.triu(torch.ones(sz, sz)) == 1).transpose(0, 1)
    mask = mask.float().masked_fill(mask == 0, float("-inf")).masked_fill(mask == 1, float(0.0))
    return mask


class TransformerClassifier(nn.Module):
    def __init__(self, vocab, d_model=32, nhead=4, dim_ff=64, nlayers=2, n_classes=2):
        super().__init__()
        self.d_model = d_model
        self.embedding = nn.Embedding(vocab, d_model, padding_idx=PAD)
        self.pos_encoder = PositionalEncoding(d_model, dropout=0.0)
        layer = nn.TransformerEncoderLayer(d_model, nhead, dim_ff, dropout=0.0)
        self.encoder = nn.TransformerEncoder(layer, nlayers, enable_nested_tensor=False)
        self.cls = nn.Linear(d_model, n_classes)

    def forward(self, src, src_key_padding_mask):
        # src: (batch, seq) -> (seq, batch, d)
        x = self.embedding(src).transpose(0, 1) * math.sqrt(self.d_model)
        x = self.pos_encoder(x)
        x = self.encoder(x, src_key_padding_mask=src_key_padding_mask)
        keep = (~src_key_padding_mask).transpose(0, 1).unsqueeze(-1).float()
        pooled = (x * keep).sum(0) / keep.sum(0).clamp(min=1.0)
        return self.cls(pooled)


def make_batch(n, max_len, vocab, g):
    lengths = torch.randint(3, max_len + 1, (n,), generator=g)
    tokens = torch.randint(1, vocab, (n, max_len), generator=g)
    mask = torch.arange(max_len).unsqueeze(0) >= lengths.unsqueeze(1)
    tokens = tokens.masked_fill(mask, PAD)
    # label: does token 1 appear in the sequence?
    labels = (tokens == 1).any(dim=1).long()
    return tokens, mask, labels


torch.manual_seed(0)
vocab, max_len = 6, 10
g = torch.Generator().manual_seed(1)
model = TransformerClassifier(vocab)
n_params = sum(p.numel() for p in model.parameters())
print(f"{n_params} parameters")
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)
warmup = 10
scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: min(1.0, (step + 1) / warmup))

causal = generate_square_subsequent_mask(5)
assert causal[0, 1] == float("-inf") and causal[1, 0] == 0
attn = nn.MultiheadAttention(8, 2)
q = torch.randn(5, 3, 8)
_, w = attn(q, q, q, attn_mask=causal)
assert w[:, 0, 1:].abs().max().item() < 1e-6, "causal mask leaked"

for step in range(60):
    model.train()
    tokens, mask, labels = make_batch(32, max_len, vocab, g)
    logits = model(tokens, mask)
    loss = F.cross_entropy(logits, labels)
    optimizer.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
    optimizer.step()
    scheduler.step()
    if step % 10 == 0:
        print(f"step {step} loss {loss.item():.4f} lr {scheduler.get_last_lr()[0]:.5f}")

model.eval()
with torch.no_grad():
    tokens, mask, labels = make_batch(256, max_len, vocab, g)
    acc = (model(tokens, mask).argmax(-1) == labels).float().mean().item()
print(f"FINAL accuracy {100 * acc:.2f}")
