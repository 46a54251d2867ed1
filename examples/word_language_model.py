"""A word-level LSTM language model on a small built-in text, trained for 20 steps.

    python examples/word_language_model.py           # with ember
    python examples/word_language_model.py --torch   # the same program with PyTorch

The program is written against a module called `torch` (passed in), the way a PyTorch
user writes it, so the same lines run under either library; after the same seed both
print the same losses. Pieces: a vocabulary from whitespace-split words, the token
stream cut into `batch` parallel columns, truncated backpropagation through time
(the hidden state is carried from one chunk to the next but detached), dropout,
gradient clipping and plain SGD.
"""
import math
import sys

TEXT = """
the lamp keeper climbs the tower every evening and lights the lamp before the ships come
home . the ships come home slowly when the sea is rough and quickly when the sea is calm .
the keeper counts the ships and writes the count in a small book . when the book is full
the keeper buys a new book in the town by the harbour . the town is quiet in winter and
busy in summer , and the keeper likes the winter best because the sea is loud and the
town is quiet . in the morning the keeper puts out the lamp and sleeps until the evening .
"""


def batchify(torch, ids, batch):
    """The token stream as `batch` columns: (length, batch), each column a contiguous run."""
    length = len(ids) // batch
    data = torch.tensor(ids[:length * batch], dtype=torch.long)
    return data.view(batch, length).t().contiguous()


def make_model(torch, vocab, embed=32, hidden=48, layers=2, dropout=0.2):
    nn = torch.nn

    class WordLM(nn.Module):
        def __init__(self):
            super().__init__()
            self.drop = nn.Dropout(dropout)
            self.encoder = nn.Embedding(vocab, embed)
            self.rnn = nn.LSTM(embed, hidden, layers, dropout=dropout)
            self.decoder = nn.Linear(hidden, vocab)

        def forward(self, tokens, state):
            output, state = self.rnn(self.drop(self.encoder(tokens)), state)
            return self.decoder(self.drop(output)), state

    return WordLM()


def main(torch, steps=20, seq_len=10, batch=4, lr=2.0, clip=0.25):
    """Train for `steps` chunks of `seq_len` words; print and return the losses."""
    torch.manual_seed(0)
    words = TEXT.split()
    vocab = sorted(set(words))
    index = {word: i for i, word in enumerate(vocab)}
    data = batchify(torch, [index[word] for word in words], batch)
    model = make_model(torch, len(vocab))
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    criterion = torch.nn.CrossEntropyLoss()
    state, position, losses = None, 0, []
    model.train()
    for step in range(steps):
        if position + seq_len + 1 > data.size(0):
            state, position = None, 0           # wrap around to the start of the text
        tokens = data[position:position + seq_len]
        targets = data[position + 1:position + 1 + seq_len]
        position += seq_len
        if state is not None:
            state = tuple(s.detach() for s in state)
        optimizer.zero_grad()
        logits, state = model(tokens, state)
        loss = criterion(logits.view(-1, len(vocab)), targets.reshape(-1))
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
        optimizer.step()
        losses.append(loss.item())
        print(f"step {step + 1:2d}  loss {loss.item():.5f}  ppl {math.exp(loss.item()):8.3f}")
    return losses


if __name__ == "__main__":
    if "--torch" in sys.argv[1:]:
        import torch as library
    else:
        import ember as library
    main(library)
