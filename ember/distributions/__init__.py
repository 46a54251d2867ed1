"""ember.distributions: probability distributions with sampling, densities and KL.

Mirrors torch.distributions. The base (`Distribution`, `ExponentialFamily`), the
`constraints`, the helpers in `utils` and the KL machinery (`kl_divergence`,
`register_kl`) sit under the distributions; each distribution is its own module built
on the public Tensor API, as user code would be.
"""
from . import constraints
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .kl import kl_divergence, register_kl
from .normal import Normal
from . import _kl_pairs  # noqa: F401  (registers the closed-form KL pairs)

__all__ = ["Distribution", "ExponentialFamily", "Normal", "kl_divergence", "register_kl"]
from ._more import *  # noqa: F401,F403,E402  (distB: transforms and the composite distributions)
