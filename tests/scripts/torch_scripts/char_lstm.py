"""Character-level LSTM language model with truncated BPTT (hidden state detached)."""

import math

import torch
import torch.nn as nn

TEXT = (
    "the quick brown fox jumps over the lazy dog. "
    "a stitch in time saves nine. "
    "all that glitters is not gold. "
) * 12

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

chars = sorted(list(set(TEXT)))
vocab_size = len(chars)
stoi = {ch: i for i, ch in enumerate(chars)}
itos = {i: ch for ch, i in stoi.items()}
data = torch.tensor([stoi[c] for c in TEXT], dtype=torch.long)


def batchify(data, bsz):
    nbatch = data.size(0) // bsz
    data = data[: nbatch * bsz]
    return data.view(bsz, -1).contiguous().to(device)


class CharRNN(nn.Module):
    def __init__(self, vocab_size, embed_dim=16, hidden_dim=64, num_layers=2, dropout=0.1):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, embed_dim)
        self.lstm = nn.LSTM(embed_dim, hidden_dim, num_layers, batch_first=True, dropout=dropout)
        self.fc = nn.Linear(hidden_dim, vocab_size)
        self.num_layers = num_layers
        self.hidden_dim = hidden_dim

    def forward(self, x, hidden):
        emb = self.embed(x)
        out, hidden = self.lstm(emb, hidden)
        logits = self.fc(out.reshape(-1, out.size(2)))
        return logits, hidden

    def init_hidden(self, bsz):
        weight = next(self.parameters())
        return (
            weight.new_zeros(self.num_layers, bsz, self.hidden_dim),
            weight.new_zeros(self.num_layers, bsz, self.hidden_dim),
        )


def repackage_hidden(h):
    if isinstance(h, torch.Tensor):
        return h.detach()
    return tuple(repackage_hidden(v) for v in h)


batch_size, bptt = 8, 20
train_data = batchify(data, batch_size)
model = CharRNN(vocab_size).to(device)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)

print(model)
first_loss = None
for epoch in range(6):
    model.train()
    hidden = model.init_hidden(batch_size)
    total_loss, n = 0.0, 0
    for i in range(0, train_data.size(1) - 1, bptt):
        seq_len = min(bptt, train_data.size(1) - 1 - i)
        inputs = train_data[:, i : i + seq_len]
        targets = train_data[:, i + 1 : i + 1 + seq_len]
        hidden = repackage_hidden(hidden)
        optimizer.zero_grad()
        logits, hidden = model(inputs, hidden)
        loss = criterion(logits, targets.reshape(-1))
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
        optimizer.step()
        total_loss += loss.item()
        n += 1
    avg = total_loss / n
    if first_loss is None:
        first_loss = avg
    print(f"epoch {epoch} loss {avg:.3f} ppl {math.exp(avg):.2f}")

# greedy sampling from the trained model
model.eval()
with torch.no_grad():
    hidden = model.init_hidden(1)
    idx = torch.tensor([[stoi["t"]]], device=device)
    out = ["t"]
    for _ in range(30):
        logits, hidden = model(idx, hidden)
        probs = torch.softmax(logits[-1], dim=-1)
        nxt = torch.argmax(probs).item()
        out.append(itos[nxt])
        idx = torch.tensor([[nxt]], device=device)
print("sample:", "".join(out))
print(f"uniform loss {math.log(vocab_size):.3f}, first epoch {first_loss:.3f}")
print(f"FINAL loss {avg:.4f}")
