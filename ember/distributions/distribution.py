"""The Distribution base: shapes, validation, and the interface every distribution fills in.

A distribution has a `batch_shape` (independent distributions side by side, from its
parameters' broadcast shape) and an `event_shape` (one draw's shape: () for scalars,
(k,) for a categorical's one-hot vector). `sample(sample_shape)` returns
`sample_shape + batch_shape + event_shape`; `log_prob(value)` reduces the event dims.

Validation follows PyTorch: on by default (off under `python -O`, as `assert` is), it
checks every parameter against `arg_constraints` when the distribution is built and
every scored value against `support`, raising ValueError with PyTorch's text.
"""
import warnings
from numbers import Number

from .._size import Size
from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from . import constraints
from .utils import broadcast_all, lazy_property

__all__ = ["Distribution"]


def _abstract(message=None):
    """What an interface member a distribution does not provide does: refuse."""
    if message is None:
        raise NotImplementedError
    raise NotImplementedError(message)


class Distribution:
    """Abstract base class for probability distributions."""

    has_rsample = False
    has_enumerate_support = False
    _validate_args = __debug__

    @staticmethod
    def set_default_validate_args(value):
        """Turn argument/sample validation on or off for every distribution."""
        if value not in (True, False):
            raise ValueError
        Distribution._validate_args = value

    def __init__(self, batch_shape=Size(), event_shape=Size(), validate_args=None):
        self._batch_shape, self._event_shape = batch_shape, event_shape
        if validate_args is not None:
            self._validate_args = validate_args  # this instance's own setting
        if self._validate_args:
            self._validate_parameters()
        super().__init__()

    def _validate_parameters(self):
        try:
            checked = self.arg_constraints
        except NotImplementedError:
            checked = {}
            warnings.warn(f"{self.__class__} does not define `arg_constraints`. Please set "
                          "`arg_constraints = {}` or initialize the distribution with "
                          "`validate_args=False` to turn off validation.", stacklevel=3)
        for param, constraint in checked.items():
            # A parameter derived lazily (logits from probs) was not given: nothing to check.
            derived = param not in self.__dict__ and isinstance(getattr(type(self), param),
                                                                lazy_property)
            if derived or constraints.is_dependent(constraint):
                continue
            value = getattr(self, param)
            if not constraint.check(value).all():
                raise ValueError(f"Expected parameter {param} ({type(value).__name__} of shape "
                                 f"{tuple(value.shape)}) of distribution {self!r} to satisfy "
                                 f"the constraint {constraint!r}, but found invalid "
                                 f"values:\n{value}")

    # What `expand` expands: a distribution lists the attributes it is built from (parameter
    # tensors, inner distributions) in `_expanded`, and in `_shared` any it shares as is.
    _expanded = None
    _shared = ()

    def expand(self, batch_shape, _instance=None):
        """A new distribution with parameters expanded (not copied) to `batch_shape`.

        Tensors keep their trailing non-batch dims; inner distributions are expanded in
        turn. Validation is not repeated: the parameters were checked when first built.
        """
        owner = next(c for c in type(self).__mro__ if "_expanded" in c.__dict__)
        if owner._expanded is None:
            _abstract()
        new = self._get_checked_instance(owner, _instance)
        batch_shape = Size(batch_shape)
        kept = len(self._batch_shape)
        for name in owner._expanded:
            part = self.__dict__.get(name)
            if isinstance(part, Distribution):
                setattr(new, name, part.expand(batch_shape))
            elif part is not None:
                setattr(new, name, part.expand(batch_shape + part.shape[kept:]))
        for name in owner._shared:
            setattr(new, name, self.__dict__[name])
        Distribution.__init__(new, batch_shape, self._event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    batch_shape = property(lambda self: self._batch_shape, doc="Shape of the parameter batch.")
    event_shape = property(lambda self: self._event_shape, doc="Shape of one draw.")

    @property
    def arg_constraints(self):
        """{parameter name: Constraint} for the parameters validation checks."""
        _abstract()

    @property
    def support(self):
        """The Constraint every sample satisfies."""
        _abstract()

    @property
    def mean(self):
        _abstract()

    @property
    def mode(self):
        _abstract(f"{self.__class__} does not implement mode")

    @property
    def variance(self):
        _abstract()

    @property
    def stddev(self):
        return self.variance.sqrt()

    def sample(self, sample_shape=Size()):
        """Draws without a graph; the reparameterised draw where one exists."""
        with no_grad():
            draws = self.rsample(sample_shape)
        return draws

    def rsample(self, sample_shape=Size()):
        """Draws that stay differentiable in the parameters (reparameterisation)."""
        _abstract()

    def sample_n(self, n):
        warnings.warn("`sample_n(n)` will be deprecated. Use `sample((n,))` instead.",
                      FutureWarning, stacklevel=2)
        return self.sample(Size((n,)))

    def log_prob(self, value):
        _abstract()

    def cdf(self, value):
        _abstract()

    def icdf(self, value):
        _abstract()

    def enumerate_support(self, expand=True):
        _abstract()

    def entropy(self):
        _abstract()

    def perplexity(self):
        return self.entropy().exp()

    # ---- helpers the distributions build on

    def _init_params(self, validate_args, event_shape=Size(), **params):
        """Broadcast the named parameters to one shape, store them, set the batch shape.

        Python numbers alone give a 0-dim batch; any tensor sets the broadcast shape.
        """
        values = broadcast_all(*params.values())
        for name, value in zip(params, values):
            setattr(self, name, value)
        if all(isinstance(v, Number) for v in params.values()):
            batch = Size()
        else:
            batch = values[0].size()
        Distribution.__init__(self, batch, event_shape, validate_args)

    def _check(self, value):
        """Validate a scored value when validation is on (log_prob, cdf, ...)."""
        if self._validate_args:
            self._validate_sample(value)

    def _extended_shape(self, sample_shape=Size()):
        """sample_shape + batch_shape + event_shape, the shape of `sample(sample_shape)`."""
        if not isinstance(sample_shape, Size):
            sample_shape = Size(sample_shape)
        return Size(sample_shape + self._batch_shape + self._event_shape)

    def _validate_sample(self, value):
        """Refuse a value whose trailing shape or entries cannot come from this distribution."""
        if not isinstance(value, Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")  # any method
        shape = value.size()
        event_start = len(shape) - len(self._event_shape)
        if shape[event_start:] != self._event_shape:
            raise ValueError("The right-most size of value must match event_shape: "
                             f"{shape} vs {self._event_shape}.")
        expected = self._batch_shape + self._event_shape
        for got, want in zip(reversed(shape), reversed(expected)):
            if got != 1 and want != 1 and got != want:
                raise ValueError("Value is not broadcastable with batch_shape+event_shape: "
                                 f"{shape} vs {expected}.")
        try:
            support = self.support
        except NotImplementedError:
            warnings.warn(f"{self.__class__} does not define `support` to enable sample "
                          "validation. Please initialize the distribution with "
                          "`validate_args=False` to turn off validation.", stacklevel=2)
            return
        if support is None:
            raise AssertionError("support is unexpectedly None")  # a subclass bug
        if not support.check(value).all():
            raise ValueError(f"Expected value argument ({type(value).__name__} of shape "
                             f"{tuple(value.shape)}) to be within the support ({support!r}) "
                             f"of the distribution {self!r}, but found invalid "
                             f"values:\n{value}")

    def _get_checked_instance(self, cls, _instance=None):
        """A bare instance for `expand`; a subclass with its own __init__ must bring one."""
        if _instance is not None:
            return _instance
        if type(self).__init__ != cls.__init__:
            raise NotImplementedError(
                f"Subclass {self.__class__.__name__} of {cls.__name__} that defines a custom "
                "__init__ method must also define a custom .expand() method.")
        return type(self).__new__(type(self))

    def __repr__(self):
        # One-element parameters print their value, larger ones their size.
        shown = [name for name in self.arg_constraints if name in self.__dict__]
        parts = []
        for name in shown:
            value = self.__dict__[name]
            parts.append(f"{name}: {value if value.numel() == 1 else value.size()}")
        return f"{type(self).__name__}({', '.join(parts)})"
