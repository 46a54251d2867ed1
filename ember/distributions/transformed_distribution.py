"""TransformedDistribution: push a base distribution through a chain of transforms.

If X ~ base and Y = f(X) with f a bijection, then
    log p_Y(y) = log p_X(f^-1(y)) - log|det J_f(f^-1(y))|.
The chain's transforms may also change how many dims form one event (a reshape, a
stick-breaking map), so the shapes are worked out once here from forward_shape and the
domains' event dims, and each Jacobian term is summed over the event dims it lacks.
"""
import functools

from .._size import Size
from ..autograd.grad_mode import no_grad
from . import constraints
from ._transform import ComposeTransform, Transform
from .distribution import Distribution
from .independent import Independent
from .utils import _sum_rightmost

__all__ = ["TransformedDistribution"]


def _transform_list(transforms):
    """The user's `transforms` argument as a list, refused with PyTorch's texts otherwise."""
    if isinstance(transforms, Transform):
        return [transforms]
    if not isinstance(transforms, list):
        raise ValueError(f"transforms must be a Transform or list, but was {transforms}")
    if any(not isinstance(t, Transform) for t in transforms):
        raise ValueError("transforms must be a Transform or a list of Transforms")
    return transforms


def _from_base(name, depth=1):
    """A read-only property forwarding `name` to the base distribution, `depth` levels down.

    Subclasses such as LogNormal keep their parameters on the base (a Normal) only, so
    there is one copy to expand and validate.
    """
    def read(self):
        holder = self
        for _ in range(depth):
            holder = holder.base_dist
        return getattr(holder, name)
    return property(read)


def _expand_parameters(new, old, batch_shape, names):
    """Copy the named parameter tensors of `old` onto `new`, expanded to `batch_shape`."""
    for name in names:
        setattr(new, name, getattr(old, name).expand(batch_shape))
    return new


class TransformedDistribution(Distribution):
    """The law of transforms[-1](...transforms[0](X)) for X drawn from `base_distribution`."""

    arg_constraints = {}

    def __init__(self, base_distribution, transforms, validate_args=None):
        self.transforms = _transform_list(transforms)
        chain = ComposeTransform(self.transforms)
        base_event_dims = len(base_distribution.event_shape)
        base_shape = base_distribution.batch_shape + base_distribution.event_shape
        needed = chain.domain.event_dim
        if len(base_shape) < needed:
            raise ValueError(f"base_distribution needs to have shape with size at least "
                             f"{needed}, but got {base_shape}.")
        out_shape = chain.forward_shape(base_shape)
        # a transform with parameters may broadcast the base up to a larger batch
        wanted = chain.inverse_shape(out_shape)
        if wanted != base_shape:
            base_distribution = base_distribution.expand(wanted[:len(wanted) - base_event_dims])
        if needed > base_event_dims:
            base_distribution = Independent(base_distribution, needed - base_event_dims)
        self.base_dist = base_distribution
        growth = chain.codomain.event_dim - chain.domain.event_dim
        event_dims = max(chain.codomain.event_dim, base_event_dims + growth)
        assert len(out_shape) >= event_dims
        split = len(out_shape) - event_dims
        super().__init__(out_shape[:split], out_shape[split:], validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(TransformedDistribution, _instance)
        batch_shape = Size(batch_shape)
        base_shape = functools.reduce(lambda s, t: t.inverse_shape(s), self.transforms[::-1],
                                      batch_shape + self.event_shape)
        new.base_dist = self.base_dist.expand(
            base_shape[:len(base_shape) - len(self.base_dist.event_shape)])
        new.transforms = self.transforms
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    has_rsample = property(lambda self: self.base_dist.has_rsample)

    @constraints.dependent_property(is_discrete=False)
    def support(self):
        if not self.transforms:
            return self.base_dist.support
        last = self.transforms[-1].codomain
        extra = len(self.event_shape) - last.event_dim
        return constraints.independent(last, extra) if extra > 0 else last

    def _forward(self, x):
        return functools.reduce(lambda value, t: t(value), self.transforms, x)

    def sample(self, sample_shape=Size()):
        with no_grad():
            return self._forward(self.base_dist.sample(sample_shape))

    def rsample(self, sample_shape=Size()):
        return self._forward(self.base_dist.rsample(sample_shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        dims = len(self.event_shape)
        correction = 0.0
        y = value
        # walk back from the value to the base, collecting -log|J| of each step
        for step in self.transforms[::-1]:
            x = step.inv(y)
            dims += step.domain.event_dim - step.codomain.event_dim
            correction = correction - _sum_rightmost(step.log_abs_det_jacobian(x, y),
                                                     dims - step.domain.event_dim)
            y = x
        base_part = self.base_dist.log_prob(y)
        return correction + _sum_rightmost(base_part, dims - len(self.base_dist.event_shape))

    def _orient_cdf(self, value):
        """A decreasing chain turns the base CDF u into 1 - u."""
        sign = functools.reduce(lambda acc, t: acc * t.sign, self.transforms, 1)
        if isinstance(sign, int) and sign == 1:
            return value
        return sign * (value - 0.5) + 0.5

    def cdf(self, value):
        for step in self.transforms[::-1]:
            value = step.inv(value)
        if self._validate_args:
            self.base_dist._validate_sample(value)
        return self._orient_cdf(self.base_dist.cdf(value))

    def icdf(self, value):
        return self._forward(self.base_dist.icdf(self._orient_cdf(value)))
