"""Fit a damped sine wave to noisy samples with L-BFGS, as a PyTorch user writes it.

L-BFGS needs a closure that re-evaluates the loss (it calls it several times per step);
the script runs the fit twice, with the fixed step and with the strong-Wolfe line search,
and prints the loss after every step, the fitted parameters and the optimizer's counters.
"""
import torch

torch.manual_seed(0)
x = torch.linspace(0, 4, 60, dtype=torch.float64)
noise = 0.05 * torch.randn(60, dtype=torch.float64)
y = 2.0 * torch.exp(-0.5 * x) * torch.sin(3.0 * x) + noise


class DampedSine(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.amplitude = torch.nn.Parameter(torch.tensor(1.0, dtype=torch.float64))
        self.decay = torch.nn.Parameter(torch.tensor(0.2, dtype=torch.float64))
        self.frequency = torch.nn.Parameter(torch.tensor(2.7, dtype=torch.float64))

    def forward(self, x):
        return self.amplitude * torch.exp(-self.decay * x) * torch.sin(self.frequency * x)


for line_search in (None, "strong_wolfe"):
    model = DampedSine()
    optimizer = torch.optim.LBFGS(model.parameters(), lr=0.5, max_iter=2, max_eval=8, history_size=4,
                                  line_search_fn=line_search)
    print(optimizer)

    def closure():
        optimizer.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        return loss

    for step in range(6):
        loss = optimizer.step(closure)
        print(f"step {step}: loss {loss.item():.10e}")
    with torch.no_grad():
        print("final loss", torch.nn.functional.mse_loss(model(x), y))
    print("amplitude", model.amplitude.detach(), "decay", model.decay.detach(),
          "frequency", model.frequency.detach())
    state = optimizer.state[model.amplitude]
    print("func_evals", state["func_evals"], "n_iter", state["n_iter"],
          "history", len(state["old_dirs"]))
