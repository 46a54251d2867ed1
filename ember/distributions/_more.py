"""The names the transforms-and-composites part adds to `ember.distributions`.

Kept in one module so the package's __init__ pulls them in with one star import; the
submodules stay reachable as `ember.distributions.<module>`, as in PyTorch, and importing
`kl_more` registers its KL pairs.
"""
from . import (constraint_registry, gumbel, half_cauchy, half_normal, independent,
               kl_more, log_normal, lowrank_multivariate_normal, mixture_same_family,
               multivariate_normal, relaxed_bernoulli, relaxed_categorical,
               transformed_distribution, transforms, weibull)

biject_to, transform_to = constraint_registry.biject_to, constraint_registry.transform_to
Gumbel = gumbel.Gumbel
HalfCauchy = half_cauchy.HalfCauchy
HalfNormal = half_normal.HalfNormal
Independent = independent.Independent
LogNormal, LogisticNormal = log_normal.LogNormal, log_normal.LogisticNormal
LowRankMultivariateNormal = lowrank_multivariate_normal.LowRankMultivariateNormal
MixtureSameFamily = mixture_same_family.MixtureSameFamily
MultivariateNormal = multivariate_normal.MultivariateNormal
RelaxedBernoulli = relaxed_bernoulli.RelaxedBernoulli
RelaxedOneHotCategorical = relaxed_categorical.RelaxedOneHotCategorical
TransformedDistribution = transformed_distribution.TransformedDistribution
Kumaraswamy, Weibull = weibull.Kumaraswamy, weibull.Weibull
from .transforms import *  # noqa: E402,F401,F403

__all__ = ["Gumbel", "HalfCauchy", "HalfNormal", "Independent", "Kumaraswamy", "LogNormal",
           "LogisticNormal", "LowRankMultivariateNormal", "MixtureSameFamily",
           "MultivariateNormal", "RelaxedBernoulli", "RelaxedOneHotCategorical",
           "TransformedDistribution", "Weibull", "biject_to", "transform_to",
           *transforms.__all__]
