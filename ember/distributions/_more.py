"""The names the transforms-and-composites part adds to `ember.distributions`.

Kept in one module so the package's __init__ pulls them in with one star import; the
submodules stay reachable as `ember.distributions.<module>`, as in PyTorch.
"""
from . import (constraint_registry, half_normal, independent, log_normal,
               lowrank_multivariate_normal, multivariate_normal, transformed_distribution,
               transforms)

biject_to, transform_to = constraint_registry.biject_to, constraint_registry.transform_to
HalfNormal = half_normal.HalfNormal
Independent = independent.Independent
LogNormal, LogisticNormal = log_normal.LogNormal, log_normal.LogisticNormal
LowRankMultivariateNormal = lowrank_multivariate_normal.LowRankMultivariateNormal
MultivariateNormal = multivariate_normal.MultivariateNormal
TransformedDistribution = transformed_distribution.TransformedDistribution
from .transforms import *  # noqa: E402,F401,F403

__all__ = ["HalfNormal", "Independent", "LogNormal", "LogisticNormal",
           "LowRankMultivariateNormal", "MultivariateNormal", "TransformedDistribution",
           "biject_to", "transform_to", *transforms.__all__]
