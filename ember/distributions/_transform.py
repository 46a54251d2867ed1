"""The Transform base and the transforms that combine other transforms.

A transform is a map y = f(x) between two constrained spaces with log|det J| of f, so a
density can be carried through it (TransformedDistribution). The concrete maps (exp,
affine, sigmoid, ...) live in `transforms.py`; this module holds what they share:

* a one-entry cache of the last (x, y) pair, consulted from either side;
* the inverse, built lazily and held weakly (f holds f^-1 weakly, f^-1 holds f strongly,
  so `t.inv.inv is t` without a reference cycle keeping both alive);
* `with_cache` done once: a transform with constructor arguments lists them in `_spec`,
  and the base rebuilds it from them;
* the combinators: composition, independence, reshape, and block-wise cat/stack.
"""
import functools
import operator
import weakref

from .._size import Size
from ..ops.joining import cat, stack
from . import constraints
from .utils import _sum_rightmost

__all__ = ["Transform", "ComposeTransform", "IndependentTransform", "ReshapeTransform",
           "CatTransform", "StackTransform", "identity_transform"]

_TOO_FEW_DIMS = "Too few dimensions on input"


class Transform:
    """A map between constrained spaces with an optional cache of its last (x, y) pair.

    Why the cache: a sample y = f(x) is often scored right after it is drawn, and for
    maps whose inverse is unstable (sigmoid near 0 or 1) handing back the original x is
    cheaper and exact. `cache_size` is 0 (off) or 1, as in PyTorch.
    """

    bijective = False

    def __init__(self, cache_size=0):
        if cache_size not in (0, 1):
            raise ValueError("cache_size must be 0 or 1")
        self._cache_size = cache_size
        if cache_size:
            self._cached_x_y = (None, None)
        self._inv = None

    def __getstate__(self):
        # a weak reference cannot be pickled; the inverse is rebuilt on demand
        return {**self.__dict__, "_inv": None}

    # ---- the cache, shared by both directions
    def _through_cache(self, value, side, compute):
        if not self._cache_size:
            return compute(value)
        remembered = self._cached_x_y
        if remembered[side] is value:
            return remembered[1 - side]
        result = compute(value)
        self._cached_x_y = (value, result) if side == 0 else (result, value)
        return result

    def __call__(self, x):
        return self._through_cache(x, 0, self._call)

    def _inv_call(self, y):
        return self._through_cache(y, 1, self._inverse)

    # ---- what a subclass provides
    def _call(self, x):
        raise NotImplementedError

    def _inverse(self, y):
        raise NotImplementedError

    def log_abs_det_jacobian(self, x, y):
        raise NotImplementedError

    def forward_shape(self, shape):
        return shape

    def inverse_shape(self, shape):
        return shape

    _spec = None  # a method returning the constructor's arguments, where it takes any

    # ---- derived behaviour
    @property
    def event_dim(self):
        if self.domain.event_dim != self.codomain.event_dim:
            raise ValueError("Please use either .domain.event_dim or .codomain.event_dim")
        return self.domain.event_dim

    @property
    def sign(self):
        raise NotImplementedError

    @property
    def inv(self):
        """f^-1 as a transform; the same object while anyone holds it."""
        held = None if self._inv is None else self._inv()
        if held is None:
            held = self._make_inverse()
            self._inv = weakref.ref(held)
        return held

    def _make_inverse(self):
        return _InverseTransform(self)

    def with_cache(self, cache_size=1):
        if cache_size == self._cache_size:
            return self
        if type(self).__init__ is Transform.__init__:
            return type(self)(cache_size=cache_size)
        if self._spec is None:
            raise NotImplementedError(f"{type(self)}.with_cache is not implemented")
        return type(self)(*self._spec(), cache_size=cache_size)

    def __eq__(self, other):
        return other is self

    def __ne__(self, other):
        return not self == other

    def __repr__(self):
        return f"{type(self).__name__}()"


class _InverseTransform(Transform):
    """f^-1 seen as a transform: every question is answered by f with the roles swapped."""

    def __init__(self, transform):
        super().__init__(transform._cache_size)
        self._inv = transform

    domain = property(lambda self: self._inv.codomain)
    codomain = property(lambda self: self._inv.domain)
    bijective = property(lambda self: self._inv.bijective)
    sign = property(lambda self: self._inv.sign)
    inv = property(lambda self: self._inv)

    def with_cache(self, cache_size=1):
        return self._inv.with_cache(cache_size).inv

    def __eq__(self, other):
        return isinstance(other, _InverseTransform) and other._inv == self._inv

    def __repr__(self):
        return f"{type(self).__name__}({self._inv!r})"

    def __call__(self, x):
        return self._inv._inv_call(x)

    def log_abs_det_jacobian(self, x, y):
        # log|d f^-1/dy| at y is minus log|df/dx| at x = f^-1(y)
        return -self._inv.log_abs_det_jacobian(y, x)

    def forward_shape(self, shape):
        return self._inv.inverse_shape(shape)

    def inverse_shape(self, shape):
        return self._inv.forward_shape(shape)


def _widened(parts, outer, forward):
    """The constraint at one end of a chain, with as many event dims as the chain needs.

    Walking from the far end, each part may turn event dims into batch dims or back; the
    constraint at `outer` must cover the largest count met on the way.
    """
    steps = parts if forward else parts[::-1]
    near = (lambda p: p.domain) if forward else (lambda p: p.codomain)
    far = (lambda p: p.codomain) if forward else (lambda p: p.domain)
    dims = near(steps[0]).event_dim
    for part in steps:
        dims = max(dims + far(part).event_dim - near(part).event_dim, far(part).event_dim)
    extra = dims - outer.event_dim
    return constraints.independent(outer, extra) if extra > 0 else outer


class ComposeTransform(Transform):
    """parts applied left to right: y = parts[-1](...parts[0](x))."""

    def __init__(self, parts, cache_size=0):
        self.parts = [p.with_cache(cache_size) for p in parts] if cache_size else parts
        super().__init__(cache_size)

    def _spec(self):
        return (self.parts,)

    def __eq__(self, other):
        return isinstance(other, ComposeTransform) and other.parts == self.parts

    @property
    def domain(self):
        if not self.parts:
            return constraints.real
        return _widened(self.parts, self.parts[0].domain, forward=False)

    @property
    def codomain(self):
        if not self.parts:
            return constraints.real
        return _widened(self.parts, self.parts[-1].codomain, forward=True)

    @functools.cached_property
    def bijective(self):
        return all(p.bijective for p in self.parts)

    @functools.cached_property
    def sign(self):
        return functools.reduce(operator.mul, (p.sign for p in self.parts), 1)

    def _make_inverse(self):
        backwards = ComposeTransform([p.inv for p in self.parts[::-1]])
        backwards._inv = weakref.ref(self)
        return backwards

    def __call__(self, x):
        return functools.reduce(lambda value, part: part(value), self.parts, x)

    def log_abs_det_jacobian(self, x, y):
        if not self.parts:
            return x.new_zeros(x.shape)
        # the intermediate points; the parts' caches make these free after a forward pass
        points = [x]
        for part in self.parts[:-1]:
            points.append(part(points[-1]))
        points.append(y)
        dims = self.domain.event_dim
        terms = []
        for i, part in enumerate(self.parts):
            term = part.log_abs_det_jacobian(points[i], points[i + 1])
            terms.append(_sum_rightmost(term, dims - part.domain.event_dim))
            dims += part.codomain.event_dim - part.domain.event_dim
        return functools.reduce(operator.add, terms)

    def forward_shape(self, shape):
        return functools.reduce(lambda s, part: part.forward_shape(s), self.parts, shape)

    def inverse_shape(self, shape):
        return functools.reduce(lambda s, part: part.inverse_shape(s), self.parts[::-1],
                                shape)

    def __repr__(self):
        lines = ",\n".join("    " + repr(p) for p in self.parts)
        return f"{type(self).__name__}(\n{lines or '    '}\n)"


identity_transform = ComposeTransform([])


def _check_dims(value, needed):
    if value.dim() < needed:
        raise ValueError(_TOO_FEW_DIMS)
    return value


class IndependentTransform(Transform):
    """A transform whose `reinterpreted_batch_ndims` rightmost batch dims count as event dims."""

    def __init__(self, base_transform, reinterpreted_batch_ndims, cache_size=0):
        self.base_transform = base_transform.with_cache(cache_size)
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims
        super().__init__(cache_size)

    def _spec(self):
        return self.base_transform, self.reinterpreted_batch_ndims

    @property
    def domain(self):
        return constraints.independent(self.base_transform.domain,
                                       self.reinterpreted_batch_ndims)

    @property
    def codomain(self):
        return constraints.independent(self.base_transform.codomain,
                                       self.reinterpreted_batch_ndims)

    bijective = property(lambda self: self.base_transform.bijective)
    sign = property(lambda self: self.base_transform.sign)

    def _call(self, x):
        return self.base_transform(_check_dims(x, self.domain.event_dim))

    def _inverse(self, y):
        return self.base_transform.inv(_check_dims(y, self.codomain.event_dim))

    def log_abs_det_jacobian(self, x, y):
        inner = self.base_transform.log_abs_det_jacobian(x, y)
        return _sum_rightmost(inner, self.reinterpreted_batch_ndims)

    def forward_shape(self, shape):
        return self.base_transform.forward_shape(shape)

    def inverse_shape(self, shape):
        return self.base_transform.inverse_shape(shape)

    def __repr__(self):
        return f"{type(self).__name__}({self.base_transform!r}, {self.reinterpreted_batch_ndims})"


def _replace_tail(shape, old, new):
    """shape[:-len(old)] + new, after checking that shape ends with `old`."""
    if len(shape) < len(old):
        raise ValueError(_TOO_FEW_DIMS)
    keep = len(shape) - len(old)
    if shape[keep:] != old:
        raise ValueError(f"Shape mismatch: expected {shape[keep:]} but got {old}")
    return shape[:keep] + new


class ReshapeTransform(Transform):
    """The rightmost event dims reshaped from `in_shape` to `out_shape`; volume preserving."""

    bijective = True

    def __init__(self, in_shape, out_shape, cache_size=0):
        self.in_shape, self.out_shape = Size(in_shape), Size(out_shape)
        if self.out_shape.numel() != self.in_shape.numel():
            raise ValueError("in_shape, out_shape have different numbers of elements")
        super().__init__(cache_size)

    def _spec(self):
        return self.in_shape, self.out_shape

    domain = property(lambda self: constraints.independent(constraints.real,
                                                           len(self.in_shape)))
    codomain = property(lambda self: constraints.independent(constraints.real,
                                                             len(self.out_shape)))

    @staticmethod
    def _lead(value, event):
        return tuple(value.shape[:value.dim() - len(event)])

    def _call(self, x):
        return x.reshape(self._lead(x, self.in_shape) + tuple(self.out_shape))

    def _inverse(self, y):
        return y.reshape(self._lead(y, self.out_shape) + tuple(self.in_shape))

    def log_abs_det_jacobian(self, x, y):
        return x.new_zeros(self._lead(x, self.in_shape))

    def forward_shape(self, shape):
        return _replace_tail(shape, self.in_shape, self.out_shape)

    def inverse_shape(self, shape):
        return _replace_tail(shape, self.out_shape, self.in_shape)


class _Blockwise(Transform):
    """Shared by CatTransform and StackTransform: one transform per block along `dim`."""

    def __init__(self, tseq, dim, cache_size):
        assert all(isinstance(t, Transform) for t in tseq)
        self.transforms = [t.with_cache(cache_size) for t in tseq] if cache_size else list(tseq)
        self.dim = dim
        super().__init__(cache_size)

    @property
    def bijective(self):
        return all(t.bijective for t in self.transforms)

    @property
    def domain(self):
        return self._joined([t.domain for t in self.transforms])

    @property
    def codomain(self):
        return self._joined([t.codomain for t in self.transforms])

    def _call(self, x):
        return self._apply(x, lambda t, block: t(block))

    def _inverse(self, y):
        return self._apply(y, lambda t, block: t.inv(block))


class CatTransform(_Blockwise):
    """transforms[i] on consecutive pieces (of lengths[i]) along `dim`, concatenated.

    Lets one vector carry differently constrained blocks, e.g. a location and a scale.
    """

    def __init__(self, tseq, dim=0, lengths=None, cache_size=0):
        super().__init__(tseq, dim, cache_size)
        self.lengths = list(lengths) if lengths is not None else [1] * len(self.transforms)
        assert len(self.lengths) == len(self.transforms)

    def _spec(self):
        return self.transforms, self.dim, self.lengths

    @functools.cached_property
    def event_dim(self):
        return max(t.event_dim for t in self.transforms)

    @functools.cached_property
    def length(self):
        return sum(self.lengths)

    def _joined(self, parts):
        return constraints.cat(parts, self.dim, self.lengths)

    def _blocks(self, value):
        assert -value.dim() <= self.dim < value.dim()
        assert value.size(self.dim) == self.length
        offsets = [0]
        for size in self.lengths:
            offsets.append(offsets[-1] + size)
        return [value.narrow(self.dim, start, size)
                for start, size in zip(offsets, self.lengths)]

    def _apply(self, value, fn):
        return cat([fn(t, b) for t, b in zip(self.transforms, self._blocks(value))], self.dim)

    def log_abs_det_jacobian(self, x, y):
        terms = []
        for t, xb, yb in zip(self.transforms, self._blocks(x), self._blocks(y)):
            terms.append(_sum_rightmost(t.log_abs_det_jacobian(xb, yb),
                                        self.event_dim - t.event_dim))
        # where the cat dim is still a batch dim the pieces are joined; otherwise summed
        negative_dim = self.dim - x.dim() if self.dim >= 0 else self.dim
        where = negative_dim + self.event_dim
        return cat(terms, dim=where) if where < 0 else functools.reduce(operator.add, terms)


class StackTransform(_Blockwise):
    """transforms[i] on the i-th slice along `dim`, the results stacked back."""

    def __init__(self, tseq, dim=0, cache_size=0):
        super().__init__(tseq, dim, cache_size)

    def _spec(self):
        return self.transforms, self.dim

    def _joined(self, parts):
        return constraints.stack(parts, self.dim)

    def _slices(self, value):
        assert -value.dim() <= self.dim < value.dim()
        assert value.size(self.dim) == len(self.transforms)
        return [value.select(self.dim, i) for i in range(value.size(self.dim))]

    def _apply(self, value, fn):
        return stack([fn(t, s) for t, s in zip(self.transforms, self._slices(value))],
                     dim=self.dim)

    def log_abs_det_jacobian(self, x, y):
        pairs = zip(self.transforms, self._slices(x), self._slices(y))
        return stack([t.log_abs_det_jacobian(a, b) for t, a, b in pairs], dim=self.dim)
