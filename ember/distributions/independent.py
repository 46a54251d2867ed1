"""Independent: reread some batch dims of a distribution as event dims.

A batch of D independent Normals has batch_shape (D,) and one log_prob per coordinate;
`Independent(base, 1)` is the same law seen as one D-dimensional event, whose log_prob
is the sum over the coordinates (a diagonal multivariate Normal, for instance). Sampling
and the moments are the base's unchanged; only densities and entropy are summed.
"""
from .._size import Size
from . import constraints
from .distribution import Distribution
from .utils import _sum_rightmost

__all__ = ["Independent"]


def _from_base(name):
    return property(lambda self: getattr(self.base_dist, name))


class Independent(Distribution):
    """`reinterpreted_batch_ndims` rightmost batch dims of `base_distribution` become event dims."""

    arg_constraints = {}
    has_rsample = _from_base("has_rsample")
    mean = _from_base("mean")
    mode = _from_base("mode")
    variance = _from_base("variance")
    # draws are the base's draws; only their grouping into events changes
    sample = _from_base("sample")
    rsample = _from_base("rsample")

    def __init__(self, base_distribution, reinterpreted_batch_ndims, validate_args=None):
        available = len(base_distribution.batch_shape)
        if reinterpreted_batch_ndims > available:
            raise ValueError("Expected reinterpreted_batch_ndims <= len(base_distribution."
                             f"batch_shape), actual {reinterpreted_batch_ndims} vs {available}")
        full = base_distribution.batch_shape + base_distribution.event_shape
        split = len(full) - reinterpreted_batch_ndims - len(base_distribution.event_shape)
        self.base_dist, self.reinterpreted_batch_ndims = (base_distribution,
                                                          reinterpreted_batch_ndims)
        super().__init__(full[:split], full[split:], validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Independent, _instance)
        batch_shape = Size(batch_shape)
        moved = self.event_shape[:self.reinterpreted_batch_ndims]
        new.base_dist = self.base_dist.expand(batch_shape + moved)
        new.reinterpreted_batch_ndims = self.reinterpreted_batch_ndims
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def has_enumerate_support(self):
        # enumerating a product space would be exponential in the event size
        return not self.reinterpreted_batch_ndims and self.base_dist.has_enumerate_support

    @constraints.dependent_property
    def support(self):
        inner = self.base_dist.support
        if not self.reinterpreted_batch_ndims:
            return inner
        return constraints.independent(inner, self.reinterpreted_batch_ndims)


    def log_prob(self, value):
        """The base's log-densities summed over the reinterpreted dims (independence)."""
        return _sum_rightmost(self.base_dist.log_prob(value), self.reinterpreted_batch_ndims)

    def entropy(self):
        """Entropies of independent coordinates add up."""
        return _sum_rightmost(self.base_dist.entropy(), self.reinterpreted_batch_ndims)

    def enumerate_support(self, expand=True):
        if self.reinterpreted_batch_ndims > 0:
            raise NotImplementedError("Enumeration over cartesian product is not implemented")
        return self.base_dist.enumerate_support(expand)

    def __repr__(self):
        return f"{type(self).__name__}({self.base_dist}, {self.reinterpreted_batch_ndims})"
