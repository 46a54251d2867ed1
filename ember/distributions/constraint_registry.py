"""From a constraint to a transform that reaches it from unconstrained reals.

Two registries, as in PyTorch: `biject_to(c)` returns a bijection (so a density can be
carried through it, e.g. for HMC), `transform_to(c)` any map onto `c` (cheaper or more
stable where a bijection is awkward: softmax for the simplex). Both are keyed by the
constraint's class; a factory receives the constraint instance and reads its parameters
(bounds, base constraint, blocks).
"""
import functools
from numbers import Number

from . import constraints
from .transforms import (AffineTransform, CatTransform, ComposeTransform,
                         CorrCholeskyTransform, ExpTransform, IndependentTransform,
                         LowerCholeskyTransform, PositiveDefiniteTransform, SigmoidTransform,
                         SoftmaxTransform, StackTransform, StickBreakingTransform,
                         identity_transform)

__all__ = ["ConstraintRegistry", "biject_to", "transform_to"]


class ConstraintRegistry:
    """A table from constraint classes to factories `constraint -> Transform`."""

    def __init__(self):
        self._registry = {}
        super().__init__()

    def register(self, constraint, factory=None):
        """Register `factory` for `constraint` (class or instance); usable as a decorator."""
        if factory is None:
            return functools.partial(self.register, constraint)
        key = type(constraint) if isinstance(constraint, constraints.Constraint) else constraint
        if not (isinstance(key, type) and issubclass(key, constraints.Constraint)):
            raise TypeError("Expected constraint to be either a Constraint subclass or "
                            f"instance, but got {key}")
        self._registry[key] = factory
        return factory

    def __call__(self, constraint):
        try:
            factory = self._registry[type(constraint)]
        except KeyError:
            raise NotImplementedError(
                f"Cannot transform {type(constraint).__name__} constraints") from None
        return factory(constraint)


biject_to = ConstraintRegistry()
transform_to = ConstraintRegistry()


# ---- factories; each reads what it needs from the constraint instance
def _identity(constraint):
    return identity_transform


def _exp_shifted_up(constraint):
    """(lower, inf): lower + exp(x)."""
    return ComposeTransform([ExpTransform(), AffineTransform(constraint.lower_bound, 1)])


def _exp_shifted_down(constraint):
    """(-inf, upper): upper - exp(x)."""
    return ComposeTransform([ExpTransform(), AffineTransform(constraint.upper_bound, -1)])


def _squashed_between(constraint):
    """(lower, upper): a sigmoid, stretched unless the interval is already (0, 1)."""
    low, high = constraint.lower_bound, constraint.upper_bound
    if isinstance(low, Number) and isinstance(high, Number) and (low, high) == (0, 1):
        return SigmoidTransform()
    return ComposeTransform([SigmoidTransform(), AffineTransform(low, high - low)])


def _stick_breaking(constraint):
    return StickBreakingTransform()


def _softmax(constraint):
    return SoftmaxTransform()


def _lower_cholesky(constraint):
    return LowerCholeskyTransform()


def _positive_definite(constraint):
    return PositiveDefiniteTransform()


def _corr_cholesky(constraint):
    return CorrCholeskyTransform()


def _recursing(registry):
    """Factories for the constraints built from other constraints, resolved in `registry`."""
    def independent(constraint):
        return IndependentTransform(registry(constraint.base_constraint),
                                    constraint.reinterpreted_batch_ndims)

    def concatenated(constraint):
        parts = [registry(part) for part in constraint.cseq]
        return CatTransform(parts, constraint.dim, constraint.lengths)

    def stacked(constraint):
        return StackTransform([registry(part) for part in constraint.cseq], constraint.dim)

    return {constraints.independent: independent, constraints.cat: concatenated,
            constraints.stack: stacked}


# positive and nonnegative are instances of the greater-than classes, so the general
# factory answers for them too (exp, then a shift by the bound), as in PyTorch
for _registry in (biject_to, transform_to):
    for _key, _factory in [(constraints.real, _identity),
                           (constraints.greater_than, _exp_shifted_up),
                           (constraints.greater_than_eq, _exp_shifted_up),
                           (constraints.less_than, _exp_shifted_down),
                           (constraints.interval, _squashed_between),
                           (constraints.half_open_interval, _squashed_between),
                           (constraints.corr_cholesky, _corr_cholesky),
                           *_recursing(_registry).items()]:
        _registry.register(_key, _factory)

biject_to.register(constraints.simplex, _stick_breaking)
transform_to.register(constraints.simplex, _softmax)
transform_to.register(constraints.lower_cholesky, _lower_cholesky)
transform_to.register(constraints.positive_definite, _positive_definite)
transform_to.register(constraints.positive_semidefinite, _positive_definite)
