"""Linear maps, dropout, embeddings and distances of nn.functional.

`linear` and `bilinear` decompose exactly as PyTorch's ATen does (addmm for a 2-D
input with bias, a flattened addmm for contiguous N-D inputs, matmul otherwise), so
grad_fn names and error texts are PyTorch's. Dropout draws its mask with
`bernoulli_` on ember's generator, so a seed gives the same mask on every run.
"""
import math
import warnings

from . import _autocast
from .. import _arguments, _backend, _compiled, _diagnose, _dtype, _errors
from ..autograd.grad_mode import no_grad
from ..autograd.graph import Node
from ._common import Tensor, attach, grad_state, inplace, make_tensor, wrap, wrap_dim
from .creation import empty, empty_like, zeros
from .einsum import einsum
from .linalg import addmm, matmul
from .pointwise import add, mul
from .pointwise_select import where
from .reduction import LinalgVectorNormBackward0, vector_norm
from .views import broadcast_shapes

_REDUCED = _dtype.COMPUTED_IN_FLOAT32  # float16, and bfloat16 once loaded
_FLOAT32 = _dtype.float32.np_dtype

__all__ = ["linear", "bilinear", "dropout", "dropout1d", "dropout2d", "dropout3d",
           "alpha_dropout", "feature_alpha_dropout", "embedding", "one_hot", "normalize",
           "cosine_similarity", "pairwise_distance"]

_INT64 = _dtype.int64.np_dtype
_SELU_ALPHA_PRIME = 1.7580993408473766   # -selu's scale * alpha: alpha dropout's fill value


# ---------------------------------------------------------------- linear
def linear(input, weight, bias=None):
    """input @ weight.T + bias, recorded as PyTorch records it (AddmmBackward0, ...)."""
    if _autocast.on:
        return _autocast.lower_precision(linear, input, weight, bias)
    try:
        return _linear(input, weight, bias)
    except (AttributeError, TypeError):
        _arguments.check("linear", (input, weight, bias))
        raise


def _linear(input, weight, bias):
    ndim = input.dim()
    if ndim == 0 or weight.dim() == 0:
        raise RuntimeError(f"both arguments to linear need to be at least 1D, but they are "
                           f"{ndim}D and {weight.dim()}D")
    if bias is not None:
        if ndim == 2:
            return addmm(bias, input, weight.t())
        if weight.dim() == 2 and input.is_contiguous() and (ndim == 3 or bias.dim() == 1):
            return _flattened_linear(input, weight, bias)
    output = matmul(input, weight.t())
    if bias is not None:
        output = inplace(output, add, bias)
    return output


def _flattened_linear(input, weight, bias):
    """addmm on the input viewed as a matrix, viewed back: one matrix product for N-D."""
    shape = tuple(input.shape)
    rows = math.prod(shape[:-1])
    result = addmm(bias, input.reshape(rows, shape[-1]), weight.t())
    return result.view(shape[:-1] + (result.shape[1],))


def bilinear(input1, input2, weight, bias=None):
    """x1^T A_o x2 + b_o for each output feature o (PyTorch's _trilinear decomposition)."""
    given = (("input1", input1), ("input2", input2), ("weight", weight)) + (
        () if bias is None else (("bias", bias),))
    if any(t.dtype is not input1.dtype for _, t in given):   # before any shape (argcheck10)
        raise RuntimeError("All tensors must have the same dtype, got " + ", ".join(
            f"{name}: {_errors.cpp_type_name(t.dtype)}" for name, t in given))
    ndim = input1.dim()
    if ndim != input2.dim():
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {ndim} and "
                           f"{input2.dim()}")
    for i in range(ndim - 1):
        if input1.shape[i] != input2.shape[i]:
            raise RuntimeError(f"bilinear(): input batch dimensions do not match at dim {i}: got "
                               f"{input1.shape[i]} and {input2.shape[i]}")
    if input1.shape[-1] != weight.shape[1]:
        raise RuntimeError(f"bilinear(): input1 size does not match weight size: got "
                           f"{input1.shape[-1]} but expected {weight.shape[1]}")
    if input2.shape[-1] != weight.shape[2]:
        raise RuntimeError(f"bilinear(): input2 size does not match weight size: got "
                           f"{input2.shape[-1]} but expected {weight.shape[2]}")
    if bias is not None and bias.shape[0] != weight.shape[0]:
        raise RuntimeError(f"bilinear(): bias size does not match weight size: got "
                           f"{bias.shape[0]} but expected {weight.shape[0]}")
    output_shape = tuple(input1.shape[:-1]) + (weight.shape[0],)
    flat1 = input1.reshape(-1, input1.shape[-1])
    flat2 = input2.reshape(-1, input2.shape[-1])
    output = _trilinear(flat1, weight, flat2).reshape(output_shape)
    return output if bias is None else output + bias


def _trilinear(input1, weight, input2):
    """out[n, o] = sum_ij input1[n, i] weight[o, i, j] input2[n, j]."""
    xp = input1._device.xp
    arrays = (input1._data, weight._data, input2._data)
    if arrays[0].dtype in _REDUCED:  # half types accumulate in float32 (einsum lacks bfloat16)
        arrays = tuple(a.astype(_FLOAT32) for a in arrays)
    # input1 meets the weight first, then input2, as PyTorch's _trilinear pairs them: which
    # pair is contracted first decides whether an inf in an input becomes inf or inf - inf
    first, weight_data, second = arrays
    result = xp.ascontiguousarray(xp.einsum("onj,nj->no", xp.matmul(first, weight_data), second))
    out = wrap(result.astype(input1._data.dtype, copy=False), input1._device)
    if grad_state.enabled and (input1._requires_grad or weight._requires_grad
                               or input2._requires_grad):
        node = TrilinearBackward0()
        node.save(input1, weight, input2)
        attach(out, node, input1, weight, input2)
    return out


class TrilinearBackward0(Node):
    __slots__ = ()

    def backward(self, grad):
        input1, weight, input2 = self.saved_tensors
        grads = [None, None, None]
        # each a _trilinear again, paired as PyTorch pairs it: the weight meets the other
        # input first, the upstream gradient last (same infs and NaNs)
        if self.needs_input_grad(0):
            grads[0] = einsum("no,noi->ni", grad, einsum("oij,nj->noi", weight, input2))
        if self.needs_input_grad(1):
            grads[1] = einsum("no,ni,nj->oij", grad, input1, input2)
        if self.needs_input_grad(2):
            grads[2] = einsum("no,noj->nj", grad, einsum("ni,oij->noj", input1, weight))
        return tuple(grads)


# ---------------------------------------------------------------- dropout
def _check_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _check_arguments(input, p, train, inplace_, feature, alpha):
    """PyTorch's parser refuses a non-tensor input or a non-bool `train` before anything
    runs; the bodies below would hand such an input straight back in eval mode."""
    if not isinstance(input, Tensor) or train.__class__ is not bool:
        name = ("feature_" if feature else "") + ("alpha_" if alpha else "") + "dropout"
        _arguments.check(name + ("_" if inplace_ else ""), (input, p, train))


def _dropout(input, p, train, inplace_, noise_shape=None, alpha=False):
    """PyTorch's _dropout_impl: scale kept values by 1/(1-p) (alpha: keep mean and variance)."""
    _check_arguments(input, p, train, inplace_, noise_shape is not None, alpha)
    if p == 0 or not train or input.numel() == 0:
        return input
    if p == 1:
        zero = zeros((), dtype=input.dtype, device=input.device)
        return inplace(input, mul, zero) if inplace_ else input * zero
    # the mask is drawn in the input's memory order (PyTorch's empty_like keeps its strides)
    noise = (empty_like(input) if noise_shape is None
             else empty(noise_shape, dtype=input.dtype, device=input.device))
    noise.bernoulli_(1 - p)
    if alpha:
        a = 1.0 / math.sqrt((_SELU_ALPHA_PRIME ** 2 * p + 1) * (1 - p))
        # in place on noise (input's dtype), as PyTorch computes it: an integer or bool
        # input is refused by the cast of the float scale into it
        shift = noise.add(-1).mul_(_SELU_ALPHA_PRIME * a).add_(_SELU_ALPHA_PRIME * a * p)
        noise.mul_(a)
        output = inplace(input, mul, noise) if inplace_ else input * noise
        return inplace(output, add, shift)
    noise.div_(1 - p)
    return inplace(input, mul, noise) if inplace_ else input * noise


def _feature_noise_shape(input):
    if input.dim() < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    return tuple(input.shape[:2]) + (1,) * (input.dim() - 2)


def _feature_dropout(input, p, train, inplace_, alpha=False):
    _check_arguments(input, p, train, inplace_, True, alpha)
    if p == 0 or not train or input.numel() == 0:
        return input
    return _dropout(input, p, train, inplace_, _feature_noise_shape(input), alpha)


def dropout(input, p=0.5, training=True, inplace=False):
    """Zero each element with probability p and scale the rest by 1/(1-p); identity in eval."""
    _check_p(p)
    return _dropout(input, p, training, inplace)


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Dropout for selu networks: dropped values take selu's negative saturation value."""
    _check_p(p)
    return _dropout(input, p, training, inplace, alpha=True)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """alpha_dropout of whole channels (dim 1)."""
    _check_p(p)
    return _feature_dropout(input, p, training, inplace, alpha=True)


def _unbatched(input, batched, p, training, inplace_):
    """Channel dropout on an input without a batch dim: add one, drop, remove it."""
    if batched:
        return _feature_dropout(input, p, training, inplace_)
    input = input.unsqueeze_(0) if inplace_ else input.unsqueeze(0)
    result = _feature_dropout(input, p, training, inplace_)
    return result.squeeze_(0) if inplace_ else result.squeeze(0)


def dropout1d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of (N, C, L) or (C, L) inputs."""
    _check_p(p)
    ndim = input.dim()
    if ndim not in (2, 3):
        raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {ndim}D input. "
                           "Note that dropout1d exists to provide channel-wise dropout on inputs "
                           "with 1 spatial dimension, a channel dimension, and an optional batch "
                           "dimension (i.e. 2D or 3D inputs).")
    return _unbatched(input, ndim == 3, p, training, inplace)


def _warn_dims(name, ndim, spatial):
    warnings.warn(f"{name}: Received a {ndim}-D input to {name}, which is deprecated and will "
                  "result in an error in a future release. To retain the behavior and silence "
                  "this warning, please use dropout instead. Note that "
                  f"{name} exists to provide channel-wise dropout on inputs with {spatial} "
                  "spatial dimensions, a channel dimension, and an optional batch dimension "
                  f"(i.e. {spatial + 1}D or {spatial + 2}D inputs).", stacklevel=3)


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of (N, C, H, W) inputs (a 3-D input is taken as (N, C, L))."""
    _check_p(p)
    ndim = input.dim()
    if ndim not in (3, 4):
        _warn_dims("dropout2d", ndim, 2)
    if ndim == 3:
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise "
                      "1D dropout behavior is desired - input is interpreted as shape (N, C, L), "
                      "where C is the channel dim. This behavior will change in a future release "
                      "to interpret the input as one without a batch dimension, i.e. shape "
                      "(C, H, W). To maintain the 1D channel-wise dropout behavior, please switch "
                      "to using dropout1d instead.", stacklevel=2)
    return _feature_dropout(input, p, training, inplace)


def dropout3d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of (N, C, D, H, W) or (C, D, H, W) inputs."""
    _check_p(p)
    ndim = input.dim()
    if ndim not in (4, 5):
        _warn_dims("dropout3d", ndim, 3)
    return _unbatched(input, ndim == 5, p, training, inplace)


# ---------------------------------------------------------------- embedding
def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False, sparse=False):
    """Rows of `weight` picked by the integer `input`; padding_idx's row gets no gradient."""
    rows = weight.shape[0] if weight.dim() else 0
    if padding_idx is not None:
        if padding_idx > 0 and padding_idx >= rows:
            raise AssertionError("Padding_idx must be within num_embeddings")
        if padding_idx < 0:
            if padding_idx < -rows:
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx = rows + padding_idx
    else:
        padding_idx = -1
    if weight.dim() != 2:  # before the indices' dtype, as PyTorch's kernel checks
        raise RuntimeError("'weight' must be 2-D")
    indices = _check_indices(input)
    if indices.size and (indices.min() < 0 or indices.max() >= rows):
        raise _diagnose.noted(IndexError("index out of range in self"), "embedding",
                              low=int(indices.min()), high=int(indices.max()), rows=rows)
    if max_norm is not None:
        _embedding_renorm_(weight, indices, max_norm, norm_type)
    xp = weight._device.xp
    out = wrap(xp.take(weight._data, indices, axis=0), weight._device)
    if grad_state.enabled and weight._requires_grad:
        node = EmbeddingBackward0()
        node.params = (rows, padding_idx, scale_grad_by_freq)
        node.save(input)
        attach(out, node, weight)
    return out


def _check_indices(input):
    indices = input._data
    if indices.dtype.kind not in "iu" or indices.dtype.itemsize < 4 or indices.dtype.kind == "u":
        raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the "
                           "following scalar types: Long, Int; but got "
                           f"ember.{input.dtype.tensor_type} instead (while checking arguments "
                           "for embedding)")
    return indices


def _embedding_renorm_(weight, indices, max_norm, norm_type):
    """Rescale, in place and without grad, each used row whose norm exceeds max_norm."""
    xp = weight._device.xp
    data = weight._data
    used = xp.unique(indices)
    rows = data[used]
    # PyTorch takes each row's vector norm (inf: largest magnitude, 0: count of non-zeros)
    # as a double, then scales by max_norm / (norm + 1e-7)
    with xp.errstate(divide="ignore", over="ignore"):
        norms = xp.linalg.norm(rows, ord=float(norm_type), axis=1).astype(xp.float64)
    scale = xp.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0).astype(data.dtype)
    data[used] = rows * scale[:, None]
    weight._storage.version += 1


class EmbeddingBackward0(Node):
    __slots__ = ("params",)

    def backward(self, grad):
        (indices,) = self.saved_tensors
        rows, padding_idx, scale_grad_by_freq = self.params
        if not grad_state.enabled and not scale_grad_by_freq:
            return (_summed_rows(indices, grad, rows, padding_idx),)
        flat_indices = indices.reshape(-1)
        flat_grad = grad.reshape(-1, grad.shape[-1])
        if padding_idx >= 0:
            flat_grad = where((flat_indices == padding_idx).unsqueeze(1), 0.0, flat_grad)
        if scale_grad_by_freq:
            xp = indices._device.xp
            counts = xp.bincount(flat_indices._data, minlength=rows)[flat_indices._data]
            scale = make_tensor((1.0 / counts).astype(grad._data.dtype), grad._device)
            flat_grad = flat_grad * scale.unsqueeze(1)
        total = zeros((rows, grad.shape[-1]), dtype=grad.dtype, device=grad.device)
        return (total.index_add(0, flat_indices, flat_grad),)


def _row_kernels(flat, grad, rows):
    """The compiled index_add of `_compiled.index_kernels` when the work is large, the
    arrays are NumPy's (a C-contiguous float32/float64 gradient, int64/int32 indices
    inside the table) and numba is installed; else None."""
    if (grad.size < _compiled.MIN_SIZE or grad.__class__ is not _backend.ndarray
            or grad.dtype.char not in "fd" or flat.dtype.char not in "lqi"
            or not grad.flags.c_contiguous or not flat.flags.c_contiguous
            or flat.min() < 0 or flat.max() >= rows):
        return None
    return _compiled.load("index_kernels")


def _summed_rows(indices, grad, rows, padding_idx):
    """The weight's gradient on arrays: grad's rows summed per index (first-order backward).

    PyTorch adds each row into its index's row one after another, in input order (an
    index_add). One ufunc.at over the flattened weight does the same additions in the
    same order, element by element; `reduceat` over sorted rows (used before) sums a group
    pairwise and differed in the last bit for 6-86% of elements, and was slower: on
    (1024 ids, 128 wide) 160 us against 300 us, against 1.2 ms for a 2-D ufunc.at.
    """
    xp = grad._device.xp
    flat = indices._data.reshape(-1)
    width = grad._data.shape[-1]
    result = xp.zeros((rows, width), grad._data.dtype)
    kernels = _row_kernels(flat, grad._data, rows)
    if kernels is not None:   # the same additions in the same order, compiled
        kernels.index_add_rows(result, flat, grad._data.reshape(-1, width))
        if padding_idx >= 0:
            result[padding_idx] = 0
    elif flat.size and width:
        positions = (flat[:, None] * width + xp.arange(width)).reshape(-1)
        xp.add.at(result.reshape(-1), positions, grad._data.reshape(-1))
        if padding_idx >= 0:
            result[padding_idx] = 0
    return make_tensor(result, grad._device)


def one_hot(input, num_classes=-1):
    """int64 indicator vectors along a new last dim; num_classes=-1 takes max + 1."""
    data = input._data
    if data.dtype != _INT64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    xp = input._device.xp
    if data.size == 0:
        if num_classes <= 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
    else:
        if num_classes == -1:
            num_classes = int(data.max()) + 1
        if data.min() < 0:
            raise RuntimeError("Class values must be non-negative.")
        if data.max() >= num_classes:
            raise RuntimeError("Class values must be smaller than num_classes.")
    result = data[..., None] == xp.arange(num_classes, dtype=_INT64)
    return wrap(result.astype(_INT64), input._device)


# ---------------------------------------------------------------- normalisation and distances
def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """input / max(||input||_p, eps) along `dim`."""
    denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    result = input / denom
    if out is not None:
        with no_grad():
            out.copy_(result)
        return out
    return result


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """<x1, x2> / (||x1|| ||x2||), each normalised first as PyTorch does (stays in [-1, 1])."""
    common = _dtype.result_type(x1, x2)
    if not common.is_floating_point:
        raise RuntimeError(f"expected common dtype to be floating point, yet common dtype is "
                           f"{_errors.scalar_type_name(common)}")
    if not x1.is_floating_point():
        x1 = x1.to(common)
    if not x2.is_floating_point():
        x2 = x2.to(common)
    if x1.shape != x2.shape:
        shape = broadcast_shapes(x1.shape, x2.shape)
        x1, x2 = x1.expand(shape), x2.expand(shape)
    norm1 = vector_norm(x1, 2, dim, True).clone()
    norm2 = vector_norm(x2, 2, dim, True).clone()
    with no_grad():
        norm1.clamp_min_(eps)
        norm2.clamp_min_(eps)
    return ((x1 / norm1) * (x2 / norm2)).sum(dim)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """||x1 - x2 + eps||_p over the last dim (PyTorch's at::norm: NormBackward1)."""
    dim = max(x1.dim(), x2.dim()) - 1
    difference = x1 - x2 + eps
    if dim >= 0:
        dim = wrap_dim(dim, difference.dim())
    out = vector_norm(difference, p, dim, keepdim)
    if out.grad_fn is not None:
        # at::norm records NormBackward1; its formula is vector_norm's.
        out.grad_fn.__class__ = NormBackward1
    return out


class NormBackward1(LinalgVectorNormBackward0):
    __slots__ = ()
