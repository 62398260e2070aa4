"""Sequence tagging on variable-length sequences: a collate_fn with pad_sequence, a
bidirectional LSTM over pack_padded_sequence(enforce_sorted=False), CrossEntropyLoss with
ignore_index on padding, ConcatDataset and a WeightedRandomSampler for the rarer source."""

import random

import numpy as np
import torch
import torch.nn as nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence, pad_sequence
from torch.utils.data import ConcatDataset, DataLoader, Dataset, WeightedRandomSampler

PAD_LABEL = -100
random.seed(0)
np.random.seed(0)
torch.manual_seed(0)


class UpDownDataset(Dataset):
    """Token t_i is tagged 1 if it is larger than t_{i-1} (the first token is tagged 0)."""

    def __init__(self, n, min_len, max_len, vocab=20, seed=0):
        rs = np.random.RandomState(seed)
        self.samples = []
        for _ in range(n):
            length = rs.randint(min_len, max_len + 1)
            seq = rs.randint(1, vocab, size=length)
            tags = np.concatenate([[0], (seq[1:] > seq[:-1]).astype(np.int64)])
            self.samples.append((seq, tags))

    def __len__(self):
        return len(self.samples)

    def __getitem__(self, idx):
        seq, tags = self.samples[idx]
        return torch.as_tensor(seq, dtype=torch.long), torch.as_tensor(tags)


def collate_batch(batch):
    seqs, tags = zip(*batch)
    lengths = torch.tensor([len(s) for s in seqs])
    padded = pad_sequence(seqs, batch_first=True, padding_value=0)
    padded_tags = pad_sequence(tags, batch_first=True, padding_value=PAD_LABEL)
    return padded, padded_tags, lengths


class Tagger(nn.Module):
    def __init__(self, vocab=20, emb=16, hidden=32, n_tags=2):
        super().__init__()
        self.emb = nn.Embedding(vocab, emb, padding_idx=0)
        self.lstm = nn.LSTM(emb, hidden, batch_first=True, bidirectional=True)
        self.out = nn.Linear(2 * hidden, n_tags)

    def forward(self, x, lengths):
        packed = pack_padded_sequence(
            self.emb(x), lengths.cpu(), batch_first=True, enforce_sorted=False
        )
        packed_out, (h, c) = self.lstm(packed)
        out, out_lengths = pad_packed_sequence(packed_out, batch_first=True, total_length=x.size(1))
        assert torch.equal(out_lengths, lengths)
        return self.out(out)


short = UpDownDataset(300, 3, 8, seed=1)
long = UpDownDataset(60, 10, 16, seed=2)
train = ConcatDataset([short, long])
print("dataset sizes", len(short), len(long), len(train))
weights = [1.0] * len(short) + [5.0] * len(long)
sampler = WeightedRandomSampler(weights, num_samples=len(train), replacement=True)
loader = DataLoader(train, batch_size=32, sampler=sampler, collate_fn=collate_batch)

model = Tagger()
criterion = nn.CrossEntropyLoss(ignore_index=PAD_LABEL)
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
for epoch in range(6):
    model.train()
    total, count = 0.0, 0
    for x, y, lengths in loader:
        logits = model(x, lengths)
        loss = criterion(logits.reshape(-1, logits.size(-1)), y.reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_value_(model.parameters(), clip_value=1.0)
        optimizer.step()
        total += loss.item()
        count += 1
    print(f"epoch {epoch} loss {total / count:.4f}")

test = UpDownDataset(100, 3, 16, seed=3)
model.eval()
correct = tokens = 0
with torch.no_grad():
    for x, y, lengths in DataLoader(test, batch_size=50, collate_fn=collate_batch):
        pred = model(x, lengths).argmax(-1)
        mask = y != PAD_LABEL
        correct += (pred[mask] == y[mask]).sum().item()
        tokens += mask.sum().item()
print(f"FINAL accuracy {100.0 * correct / tokens:.2f}")
