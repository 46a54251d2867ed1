"""A probability notebook: sampling, densities, mixtures, Gaussians and a tiny VAE's ELBO.

Written for PyTorch in the style of an introductory course chapter; run under ember and
under torch by tests/test_distributions_more.py, which compares what the two print.
"""
import math

import torch

D = torch.distributions
nn = torch.nn

torch.manual_seed(0)

# --- 1. coin flips and a loaded die, by counting
coin = D.Bernoulli(probs=torch.tensor(0.3))
flips = coin.sample((1000,))
print("heads frequency:", f"{flips.mean().item():.3f}")
die = D.Categorical(probs=torch.tensor([0.1, 0.1, 0.1, 0.1, 0.1, 0.5]))
rolls = die.sample((600,))
print("counts:", torch.bincount(rolls, minlength=6))
print("log P(six):", f"{die.log_prob(torch.tensor(5)).item():.4f}")
print("entropy of the die:", f"{die.entropy().item():.4f}")

# --- 2. the Gaussian and distributions built from it
normal = D.Normal(torch.tensor(1.0), torch.tensor(2.0))
grid = torch.linspace(-3, 5, 5)
print("normal pdf:", normal.log_prob(grid).exp())
print("normal cdf:", normal.cdf(grid))
lognormal = D.LogNormal(torch.tensor(0.0), torch.tensor(0.5))
draws = lognormal.sample((20000,))
print("lognormal mean (exact, sampled):", f"{lognormal.mean.item():.4f}",
      f"{draws.mean().item():.2f}")
print(lognormal, lognormal.support, lognormal.variance)
squashed = D.TransformedDistribution(D.Normal(0.0, 1.0), [D.SigmoidTransform()])
values = squashed.sample((4,))
print("logit-normal draws:", values)
print("logit-normal log-density:", squashed.log_prob(values))
gumbel = D.Gumbel(torch.tensor([0.0, 2.0]), torch.tensor([1.0, 0.5]))
maxima = torch.randn(5000, 2, 50).max(-1).values
print("gumbel mean/stddev:", gumbel.mean, gumbel.stddev)
print("max of 50 normals, mean:", f"{maxima.mean().item():.2f}")
half = D.HalfNormal(torch.tensor([1.0, 3.0]))
print("half-normal:", half.mean, half.entropy(), half.cdf(torch.tensor([0.5, 0.5])))

# --- 3. a mixture of three Gaussians
weights = D.Categorical(logits=torch.tensor([0.0, 1.0, -1.0]))
components = D.Normal(torch.tensor([-2.0, 0.0, 3.0]), torch.tensor([0.5, 1.0, 0.3]))
mixture = D.MixtureSameFamily(weights, components)
print(mixture)
print("mixture mean/variance:", f"{mixture.mean.item():.4f}", f"{mixture.variance.item():.4f}")
print("mixture log-density:", mixture.log_prob(torch.linspace(-3, 4, 6)))
sample = mixture.sample((10000,))
print("sampled mean:", f"{sample.mean().item():.2f}")

# --- 4. the multivariate Gaussian
cov = torch.tensor([[2.0, 0.6], [0.6, 1.0]])
mvn = D.MultivariateNormal(torch.tensor([1.0, -1.0]), covariance_matrix=cov)
points = mvn.sample((5000,))
centred = points - points.mean(0)
print("empirical covariance:", (centred.T @ centred / 4999).round(decimals=1))
print("scale_tril:", mvn.scale_tril)
print("precision:", mvn.precision_matrix)
print("entropy:", f"{mvn.entropy().item():.4f}")
print("log-density at the mean:", f"{mvn.log_prob(mvn.mean).item():.4f}")
diag = D.Independent(D.Normal(torch.zeros(2), torch.ones(2)), 1)
standard = D.MultivariateNormal(torch.zeros(2), torch.eye(2))
print("KL(mvn || standard):", f"{D.kl_divergence(mvn, standard).item():.4f}")
print("diag log-density:", diag.log_prob(points[:3]))
lowrank = D.LowRankMultivariateNormal(torch.zeros(3), torch.tensor([[1.0], [0.5], [-1.0]]),
                                      torch.ones(3))
print("low-rank covariance:", lowrank.covariance_matrix)
print("low-rank log-density:", lowrank.log_prob(torch.tensor([0.5, 0.0, -0.5])))

# --- 5. a positive parameter fitted through a bijection
raw = torch.zeros(1, requires_grad=True)
to_positive = D.biject_to(D.constraints.positive)
data = D.Exponential(torch.tensor(0.5)).sample((200,))
optimizer = torch.optim.SGD([raw], lr=0.05)
for step in range(100):
    rate = to_positive(raw)
    loss = -D.Exponential(rate).log_prob(data).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print("fitted rate:", f"{to_positive(raw).item():.3f}", "MLE:", f"{(1 / data.mean()).item():.3f}")

# --- 6. a tiny VAE: reparameterised samples and the ELBO
torch.manual_seed(1)
x = torch.rand(64, 8)
encoder = nn.Linear(8, 4)
decoder = nn.Linear(2, 8)
parameters = list(encoder.parameters()) + list(decoder.parameters())
optimizer = torch.optim.Adam(parameters, lr=0.01)
prior = D.Independent(D.Normal(torch.zeros(2), torch.ones(2)), 1)
for epoch in range(60):
    mu, log_var = encoder(x).chunk(2, dim=-1)
    posterior = D.Independent(D.Normal(mu, (0.5 * log_var).exp()), 1)
    z = posterior.rsample()
    likelihood = D.Independent(D.Normal(decoder(z), 0.3), 1)
    elbo = (likelihood.log_prob(x) - D.kl_divergence(posterior, prior)).mean()
    optimizer.zero_grad()
    (-elbo).backward()
    optimizer.step()
    if epoch % 20 == 0:
        print(f"epoch {epoch}: elbo {elbo.item():.3f}")
print("posterior:", posterior.batch_shape, posterior.event_shape, posterior.base_dist)
relaxed = D.RelaxedOneHotCategorical(torch.tensor(0.5),
                                     logits=torch.tensor([1.0, 0.0, -1.0]))
soft = relaxed.rsample((3,))
print("gumbel-softmax draws:", soft, soft.sum(-1))
print("their log-density:", relaxed.log_prob(soft))
binary = D.RelaxedBernoulli(torch.tensor(0.2), probs=torch.tensor([0.1, 0.9]))
print("bernoulli relaxation:", binary.sample())
print(math.isclose(mixture.cdf(torch.tensor(10.0)).item(), 1.0, rel_tol=1e-6))
