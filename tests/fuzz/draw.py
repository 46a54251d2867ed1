"""Draw one call for a catalog entry: arguments chosen by parameter name.

The first tensor fixes a context (shape, dtype); later parameters are drawn relative
to it (a `dim` within its rank, an `other` that broadcasts with it, an `index` within
its sizes), so most calls are valid and a drawn few are not. One call in eight swaps
one argument for a bad value (None, a string, an object, an out-of-range int).
"""
import dataclasses
import math

import numpy as np
from hypothesis import strategies as st

from .inputs import (DTYPES, FLOATS, BAD_VALUES, DtypeSpec, TensorSpec, broadcast_partner,
                     python_scalars, shapes, tensors)


@dataclasses.dataclass
class Call:
    args: list
    kwargs: dict

    def __repr__(self):
        parts = [repr(a) for a in self.args] + [f"{k}={v!r}" for k, v in self.kwargs.items()]
        return f"({', '.join(parts)})"


@dataclasses.dataclass
class Ctx:
    shape: tuple
    dtype: str
    name: str

    @property
    def ndim(self):
        return len(self.shape)


PRIMARY = {"input", "self", "tensor", "x1", "input1", "mat", "mat1", "batch1", "a", "data",
           "A", "mean"}
OPERAND = {"other", "y", "end", "x", "input2", "x2", "tensor1", "tensor2", "exponent", "b",
           "tensor2", "weight_operand", "std", "target", "src", "values", "fill_value", "s"}
BOOLS = {"keepdim", "descending", "stable", "sorted", "return_inverse", "return_counts",
         "as_tuple", "equal_nan", "replacement", "accumulate", "inplace", "ceil_mode",
         "count_include_pad", "align_corners", "log_target", "training", "return_indices",
         "largest", "upper", "unbiased", "requires_grad", "bias_bool", "affine",
         "track_running_stats", "elementwise_affine", "batch_first", "bidirectional", "full",
         "hard", "some", "right", "use_input_stats", "scale_grad_by_freq", "sparse"}
DIMS = {"dim", "dim0", "dim1", "dim2", "start_dim", "end_dim", "axis0", "axis1", "dimension",
        "axis"}
SMALL_INTS = {"k", "chunks", "n", "m", "steps", "num_samples", "groups", "num_classes",
              "diagonal", "offset", "row", "col", "high", "length", "start", "step",
              "storage_offset", "kernel_size", "stride", "padding", "dilation", "output_size",
              "output_padding", "num_groups", "padding_idx", "ignore_index", "correction",
              "repeats", "ord", "shifts", "split_size_or_sections", "indices_or_sections",
              "upscale_factor", "downscale_factor", "divisor_override", "size_int"}
FLOAT_PARAMS = {"alpha", "beta", "eps", "p", "lambd", "threshold", "min_val", "max_val",
                "delta", "label_smoothing", "momentum", "negative_slope", "margin", "rtol",
                "atol", "nan", "posinf", "neginf", "base", "beta_", "init", "value",
                "scale_factor", "norm_type", "max_norm", "min", "max", "lower", "sigma", "tau",
                "from_", "to", "median", "float_value", "approximate_float"}


def _dim(draw, ctx, allow_none=False):
    nd = max(ctx.ndim, 1)
    choice = draw(st.integers(0, 9))
    if choice == 0:
        return draw(st.sampled_from((-nd - 1, nd, 100)))          # out of range
    if allow_none and choice == 1:
        return None
    if allow_none and choice == 2 and ctx.ndim:
        return tuple(draw(st.lists(st.integers(-nd, nd - 1), min_size=0, max_size=nd,
                                   unique=True)))
    return draw(st.integers(-nd, nd - 1))


def _shape_like(draw, ctx):
    """A target shape: the same numel (reshape/view), an expansion, or any shape."""
    numel = math.prod(ctx.shape)
    kind = draw(st.integers(0, 3))
    if kind == 0 and numel:
        out = []
        rest = numel
        while rest > 1 and len(out) < 4:
            divisors = [d for d in range(2, rest + 1) if rest % d == 0]
            d = draw(st.sampled_from(divisors))
            out.append(d)
            rest //= d
        if out and draw(st.booleans()):
            out[draw(st.integers(0, len(out) - 1))] = -1
        return tuple(out)
    if kind == 1:
        return tuple(draw(st.sampled_from((s, -1, 3))) if s == 1 else
                     draw(st.sampled_from((s, -1))) for s in ctx.shape)
    if kind == 2:
        return (2,) + tuple(ctx.shape)
    return draw(shapes(0, 3, 0, 3))


def _operand(draw, ctx, scalar_ok=True):
    """A second operand: a broadcastable tensor (maybe of another dtype) or a scalar."""
    choice = draw(st.integers(0, 9))
    if scalar_ok and choice < 3:
        return draw(python_scalars())
    dtype = ctx.dtype if choice < 7 else draw(st.sampled_from(DTYPES))
    shape = () if choice == 9 else broadcast_partner(draw, ctx.shape)
    return draw(tensors(shape, dtype))


def _index(draw, ctx, one_dim):
    """An int64 index tensor, mostly within the context's smallest size."""
    limit = min(ctx.shape) if ctx.shape else 1
    high = max(limit, 1) + (1 if draw(st.integers(0, 7)) == 0 else 0)
    low = -limit if draw(st.booleans()) else 0
    if one_dim:
        shape = (draw(st.integers(0, 4)),)
    else:
        shape = tuple(draw(st.integers(0, max(s, 0))) for s in ctx.shape)
    spec = draw(tensors(shape, "int64", special=False, grad=False))
    size = spec.array.size
    values = draw(st.lists(st.integers(min(low, high - 1), high - 1), min_size=size,
                           max_size=size))
    spec.array = spec.array.copy()
    spec.array.flat[:] = values
    return spec


def _tensor_list(draw, ctx):
    """Tensors for cat/stack-like calls: same shape, one dim varying, a stray dtype."""
    count = draw(st.integers(1, 3))
    out = []
    vary = draw(st.integers(0, max(ctx.ndim - 1, 0)))
    for _ in range(count):
        shape = list(ctx.shape)
        if ctx.ndim and draw(st.booleans()):
            shape[vary] = draw(st.integers(0, 3))
        dtype = ctx.dtype if draw(st.integers(0, 4)) else draw(st.sampled_from(DTYPES))
        out.append(draw(tensors(tuple(shape), dtype)))
    return out


def _dims_tuple(draw, ctx):
    nd = max(ctx.ndim, 1)
    if draw(st.integers(0, 6)) == 0:
        return tuple(draw(st.lists(st.integers(-nd - 1, nd), max_size=nd + 1)))
    return tuple(draw(st.permutations(range(ctx.ndim))))


def draw_param(draw, pname, ctx, entry):
    """A value for parameter `pname` of `entry`, consistent with the context."""
    name = entry.base
    if pname in ("dtype", "out_dtype"):
        return None if draw(st.integers(0, 3)) == 0 else DtypeSpec(draw(st.sampled_from(DTYPES)))
    if pname in ("type1", "type2", "from_") and name in ("promote_types", "can_cast"):
        return DtypeSpec(draw(st.sampled_from(DTYPES)))
    if pname == "to" and name == "can_cast":
        return DtypeSpec(draw(st.sampled_from(DTYPES)))
    if pname in ("tensors", "*tensors", "*operands") or (pname == "indices" and
                                                         name == "index_put"):
        if pname == "indices":
            return tuple(_index(draw, ctx, True) for _ in range(draw(st.integers(1, 2))))
        return _tensor_list(draw, ctx)
    if pname in ("size", "shape", "sizes", "*size", "reps", "dims", "repeats") and \
            name not in ("interpolate", "local_response_norm", "unfold", "size", "flip",
                         "roll", "rot90", "tensordot"):
        if name in ("permute",) or pname == "dims" and name == "permute":
            return _dims_tuple(draw, ctx)
        if name == "unflatten":
            return tuple(draw(st.sampled_from(((-1,), (1, -1), (2, -1), (-1, 1), (3,)))))
        return _shape_like(draw, ctx)
    if pname == "dims":
        if name == "permute":
            return _dims_tuple(draw, ctx)
        return draw(st.one_of(st.integers(-2, 2), st.lists(st.integers(-2, 2), max_size=2)
                              .map(tuple)))
    if pname == "index" and name == "select":
        return draw(st.integers(-4, 4))
    if pname == "index":
        return _index(draw, ctx, name in ("index_select", "index_add", "index_fill",
                                          "index_copy"))
    if pname in ("mask", "condition"):
        spec = draw(tensors(broadcast_partner(draw, ctx.shape), "bool", layouts=True,
                            grad=False))
        return spec if draw(st.integers(0, 9)) else draw(tensors(ctx.shape, "uint8"))
    if pname in PRIMARY or pname == "tensor":
        dtype = ctx.dtype if draw(st.integers(0, 4)) else draw(st.sampled_from(DTYPES))
        return draw(tensors(ctx.shape, dtype))
    if pname in ("mat2", "vec", "vec2", "batch2", "other") and name in (
            "mm", "bmm", "matmul", "mv", "dot", "vdot", "inner", "outer", "ger", "addmm",
            "addmv", "baddbmm", "tensordot", "__matmul__", "__rmatmul__", "__imatmul__"):
        k = ctx.shape[-1] if ctx.shape and draw(st.integers(0, 5)) else draw(st.integers(0, 3))
        shape = {"vec": (k,), "vec2": (draw(st.integers(0, 3)),),
                 "batch2": ((ctx.shape[0] if ctx.shape else 1), k, draw(st.integers(0, 3)))}.get(
            pname, (k, draw(st.integers(0, 3))) if draw(st.booleans()) else (k,))
        return draw(tensors(shape, ctx.dtype))
    if pname == "source" and name in ("movedim", "moveaxis"):
        return _dim(draw, ctx)
    if pname == "destination":
        return _dim(draw, ctx)
    if pname == "source":
        return draw(tensors(draw(shapes(0, 2, 0, 5)), ctx.dtype))
    if pname == "weight" and name == "lerp":
        return _operand(draw, ctx)
    if pname in ("weight", "bias", "running_mean", "running_var", "pos_weight"):
        if draw(st.integers(0, 4)) == 0 and pname != "weight":
            return None
        return draw(tensors(_weight_shape(draw, pname, ctx), ctx.dtype, special=False,
                            grad=False))
    if pname in OPERAND or pname in ("min", "max") and name in ("clamp", "clip", "clamp_min",
                                                                  "clamp_max"):
        if pname in ("min", "max") and draw(st.integers(0, 4)) == 0:
            return None
        return _operand(draw, ctx)
    if pname in DIMS:
        return _dim(draw, ctx, allow_none=pname == "dim" and name not in (
            "softmax", "log_softmax", "softmin", "cumsum", "cumprod", "cummax", "cummin",
            "select", "narrow", "unbind", "unsqueeze", "gather", "scatter", "index_select"))
    if pname in BOOLS:
        return draw(st.booleans())
    if pname == "rounding_mode":
        return draw(st.sampled_from((None, "trunc", "floor", "bad")))
    if pname == "reduction":
        return draw(st.sampled_from(("mean", "sum", "none", "bad")))
    if pname in ("mode", "padding_mode", "approximate", "nonlinearity"):
        return draw(st.sampled_from(("constant", "reflect", "replicate", "circular", "zeros",
                                     "nearest", "linear", "bilinear", "none", "tanh", "bad")))
    if pname == "pad":
        return tuple(draw(st.lists(st.integers(-1, 2), min_size=0, max_size=4)))
    if pname == "equation":
        return draw(st.sampled_from(("i->", "ij->ji", "ij,j->i", "...,...->...", "ii->i", "ij",
                                     "i,i->", "bij,bjk->bik", "->")))
    if pname == "normalized_shape":
        return tuple(ctx.shape[-1:])
    if pname in ("*shapes",):
        return [broadcast_partner(draw, ctx.shape) for _ in range(draw(st.integers(0, 3)))]
    if pname == "stride" and name in ("as_strided", "empty_strided"):
        return tuple(draw(st.integers(0, 3)) for _ in range(draw(st.integers(0, 3))))
    if pname in SMALL_INTS or pname in ("size",):
        if draw(st.integers(0, 9)) == 0:
            return draw(st.sampled_from((-1, 0, 2**40)))
        return draw(st.integers(0, 4)) if draw(st.integers(0, 5)) else \
            tuple(draw(st.lists(st.integers(0, 3), min_size=1, max_size=3)))
    if pname in FLOAT_PARAMS:
        if draw(st.integers(0, 5)) == 0:
            return draw(python_scalars())
        return draw(st.sampled_from((0.0, 0.5, 1.0, 2.0, -1.0, 1e-5, 3)))
    if pname == "start" or pname == "end":
        return draw(python_scalars())
    return draw(_fallback(ctx))


def _weight_shape(draw, pname, ctx):
    """The shape a weight-like parameter of nn.functional needs against the input."""
    shape, name = ctx.shape, ctx.name
    channels = shape[1] if len(shape) >= 2 else (shape[0] if shape else 1)
    out = draw(st.integers(1, 3))
    if draw(st.integers(0, 7)) == 0:
        return draw(shapes(0, 3, 0, 3))            # a wrong shape now and then
    if name.startswith("conv"):
        if pname == "bias":
            return (out,)
        kernel = tuple(draw(st.integers(1, 2)) for _ in range(max(len(shape) - 2, 1)))
        return ((channels, out) if "transpose" in name else (out, channels)) + kernel
    if name == "linear":
        return (out, shape[-1] if shape else 1) if pname == "weight" else (out,)
    if name == "bilinear":
        return (out, shape[-1] if shape else 1, 2) if pname == "weight" else (out,)
    if name == "layer_norm":
        return tuple(shape[-1:])
    if name in ("binary_cross_entropy", "binary_cross_entropy_with_logits"):
        return broadcast_partner(draw, shape)
    return (channels,)


def _fallback(ctx):
    """Unknown parameter: a tensor of the context shape or a small number."""
    return st.one_of(tensors(ctx.shape, ctx.dtype), st.integers(-2, 3), st.just(1.5))


# names whose primary tensor has a natural rank; pooling/conv `Nd` gets N + 2 dims
def _rank_hint(entry):
    name = entry.base
    for suffix, rank in (("1d", 3), ("2d", 4), ("3d", 5)):
        if name.endswith(suffix):
            return rank
    if name in ("mm", "addmm", "t", "trace", "tril", "triu", "diag_embed", "mv", "addmv",
                "linear", "cross_entropy", "nll_loss"):
        return 2
    if name in ("bmm", "baddbmm"):
        return 3
    return None


@st.composite
def calls(draw, entry):
    """One call of `entry`: a Call with specs (materialised later in each library)."""
    rank = _rank_hint(entry)
    if rank is not None and draw(st.integers(0, 3)):
        shape = draw(shapes(rank, rank, 1, 4))
    else:
        shape = draw(shapes())
    ctx = Ctx(shape, draw(st.sampled_from(DTYPES)), entry.base)
    if draw(st.integers(0, 2)) == 0:
        ctx.dtype = draw(st.sampled_from(FLOATS[2:]))
    args, kwargs = [], {}
    params = list(entry.params)
    positional = True
    for i, (pname, required) in enumerate(params):
        star = pname.startswith("*")
        if not required and not star and draw(st.booleans()):
            positional = False
            continue
        if i == 0 and (pname in PRIMARY or entry.kind in ("method", "property")):
            value = draw(tensors(ctx.shape, ctx.dtype))
        else:
            value = draw_param(draw, pname.lstrip("*"), ctx, entry)
        if star:
            args.extend(value if isinstance(value, list) else [value])
        elif required and positional or not required and positional and draw(st.booleans()):
            args.append(value)
        else:
            positional = False
            kwargs[pname] = value
    if draw(st.integers(0, 7)) == 0 and (args or kwargs):
        _spoil(draw, args, kwargs, ctx)
    return Call(args, kwargs)


def _spoil(draw, args, kwargs, ctx):
    """Replace one argument (not the receiver) with a bad value."""
    slots = [("arg", i) for i in range(1, len(args))] + [("kw", k) for k in kwargs]
    if not slots:
        slots = [("arg", 0)]
    where, key = draw(st.sampled_from(slots))
    bad = draw(st.sampled_from(BAD_VALUES + (TensorSpec(np.zeros((5, 7)), ctx.dtype),)))
    if where == "arg":
        args[key] = bad
    else:
        kwargs[key] = bad
