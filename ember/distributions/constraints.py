"""Constraints: the sets a parameter or a sample must lie in, each with `check(value)`.

`check` answers elementwise over the batch (a bool tensor of the batch shape), folding
the constraint's `event_dim` rightmost dimensions into one answer. Distributions name
their parameters' constraints in `arg_constraints` and their samples' in `support`; the
validation in `Distribution` reads them. The objects, their class names and reprs are
PyTorch's, so `repr(d.support)` prints the same; each public singleton is created right
below its class.
"""
from .. import linalg as _linalg
from .._dtype import bool as _bool
from .._dtype import finfo
from ..ops.creation import full
from ..ops.joining import cat as _cat_tensors
from ..ops.joining import stack as _stack_tensors

__all__ = ["Constraint", "boolean", "cat", "corr_cholesky", "dependent", "dependent_property",
           "greater_than", "greater_than_eq", "independent", "integer_interval", "interval",
           "half_open_interval", "is_dependent", "less_than", "lower_cholesky",
           "lower_triangular", "MixtureSameFamilyConstraint", "multinomial", "nonnegative",
           "nonnegative_integer", "one_hot", "positive", "positive_semidefinite",
           "positive_definite", "positive_integer", "real", "real_vector", "simplex", "square",
           "stack", "symmetric", "unit_interval"]


class Constraint:
    """A region of values. `is_discrete` and `event_dim` describe what `check` folds."""

    is_discrete = False
    event_dim = 0

    def check(self, value):
        """A bool tensor: does each event of `value` satisfy the constraint?"""
        raise NotImplementedError

    def __repr__(self):
        # PyTorch's classes are private (`_Real`); the repr drops the underscore.
        return type(self).__name__[1:] + "()"


# ---- placeholders for supports that depend on the parameters

class _Dependent(Constraint):
    """A support that depends on other parameters: it cannot be checked.

    It may still know some static facts (`is_discrete`, `event_dim`); asking for one it
    does not know raises NotImplementedError.
    """

    def __init__(self, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        self._facts = {"is_discrete": is_discrete, "event_dim": event_dim}
        super().__init__()

    def _fact(self, name):
        known = self._facts[name]
        if known is NotImplemented:
            raise NotImplementedError(f".{name} cannot be determined statically")
        return known

    is_discrete = property(lambda self: self._fact("is_discrete"))
    event_dim = property(lambda self: self._fact("event_dim"))

    def __call__(self, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        """A dependent constraint with (some of) its static facts filled in."""
        given = {"is_discrete": is_discrete, "event_dim": event_dim}
        merged = {k: self._facts[k] if v is NotImplemented else v for k, v in given.items()}
        return _Dependent(**merged)

    def check(self, x):
        raise ValueError("Cannot determine validity of dependent constraint")


dependent = _Dependent()


def is_dependent(constraint):
    """Whether `constraint` is the (or a) dependent placeholder."""
    return isinstance(constraint, _Dependent)


class _DependentProperty(property, _Dependent):
    """A property that is a dependent constraint when read on the class.

    Read on an instance it computes the real constraint from the parameters (Uniform's
    support is interval(low, high)); read on the class it still answers is_dependent.
    """

    def __init__(self, fn=None, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        property.__init__(self, fn)
        self._facts = {"is_discrete": is_discrete, "event_dim": event_dim}

    def __call__(self, fn):
        """Used as `@dependent_property(is_discrete=..., event_dim=...)`."""
        return _DependentProperty(fn, **self._facts)


dependent_property = _DependentProperty


# ---- constraints built on another constraint

def _require_constraint(base):
    if not isinstance(base, Constraint):
        raise AssertionError(f"base_constraint must be a Constraint, got {type(base).__name__}")


def _fold_events(result, kept_dims):
    """All-reduce every dimension of `result` past the first `kept_dims`."""
    return result.reshape(tuple(result.shape[:kept_dims]) + (-1,)).all(-1)


class _IndependentConstraint(Constraint):
    """`base_constraint` with its `reinterpreted_batch_ndims` rightmost dims made event dims."""

    def __init__(self, base_constraint, reinterpreted_batch_ndims):
        _require_constraint(base_constraint)
        ndims = reinterpreted_batch_ndims
        if not isinstance(ndims, int):
            raise AssertionError(
                f"reinterpreted_batch_ndims must be an int, got {type(ndims).__name__}")
        if ndims < 0:
            raise AssertionError(f"reinterpreted_batch_ndims must be >= 0, got {ndims}")
        self.base_constraint, self.reinterpreted_batch_ndims = base_constraint, ndims
        super().__init__()

    is_discrete = property(lambda self: self.base_constraint.is_discrete)
    event_dim = property(
        lambda self: self.base_constraint.event_dim + self.reinterpreted_batch_ndims)

    def check(self, value):
        inner = self.base_constraint.check(value)
        ndims = self.reinterpreted_batch_ndims
        if inner.dim() < ndims:
            raise ValueError(f"Expected value.dim() >= {self.base_constraint.event_dim + ndims}"
                             f" but got {value.dim()}")
        return _fold_events(inner, inner.dim() - ndims)

    def __repr__(self):
        return (f"{type(self).__name__[1:]}({self.base_constraint!r}, "
                f"{self.reinterpreted_batch_ndims})")


independent = _IndependentConstraint


class MixtureSameFamilyConstraint(Constraint):
    """The component distribution's support, checked with the mixture's component dim."""

    def __init__(self, base_constraint):
        _require_constraint(base_constraint)
        self.base_constraint = base_constraint
        super().__init__()

    is_discrete = property(lambda self: self.base_constraint.is_discrete)
    event_dim = property(lambda self: self.base_constraint.event_dim)

    def check(self, value):
        # A sample has no component dim: put one back so it broadcasts against the
        # components, then require every component's support to hold.
        per_component = self.base_constraint.check(value.unsqueeze(-1 - self.event_dim))
        if value.dim() < self.event_dim:
            raise ValueError(f"Expected value.dim() >= {self.event_dim} but got {value.dim()}")
        return _fold_events(per_component, value.dim() - self.event_dim)

    def __repr__(self):
        return f"{type(self).__name__}({self.base_constraint!r})"


# ---- discrete sets

class _Boolean(Constraint):
    is_discrete = True

    def check(self, value):
        return (value == 1) | (value == 0)


boolean = _Boolean()


class _OneHot(Constraint):
    is_discrete = True
    event_dim = 1

    def check(self, value):
        zeros_and_ones = ((value == 1) | (value == 0)).all(-1)
        return zeros_and_ones & (value.sum(-1) == 1)


one_hot = _OneHot()


# ---- sets with bounds: the bounds are stored under PyTorch's attribute names

class _Bounded(Constraint):
    """Bounds given positionally in the order of `_bounds`; repr `Name(lower_bound=..)`."""

    _bounds = ("lower_bound", "upper_bound")

    def __init__(self, *bounds):
        for name, bound in zip(self._bounds, bounds, strict=True):
            setattr(self, name, bound)
        super().__init__()

    def __repr__(self):
        shown = ", ".join(f"{name}={getattr(self, name)}" for name in self._bounds)
        return f"{type(self).__name__[1:]}({shown})"


def _whole(value):
    return value % 1 == 0


class _IntegerInterval(_Bounded):
    is_discrete = True

    def check(self, value):
        return _whole(value) & (value >= self.lower_bound) & (value <= self.upper_bound)


integer_interval = _IntegerInterval


class _IntegerLessThan(_Bounded):
    is_discrete = True
    _bounds = ("upper_bound",)

    def check(self, value):
        return _whole(value) & (value <= self.upper_bound)


class _IntegerGreaterThan(_Bounded):
    is_discrete = True
    _bounds = ("lower_bound",)

    def check(self, value):
        return _whole(value) & (value >= self.lower_bound)


nonnegative_integer = _IntegerGreaterThan(0)
positive_integer = _IntegerGreaterThan(1)


class _Real(Constraint):
    def check(self, value):
        return value == value  # False exactly at NaN


real = _Real()
real_vector = independent(real, 1)


class _GreaterThan(_Bounded):
    _bounds = ("lower_bound",)

    def check(self, value):
        return value > self.lower_bound


class _GreaterThanEq(_GreaterThan):
    def check(self, value):
        return value >= self.lower_bound


class _LessThan(_Bounded):
    _bounds = ("upper_bound",)

    def check(self, value):
        return value < self.upper_bound


greater_than, greater_than_eq, less_than = _GreaterThan, _GreaterThanEq, _LessThan
positive, nonnegative = _GreaterThan(0.0), _GreaterThanEq(0.0)


class _Interval(_Bounded):
    def check(self, value):
        return (value >= self.lower_bound) & (value <= self.upper_bound)


class _HalfOpenInterval(_Bounded):
    def check(self, value):
        return (value >= self.lower_bound) & (value < self.upper_bound)


interval, half_open_interval = _Interval, _HalfOpenInterval
unit_interval = _Interval(0.0, 1.0)


# ---- vectors

class _Simplex(Constraint):
    """Nonnegative entries summing to one (within 1e-6) along the last dimension."""

    event_dim = 1

    def check(self, value):
        return (value >= 0).all(-1) & ((value.sum(-1) - 1).abs() < 1e-6)


simplex = _Simplex()


class _Multinomial(_Bounded):
    """Nonnegative counts whose total is at most `upper_bound` (the trial count)."""

    is_discrete = True
    event_dim = 1
    _bounds = ("upper_bound",)
    __repr__ = Constraint.__repr__

    def check(self, x):
        return (x >= 0).all(-1) & (x.sum(-1) <= self.upper_bound)


multinomial = _Multinomial


# ---- matrices (event_dim 2)

class _Matrix(Constraint):
    event_dim = 2


def _lower(value):
    return _fold_events(value.tril() == value, value.dim() - 2)


class _LowerTriangular(_Matrix):
    def check(self, value):
        return _lower(value)


class _LowerCholesky(_Matrix):
    """Lower triangular with a positive diagonal."""

    def check(self, value):
        return _lower(value) & (value.diagonal(dim1=-2, dim2=-1) > 0).all(-1)


class _CorrCholesky(_Matrix):
    """Cholesky factor of a correlation matrix: lower Cholesky with unit-norm rows."""

    def check(self, value):
        tolerance = finfo(value.dtype).eps * value.size(-1) * 10
        row_norms = _linalg.norm(value.detach(), dim=-1)
        unit_rows = ((row_norms - 1.0).abs() <= tolerance).all(-1)
        return lower_cholesky.check(value) & unit_rows


lower_triangular, lower_cholesky, corr_cholesky = (
    _LowerTriangular(), _LowerCholesky(), _CorrCholesky())


class _Square(_Matrix):
    def check(self, value):
        answer = value.shape[-2] == value.shape[-1]
        return full(tuple(value.shape[:-2]), answer, dtype=_bool, device=value.device)


class _Symmetric(_Square):
    # Each refinement runs only when every matrix passed the coarser check, as PyTorch.
    def check(self, value):
        coarser = _Square.check(self, value)
        if not coarser.all():
            return coarser
        return value.isclose(value.mT, atol=1e-6).all(-2).all(-1)


class _PositiveSemidefinite(_Symmetric):
    def check(self, value):
        coarser = _Symmetric.check(self, value)
        if not coarser.all():
            return coarser
        return (_linalg.eigvalsh(value) >= 0).all(-1)


class _PositiveDefinite(_Symmetric):
    def check(self, value):
        coarser = _Symmetric.check(self, value)
        if not coarser.all():
            return coarser
        return _linalg.cholesky_ex(value).info == 0


square, symmetric = _Square(), _Symmetric()
positive_semidefinite, positive_definite = _PositiveSemidefinite(), _PositiveDefinite()


# ---- constraints per slice of a dimension

class _Joined(Constraint):
    """Shared part of cat and stack: a sequence of constraints along `dim`."""

    def __init__(self, cseq, dim):
        if not all(isinstance(c, Constraint) for c in cseq):
            raise AssertionError("All elements of cseq must be Constraint instances")
        self.cseq, self.dim = list(cseq), dim
        super().__init__()

    @property
    def is_discrete(self):
        return any(part.is_discrete for part in self.cseq)

    def _check_dim(self, value):
        if not -value.dim() <= self.dim < value.dim():
            raise AssertionError(
                f"dim {self.dim} out of range for value with {value.dim()} dimensions")


class _Cat(_Joined):
    """Constraints applied to consecutive slices (of `lengths`) of `value` along `dim`."""

    def __init__(self, cseq, dim=0, lengths=None):
        super().__init__(cseq, dim)
        self.lengths = [1] * len(self.cseq) if lengths is None else list(lengths)
        if len(self.lengths) != len(self.cseq):
            raise AssertionError(
                f"lengths ({len(self.lengths)}) must match cseq ({len(self.cseq)})")

    @property
    def event_dim(self):
        return max(part.event_dim for part in self.cseq)

    def check(self, value):
        self._check_dim(value)
        answers, offset = [], 0
        for part, length in zip(self.cseq, self.lengths):
            answers.append(part.check(value.narrow(self.dim, offset, length)))
            offset += length
        return _cat_tensors(answers, self.dim)


class _Stack(_Joined):
    """Constraints applied to the successive entries of `value` along `dim`."""

    def __init__(self, cseq, dim=0):
        super().__init__(cseq, dim)

    @property
    def event_dim(self):
        inner = max(part.event_dim for part in self.cseq)
        return inner + 1 if self.dim + inner < 0 else inner

    def check(self, value):
        self._check_dim(value)
        answers = [part.check(value.select(self.dim, i)) for i, part in enumerate(self.cseq)]
        return _stack_tensors(answers, self.dim)


cat, stack = _Cat, _Stack
