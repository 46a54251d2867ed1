"""Random sampling: rand/randn/randint/randperm/normal/bernoulli/multinomial and Tensor.*_().

Every draw goes through a `Generator` (`ember/_random.py`; the default one
unless `generator=` is given), always on the CPU, then moves to the target
device. Sampling is not differentiable: where PyTorch records a node (normal
with tensor arguments, in-place sampling on a non-leaf) it passes back zeros,
and we do the same under the same node names.
"""
import math

from .. import _dtype, _errors, _random
from .._backend import allocate, numpy as _np
from .._device import CPU as _CPU, META as _META, _defaults, resolve as _resolve_device
from .._meta import meta_array as _meta_array
from .._random import (Generator, default_generator, get_rng_state, in_memory_order,
                       initial_seed, manual_seed, seed, set_rng_state)
from ..autograd.graph import Node
from ._common import (Tensor, attach, check_leaf_write, check_no_overlap, grad_state, inplace,
                      make_tensor)
from ._data import LIMITS, check_out
from ._elementwise import NotImplementedBackward
from .creation import _C_TYPE_NAMES, empty_like, finish, size_arg, to_device, zeros
from .ranges import _NOT_IMPLEMENTED_NAMES as _SCALAR_NAMES

__all__ = ["Generator", "default_generator", "manual_seed", "seed", "initial_seed",
           "get_rng_state", "set_rng_state", "rand", "randn", "randint", "randperm", "normal",
           "bernoulli", "multinomial", "rand_like", "randn_like", "randint_like"]

_FLOATING = _dtype.FLOATING
_C_NAMES = {"bool": "bool", "uint8": "unsigned char", "int8": "signed char",
            "int16": "short int", "int32": "int", "int64": "long int", "float16": "c10::Half",
            "bfloat16": "c10::BFloat16", "float32": "float", "float64": "double",
            "uint16": "short unsigned int", "uint32": "unsigned int", "uint64": "long unsigned int"}
_P_RANGE_ERROR = ("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error "
                  "message be improved?  If so, please report an enhancement request to "
                  "PyTorch.)")
_resolve_generator = _random.resolve
_F32, _F64 = _np.dtype(_np.float32), _np.dtype(_np.float64)
_NDARRAY = _np.ndarray


def _fmt(x):
    """A double the way C++ streams print it in PyTorch's messages: six significant
    digits (-1.0 as -1, 2**31 as 2.14748e+09)."""
    x = float(x)
    return "-nan" if x != x and math.copysign(1.0, x) < 0 else f"{x:g}"


def _require_floating(dtype, kernel):
    if dtype.category != _FLOATING:
        raise NotImplementedError(f"\"{kernel}\" not implemented for "
                                  f"'{_SCALAR_NAMES[dtype.name]}'")


def _float_dtype(dtype):
    return _dtype._defaults.float_dtype if dtype is None else dtype


class _ZeroGradient(Node):
    """Sampling has no gradient: PyTorch's nodes pass zeros back to each input."""

    __slots__ = ("inputs",)

    def record(self, out, *inputs):
        self.inputs = [(x.shape, x.dtype, x.device) for x in inputs]
        return attach(out, self, *inputs)

    def backward(self, grad):
        return tuple(None if edge[0] is None else zeros(shape, dtype=dtype, device=device)
                     for edge, (shape, dtype, device) in zip(self.next_functions, self.inputs))


# ================================================================ factories
def rand(*args, size=None, generator=None, out=None, dtype=None, layout=None,
         device=None, pin_memory=False, requires_grad=False):
    """Uniform samples in [0, 1)."""
    if (args and size is None and generator is None and out is None and dtype is None
            and device is None and not requires_grad and _defaults.device is _CPU):
        shape = _plain_shape(args)
        if shape is not None:        # rand(8) or rand(2, 3): around the set-up below
            values = allocate(default_generator._draw_uniform, shape,
                              _dtype._defaults.float_dtype.np_dtype)
            return finish(values, _CPU, False)
    check_out(out, "rand")
    shape = size_arg(args, "rand", size)
    dtype = _float_dtype(dtype)
    _require_floating(dtype, "check_uniform_bounds")
    dev = _resolve_device(device)
    values = _drawn(dev, _resolve_generator(generator)._draw_uniform, shape, dtype.np_dtype)
    return finish(to_device(values, dev), dev, requires_grad)


def randn(*args, size=None, generator=None, out=None, dtype=None, layout=None,
          device=None, pin_memory=False, requires_grad=False):
    """Standard normal samples."""
    if (args and size is None and generator is None and out is None and dtype is None
            and device is None and not requires_grad and _defaults.device is _CPU):
        # the common call, randn(8) or randn(2, 3): a lean path around the set-up below
        np_dtype = _dtype._defaults.float_dtype.np_dtype
        first = args[0]
        if (len(args) == 1 and first.__class__ is int and 0 < first < 16
                and (np_dtype == _F32 or np_dtype == _F64)):
            # randn(8): the scalar path's Python floats straight into the array
            return make_tensor(_np.array(default_generator._few_normals(first), np_dtype))
        shape = _plain_shape(args)
        if shape is not None:
            values = allocate(default_generator._draw_normal, shape, np_dtype)
            return finish(values, _CPU, False)
    check_out(out, "randn")
    shape = size_arg(args, "randn", size)
    dtype = _float_dtype(dtype)
    _require_floating(dtype, "normal_kernel_cpu")
    dev = _resolve_device(device)
    values = _drawn(dev, _resolve_generator(generator)._draw_normal, shape, dtype.np_dtype)
    return finish(to_device(values, dev), dev, requires_grad)


def _plain_shape(args):
    """The shape `args` give as plain ints (8 / 2, 3 / (2, 3)), or None for anything else."""
    shape = args if args[0].__class__ is int or len(args) > 1 else args[0]
    if shape.__class__ is tuple and all(s.__class__ is int and s >= 0 for s in shape):
        return shape
    return None


def _fill_plain(self, generator):
    """Whether an in-place sampler may write its draw straight into self's array: the
    default generator, a contiguous CPU array, no autograd or inference-mode bookkeeping
    (the general path, `_sample_` through `inplace`, handles every other case)."""
    data = self._data
    return (generator is None and not self._requires_grad and self._extras is None
            and self._device is _CPU and data.__class__ is _NDARRAY and data.flags.c_contiguous
            and data.flags.writeable)


def _drawn(device, draw, shape, np_dtype):
    """`draw`'s samples, or for the meta device none: no memory, and the generator does
    not advance (as in PyTorch, a model built on meta leaves the seed's sequence intact)."""
    if device is _META:
        return _meta_array(shape, np_dtype)
    return allocate(draw, shape, np_dtype)


def _check_int_bounds(low, high, dtype):
    """PyTorch's random_ checks: from < to, and both representable in `dtype`."""
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} "
                           f">= to={high}")
    low_min, high_max = LIMITS[dtype]
    if not low_min <= low <= high_max:
        raise RuntimeError(f"from is out of bounds for {_C_NAMES[dtype.name]}")
    if not low_min <= high - 1 <= high_max:
        raise RuntimeError(f"to - 1 is out of bounds for {_C_NAMES[dtype.name]}")


def _int_arg(x, name, args):
    if isinstance(x, int) and not isinstance(x, bool):
        return x
    if hasattr(x, "__index__") and not isinstance(x, (bool, float)):
        return x.__index__()
    got = ", ".join(type(a).__name__ for a in args)
    raise TypeError(f"{name}() received an invalid combination of arguments - got ({got}), but "
                    "expected one of:\n * (int high, tuple of ints size, *, ember.Generator "
                    "generator, ember.dtype dtype = None, ...)\n * (int low, int high, tuple of "
                    "ints size, *, ember.Generator generator, ember.dtype dtype = None, ...)\n")


def randint(*args, size=None, low=None, high=None, generator=None, out=None, dtype=None,
            layout=None, device=None, pin_memory=False, requires_grad=False):
    """Integers uniform in [low, high): `randint(high, size)` or `randint(low, high, size)`."""
    check_out(out, "randint")
    positional = list(args)
    if size is None:
        if not positional:
            raise TypeError("randint() missing required argument 'size'")
        size = positional.pop()
        if not isinstance(size, (list, tuple)):
            raise TypeError(f"randint(): argument 'size' (position {len(args)}) must be tuple "
                            f"of ints, not {type(size).__name__}")
    if len(positional) == 2:
        low, high = positional
    elif len(positional) == 1:
        if high is None:
            high = positional[0]
        else:
            low = positional[0]
    elif positional:
        raise TypeError(f"randint() takes from 2 to 3 positional arguments but {len(args)} were "
                        "given")
    if high is None:
        raise TypeError("randint() missing required argument 'high'")
    low = 0 if low is None else _int_arg(low, "randint", args)
    high = _int_arg(high, "randint", args)
    shape = size_arg((size,), "randint")
    dtype = dtype or _dtype.int64
    _check_int_bounds(low, high, dtype)
    dev = _resolve_device(device)
    gen = _resolve_generator(generator)
    values = _drawn(dev, lambda size, np_dtype: gen._draw_integers(low, high, size), shape,
                    dtype.np_dtype)
    return finish(to_device(values.astype(dtype.np_dtype), dev), dev, requires_grad)


def randperm(n, *, generator=None, out=None, dtype=None, layout=None, device=None,
             pin_memory=False, requires_grad=False):
    """A random permutation of 0..n-1."""
    check_out(out, "randperm")
    n = size_arg((n,), "randperm")[0]
    dtype = dtype or _dtype.int64
    if dtype is _dtype.bool:
        raise NotImplementedError("\"randperm\" not implemented for 'Bool'")
    limit = LIMITS[dtype][1]
    if n - 1 > limit:
        raise RuntimeError(f"value cannot be converted to type {_C_TYPE_NAMES[dtype.name]} "
                           "without overflow")
    dev = _resolve_device(device)
    gen = _resolve_generator(generator)
    values = _drawn(dev, lambda size, np_dtype: gen._draw_permutation(n), (n,), dtype.np_dtype)
    return finish(to_device(values.astype(dtype.np_dtype), dev), dev, requires_grad)


def _fill_like(input, draw, dtype, device, requires_grad, memory_format):
    """`empty_like(input)` filled by `draw(shape, contiguous)` in its memory order, as
    PyTorch fills the new tensor in place (a transposed layout is not contiguous)."""
    out = empty_like(input, dtype=dtype, device=device, memory_format=memory_format)
    out._data[...] = to_device(in_memory_order(out._data, draw), out._device)
    out._requires_grad = bool(requires_grad)
    return out


def rand_like(input, *, generator=None, dtype=None, layout=None, device=None,
              requires_grad=False, memory_format=None):
    dtype = dtype or input.dtype
    _require_floating(dtype, "check_uniform_bounds")
    gen = _resolve_generator(generator)
    return _fill_like(input, lambda shape, contiguous: gen._draw_uniform(shape, dtype.np_dtype),
                      dtype, device, requires_grad, memory_format)


def randn_like(input, *, generator=None, dtype=None, layout=None, device=None,
               requires_grad=False, memory_format=None):
    dtype = dtype or input.dtype
    _require_floating(dtype, "normal_kernel_cpu")
    gen = _resolve_generator(generator)
    return _fill_like(input, lambda shape, contiguous: gen._draw_normal(
        shape, dtype.np_dtype, contiguous=contiguous), dtype, device, requires_grad,
        memory_format)


def randint_like(input, low=0, high=None, *, generator=None, dtype=None, layout=None,
                 device=None, requires_grad=False, memory_format=None):
    """`randint_like(x, high)` or `randint_like(x, low, high)`, with x's dtype by default."""
    if high is None:
        low, high = 0, low
    dtype = dtype or input.dtype
    randint(low, high, (0,), dtype=dtype, requires_grad=requires_grad)   # validates
    gen = _resolve_generator(generator)
    return _fill_like(input, lambda shape, contiguous: gen._draw_integers(low, high, shape).astype(
        dtype.np_dtype), dtype, device, requires_grad, memory_format)


# ================================================================ normal
def normal(mean, std=1.0, size=None, *, generator=None, out=None, dtype=None, layout=None,
           device=None, pin_memory=False, requires_grad=False):
    """Normal samples; mean and std may each be a tensor (broadcast) or a number."""
    check_out(out, "normal")
    gen = _resolve_generator(generator)
    mean_is_tensor, std_is_tensor = isinstance(mean, Tensor), isinstance(std, Tensor)
    if not mean_is_tensor and not std_is_tensor:
        if size is None:
            raise TypeError(f"normal() received an invalid combination of arguments - got "
                            f"({type(mean).__name__}, {type(std).__name__}), but expected one "
                            "of:\n * (Tensor mean, Tensor std)\n * (Tensor mean, float std = 1)"
                            "\n * (float mean, Tensor std)\n * (float mean, float std, tuple of "
                            "ints size)\n")
        _check_std(std)
        shape = size_arg((size,), "normal")
        dtype = _float_dtype(dtype)
        dev = _resolve_device(device)
        _require_floating(dtype, "normal_kernel_cpu")
        values = gen._draw_normal(shape, dtype.np_dtype, mean, std)
        return finish(to_device(values, dev), dev, requires_grad)
    if mean_is_tensor and std_is_tensor:
        return _normal_tensors(mean, std, gen)
    tensor_arg = mean if mean_is_tensor else std
    dtype = tensor_arg.dtype
    _require_floating(dtype, "normal_kernel_cpu")
    if std_is_tensor:
        _check_std_tensor(std)
    else:
        _check_std(std)
    # PyTorch: normal_(0, std) then add_(mean); or normal_(0, 1), mul_(std), add_(mean).
    np_dtype = dtype.np_dtype
    if mean_is_tensor:
        values = gen._draw_normal(mean.shape, np_dtype, 0.0, std) + _host(mean)
    else:
        values = gen._draw_normal(std.shape, np_dtype) * _host(std) + np_dtype.type(mean)
    out = make_tensor(to_device(values.astype(np_dtype, copy=False), tensor_arg._device),
                      tensor_arg._device)
    if grad_state.enabled and tensor_arg._requires_grad:
        node = NormalBackward1() if mean_is_tensor else NormalBackward2()
        node.record(out, tensor_arg)
    return out


class NormalBackward1(_ZeroGradient):
    __slots__ = ()


class NormalBackward2(_ZeroGradient):
    __slots__ = ()


def _normal_tensors(mean, std, gen):
    """normal(Tensor, Tensor): normal_(0, 1) in mean's dtype, then mul_(std), add_(mean)."""
    dtype = mean.dtype
    _require_floating(_dtype.promote_types(mean.dtype, std.dtype), "normal_kernel_cpu")
    _require_floating(dtype, "normal_kernel_cpu")
    message = _errors.broadcast_mismatch(mean.shape, std.shape)
    if message:
        raise RuntimeError(message)
    _check_std_tensor(std)
    shape = _np.broadcast_shapes(mean.shape, std.shape)
    np_dtype = dtype.np_dtype
    values = _inplace_arith(gen._draw_normal(shape, np_dtype), _host(std), _np.multiply)
    values = _inplace_arith(values, _host(mean), _np.add)
    out = make_tensor(to_device(values, mean._device), mean._device)
    if grad_state.enabled and (mean._requires_grad or std._requires_grad):
        NormalBackward3().record(out, mean, std)
    return out


class NormalBackward3(_ZeroGradient):
    __slots__ = ()


def _host(tensor):
    """A tensor's values as a NumPy array (sampling happens on the CPU)."""
    data = tensor._data
    return data.get() if tensor._device.type != "cpu" else data


def _inplace_arith(values, other, ufunc):
    """`values.op_(other)`: computed in the promoted dtype, stored in values' dtype."""
    common = _dtype.promote_types(_dtype.FROM_NUMPY[values.dtype],
                                  _dtype.FROM_NUMPY[other.dtype]).np_dtype
    return ufunc(values.astype(common, copy=False), other.astype(common, copy=False)).astype(
        values.dtype, copy=False)


def _check_std(std):
    if not std >= 0:    # NaN too
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_fmt(std)}")


def _check_std_tensor(std):
    if std._data.size and (std._data < 0).any():
        raise RuntimeError("normal expects all elements of std >= 0.0")


# ================================================================ bernoulli / multinomial
def bernoulli(input, p=None, *, generator=None, out=None):
    """0/1 samples with probability `input` (or a fixed `p`), in input's dtype."""
    check_out(out, "bernoulli")
    gen = _resolve_generator(generator)
    if p is not None:
        _check_p(p)
        values = _sample_like(input, lambda shape, contiguous: gen._draw_bernoulli(shape, p))
        out_p = make_tensor(to_device(values.astype(input._data.dtype), input._device),
                            input._device)
        if grad_state.enabled and input._requires_grad:   # PyTorch has no formula for it
            attach(out_p, NotImplementedBackward("bernoulli"), input)
        return out_p
    _require_floating(input.dtype, "bernoulli_tensor_cpu_p_")
    probabilities = _host(input)
    if probabilities.size and ((probabilities < 0) | (probabilities > 1)).any():
        raise RuntimeError(_P_RANGE_ERROR)
    values = _sample_like(input, _bernoulli_tensor_draw(gen, input.dtype), probabilities)
    out_t = make_tensor(to_device(values.astype(probabilities.dtype), input._device),
                        input._device)
    if grad_state.enabled and input._requires_grad:
        BernoulliBackward0().record(out_t, input)
    return out_t


class BernoulliBackward0(_ZeroGradient):
    __slots__ = ()


def _sample_like(input, draw, *operands):
    """Samples for `empty_like(input)`, drawn in its memory order (see `in_memory_order`)."""
    return in_memory_order(empty_like(input)._data, draw, *operands)


def _bernoulli_tensor_draw(gen, p_dtype):
    """PyTorch compares a double uniform with a double p, a float uniform with any other."""
    double = p_dtype is _dtype.float64
    return lambda shape, contiguous, p: gen._draw_bernoulli(shape, p, double)


def _check_p(p):
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_fmt(p)}")


def multinomial(input, num_samples, replacement=False, *, generator=None, out=None):
    """Category indices drawn from each row of (unnormalised) probabilities."""
    check_out(out, "multinomial")
    if input.dim() not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if not input.is_floating_point():
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: "
                           f"{_SCALAR_NAMES[input.dtype.name]}")
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    categories = input.shape[-1]
    if not replacement and num_samples > categories:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without "
                           "replacement")
    weights = _host(input)
    checked = weights.astype(_np.float64)
    if weights.size:
        if not _np.isfinite(checked).all() or (checked < 0).any():
            raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
        if (checked.sum(axis=-1) <= 0).any():
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    gen = _resolve_generator(generator)
    layout = empty_like(input)._data.reshape(-1, categories) if weights.size else None
    indices = gen._draw_multinomial(weights.reshape(-1, categories), num_samples, replacement,
                                    layout)
    indices = indices.astype(_np.int64).reshape(input.shape[:-1] + (num_samples,))
    return make_tensor(to_device(indices, input._device), input._device)


# ================================================================ in-place sampling
def _sample_(self, draw, node_type, *inputs, operands=()):
    """Fill self with `draw(shape, contiguous, *operands)`, through `_common.inplace`.

    Values are drawn in self's memory order, as PyTorch's kernels visit it (see
    `in_memory_order`); `operands` are arrays broadcast to self's shape that the
    draw reads (bernoulli's p). The draw happens inside the op, after inplace has
    validated, so a refused call does not advance the generator.
    """
    layout = self._data
    check_no_overlap(layout)  # here, so that a refused expand draws nothing

    def op(source, *args):
        values = in_memory_order(layout, draw, *operands)
        out = make_tensor(to_device(values.astype(source._data.dtype, copy=False),
                                    source._device), source._device)
        if grad_state.enabled and (source._requires_grad or any(x._requires_grad for x in args)):
            node_type().record(out, source, *args)
        return out
    return inplace(self, op, *inputs)


def uniform_(self, from_=0, to=1, *, generator=None):
    """Fill with samples uniform in [from_, to)."""
    check_leaf_write(self)
    _require_floating(self.dtype, "check_uniform_bounds")
    from_, to = float(from_), float(to)
    limit = LIMITS[self.dtype][1]
    if not -limit <= from_ <= limit:
        raise RuntimeError(f"from is out of bounds for {_C_NAMES[self.dtype.name]}")
    if not -limit <= to <= limit:
        raise RuntimeError(f"to is out of bounds for {_C_NAMES[self.dtype.name]}")
    if from_ > to:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found "
                           f"from={_fmt(from_)} > to={_fmt(to)}")
    if to - from_ > limit:
        raise RuntimeError(f"uniform_ expects to-from <= std::numeric_limits<"
                           f"{_SCALAR_NAMES[self.dtype.name]}>::max(), but found to={to:g} and "
                           f"from={from_:g} which result in to-from to exceed the limit")
    np_dtype = self._data.dtype
    if _fill_plain(self, generator):
        self._data[...] = default_generator._draw_uniform(self._data.shape, np_dtype, from_, to)
        self._storage.version += 1
        return self
    gen = _resolve_generator(generator)
    return _sample_(self, lambda shape, contiguous: gen._draw_uniform(shape, np_dtype, from_, to),
                    UniformBackward0)


class UniformBackward0(_ZeroGradient):
    __slots__ = ()


def normal_(self, mean=0, std=1, *, generator=None):
    """Fill with normal samples."""
    check_leaf_write(self)
    _check_std(std)
    if self._data.size == 0:    # PyTorch returns before its kernel checks the dtype
        return self
    _require_floating(self.dtype, "normal_kernel_cpu")
    np_dtype = self._data.dtype
    if _fill_plain(self, generator):
        self._data[...] = default_generator._draw_normal(self._data.shape, np_dtype, mean, std)
        self._storage.version += 1
        return self
    gen = _resolve_generator(generator)
    return _sample_(self, lambda shape, contiguous: gen._draw_normal(
        shape, np_dtype, mean, std, contiguous), NormalBackward0)


class NormalBackward0(_ZeroGradient):
    __slots__ = ()


def random_(self, *args, generator=None, **kwargs):
    """Integers: `random_()` over the dtype's exact range, `random_(to)`, `random_(from, to)`."""
    if "from" in kwargs:
        args = (kwargs.pop("from"),) + args
    if "to" in kwargs and (args or kwargs["to"] is not None):  # a lone to=None is refused
        args = (args[0] if args else 0, kwargs.pop("to"))
    if kwargs or len(args) > 2:
        raise TypeError(f"random_() received an invalid combination of arguments - got "
                        f"({', '.join(f'{k}={type(v).__name__}' for k, v in kwargs.items())}), "
                        "but expected one of:\n * (*, ember.Generator generator = None)\n"
                        " * (int from, int to, *, ember.Generator generator = None)\n"
                        " * (int to, *, ember.Generator generator = None)\n")
    node_type = (RandomBackward2, RandomBackward1, RandomBackward0)[len(args)]
    check_leaf_write(self)
    gen = _resolve_generator(generator)
    if not args:
        # random_(): the dtype's whole exact range, 64-bit draws only for int64 and double.
        top = _random_top(self.dtype) + 1
        wide = self.dtype is _dtype.int64 or self.dtype is _dtype.float64
        return _sample_(self, lambda shape, contiguous: gen._draw_integers(0, top, shape, wide),
                        node_type)
    low, high = (0, args[0]) if len(args) == 1 else args
    if high is None:
        high = _random_top(self.dtype) + 1
        if low > high - 1:
            raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got "
                               f"from={low} >= to={high - 1}")
    else:
        _check_int_bounds(low, high, self.dtype)
    return _sample_(self, lambda shape, contiguous: gen._draw_integers(low, high, shape),
                    node_type)


def _random_top(dtype):
    """The largest value random_() draws: every integer below it is exact in `dtype`."""
    if dtype.category == _FLOATING:
        digits = {"float16": 11, "bfloat16": 8, "float32": 24, "float64": 53}[dtype.name]
        return 1 << digits
    if dtype is _dtype.bool:
        return 1
    return LIMITS[dtype][1]


class RandomBackward0(_ZeroGradient):
    __slots__ = ()


class RandomBackward1(_ZeroGradient):
    __slots__ = ()


class RandomBackward2(_ZeroGradient):
    __slots__ = ()


def _overlap_checked_empty(self):
    """Whether self is empty, after refusing an expanded self: exponential_, log_normal_
    and geometric_ check overlap, then return an empty tensor before their kernel's dtype
    check (so an empty integer tensor passes)."""
    check_no_overlap(self._data)
    return self._data.size == 0


def exponential_(self, lambd=1, *, generator=None):
    """Fill with Exponential(lambd) samples."""
    check_leaf_write(self)
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={_fmt(lambd)}")
    if _overlap_checked_empty(self):
        return self
    if self.dtype.category != _FLOATING:
        raise RuntimeError(f"Exponential distribution is a continuous probability distribution. "
                           f"dtype must be a floating point but you specified "
                           f"{_SCALAR_NAMES[self.dtype.name]}")
    gen = _resolve_generator(generator)
    np_dtype = self._data.dtype
    return _sample_(self, lambda shape, contiguous: gen._draw_exponential(shape, np_dtype, lambd),
                    ExponentialBackward0)


class ExponentialBackward0(_ZeroGradient):
    __slots__ = ()


def geometric_(self, p, *, generator=None):
    """Fill with the number of Bernoulli(p) trials up to the first success."""
    check_leaf_write(self)
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={_fmt(p)}")
    if _overlap_checked_empty(self):
        return self
    if self.dtype is _dtype.bool:
        raise NotImplementedError("\"geometric_cpu\" not implemented for 'Bool'")
    gen = _resolve_generator(generator)
    np_dtype = self._data.dtype
    return _sample_(self, lambda shape, contiguous: gen._draw_geometric(shape, np_dtype, p),
                    GeometricBackward0)


class GeometricBackward0(_ZeroGradient):
    __slots__ = ()


def log_normal_(self, mean=1, std=2, *, generator=None):
    """Fill with exp(Normal(mean, std)) samples."""
    check_leaf_write(self)
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={_fmt(std)}")
    if _overlap_checked_empty(self):
        return self
    _require_floating(self.dtype, "log_normal_cpu")
    gen = _resolve_generator(generator)
    np_dtype = self._data.dtype
    return _sample_(self, lambda shape, contiguous: gen._draw_log_normal(shape, np_dtype, mean,
                                                                         std),
                    LogNormalBackward0)


class LogNormalBackward0(_ZeroGradient):
    __slots__ = ()


def cauchy_(self, median=0, sigma=1, *, generator=None):
    """Fill with Cauchy(median, sigma) samples."""
    check_leaf_write(self)
    if not sigma > 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={_fmt(sigma)}")
    if self.dtype.category != _FLOATING:
        raise RuntimeError(f"Cauchy distribution is a continuous probability distribution. "
                           f"dtype must be a floating point but you specified "
                           f"{_C_NAMES[self.dtype.name]}")
    gen = _resolve_generator(generator)
    np_dtype = self._data.dtype
    return _sample_(self, lambda shape, contiguous: gen._draw_cauchy(shape, np_dtype, median,
                                                                     sigma),
                    CauchyBackward0)


class CauchyBackward0(_ZeroGradient):
    __slots__ = ()


def bernoulli_(self, p=0.5, *, generator=None):
    """Fill with 0/1 samples: probability `p`, a number or a tensor broadcast to self."""
    check_leaf_write(self)
    gen = _resolve_generator(generator)
    shape = self.shape
    if isinstance(p, Tensor):
        probabilities = _host(p)
        if probabilities.size and ((probabilities < 0) | (probabilities > 1)).any():
            raise RuntimeError(_P_RANGE_ERROR)
        try:
            probabilities = _np.broadcast_to(probabilities, shape)
        except ValueError:
            raise RuntimeError(f"expand(ember.{p.dtype.tensor_type}{{{list(p.shape)}}}, "
                               f"size={list(shape)}): the number of sizes provided "
                               f"({len(shape)}) must be greater or equal to the number of "
                               f"dimensions in the tensor ({p.dim()})") from None
        return _sample_(self, _bernoulli_tensor_draw(gen, p.dtype), BernoulliBackward1, p,
                        operands=(probabilities,))
    _check_p(p)
    if _fill_plain(self, generator):     # dropout's mask: straight into the array
        self._data[...] = gen._draw_bernoulli(self._data.shape, p)
        self._storage.version += 1
        return self
    return _sample_(self, lambda shape, contiguous: gen._draw_bernoulli(shape, p),
                    BernoulliBackward2)


class BernoulliBackward1(_ZeroGradient):
    __slots__ = ()


class BernoulliBackward2(_ZeroGradient):
    __slots__ = ()
