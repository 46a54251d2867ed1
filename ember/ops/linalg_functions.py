"""Functions of matrices composed the way PyTorch composes them: linalg.matrix_power
(repeated matmul), matrix_exp (SciPy's expm, with PyTorch's block-matrix backward),
multi_dot (a chain of mm in the cheapest order), cond (a ratio of singular values, or
a norm times the norm of the inverse), cross and diagonal.
"""
import math
import warnings as _warnings

from . import _autocast
from .._backend import scipy_linalg as _scipy_linalg

from .. import _dtype, _errors
from ..autograd.graph import Node
from ._common import Tensor, attach, grad_state, sum_to_shape, wrap_dim
from ._linalg_common import check_matrix, new
from .joining import cat
from .linalg import matmul, mm
from .linalg_solve import inv, inv_ex
from .linalg_spectral import svdvals
from .norms import matrix_norm
from .pointwise_select import where

__all__ = ["matrix_power", "matrix_exp", "cross"]

_REDUCED = (_dtype.float16, _dtype.bfloat16)


# ---------------------------------------------------------------- matrix_power
def matrix_power(A, n):
    """A^n by binary powering with matmul (negative n: of the inverse), as ATen does."""
    if _autocast.on:
        return _autocast.lower_precision(matrix_power, A, n)
    if not isinstance(n, int) or isinstance(n, bool):
        raise TypeError(f"matrix_power(): argument 'n' (position 2) must be int, not "
                        f"{type(n).__name__}")
    shape = A._data.shape
    if len(shape) < 2:
        raise RuntimeError("linalg.matrix_power: The input tensor A must have at least 2 "
                           "dimensions.")
    if shape[-1] != shape[-2]:
        raise RuntimeError("linalg.matrix_power: A must be batches of square matrices, but "
                           f"they are {shape[-2]} by {shape[-1]} matrices")
    if n == 0:
        eye = new(A._device.xp.eye(shape[-1], dtype=A._data.dtype), A)
        return A.clone().copy_(eye.expand(shape))
    if n == 1:
        return A.clone()
    if n < 0:
        A, n = inv(A), -n
        if n == 1:
            return A
    if n == 2:
        return matmul(A, A)
    if n == 3:
        return matmul(matmul(A, A), A)
    power = result = None
    while n > 0:
        bit, n = n % 2, n // 2
        power = A if power is None else matmul(power, power)
        if bit:
            result = power if result is None else matmul(result, power)
    return result


# ---------------------------------------------------------------- matrix_exp
def matrix_exp(A):
    """exp(A) = sum A^k / k! (SciPy's scaling-and-squaring Pade approximant)."""
    shape = A._data.shape
    if len(shape) < 2:
        raise RuntimeError("linalg.matrix_exp: The input tensor A must have at least 2 "
                           "dimensions.")
    if shape[-1] != shape[-2]:
        raise RuntimeError("linalg.matrix_exp: A must be batches of square matrices, but they "
                           f"are {shape[-2]} by {shape[-1]} matrices")
    if not A.dtype.is_floating_point:
        raise RuntimeError("linalg.matrix_exp: Expected a floating point or complex tensor as "
                           f"input. Got {_errors.scalar_type_name(A.dtype)}")
    data = A._data
    computed = data.astype("float32") if A.dtype in _REDUCED else data
    result = _scipy_linalg.expm(computed) if data.size else computed.copy()
    out = new(A._device.xp.ascontiguousarray(result.astype(data.dtype, copy=False)), A)
    if grad_state.enabled and A._requires_grad:
        node = LinalgMatrixExpBackward0()
        node.save(A)
        attach(out, node, A)
    return out


class LinalgMatrixExpBackward0(Node):
    __slots__ = ()

    def backward(self, grad):
        (A,) = self.saved_tensors
        # PyTorch's differential: exp([[A^T, G], [0, A^T]]) holds the gradient top-right.
        n = A.shape[-1]
        At = A.mT
        upper = cat([At, grad], -1)
        lower = cat([grad.new_zeros(grad.shape), At], -1)
        return (matrix_exp(cat([upper, lower], -2))[..., :n, n:],)


# ---------------------------------------------------------------- multi_dot
def multi_dot(tensors):
    """The product of a chain of matrices (1-D ends as row/column vectors), cheapest order."""
    if _autocast.on:
        return _autocast.lower_precision(multi_dot, tensors)
    count = len(tensors)
    if count < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {count}")
    first, last = tensors[0]._data.ndim, tensors[-1]._data.ndim
    if first not in (1, 2):
        raise RuntimeError(f"multi_dot(): the first tensor must be 1D or 2D but got {first}D")
    if last not in (1, 2):
        raise RuntimeError(f"multi_dot(): the last tensor must be 1D or 2D but got {last}D")
    for i, t in enumerate(tensors[1:-1], 1):
        if t._data.ndim != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {t._data.ndim}D")
    dtype = tensors[0].dtype
    for i, t in enumerate(tensors[1:], 1):
        if t.dtype is not dtype:
            raise RuntimeError("multi_dot(): all tensors must have be the same dtype but tensor "
                               f"0 is {_errors.cpp_type_name(dtype)} and tensor {i} "
                               f"{_errors.cpp_type_name(t.dtype)}")
    matrices = list(tensors)
    if first == 1:
        matrices[0] = matrices[0].unsqueeze(0)
    if last == 1:
        matrices[-1] = matrices[-1].unsqueeze(-1)
    for i in range(count - 1):
        if matrices[i]._data.shape[-1] != matrices[i + 1]._data.shape[0]:
            raise RuntimeError(f"multi_dot(): tensors {i} and {i + 1} with shapes "
                               f"{_errors.shape_list(tensors[i]._data.shape)} and "
                               f"{_errors.shape_list(tensors[i + 1]._data.shape)} cannot be "
                               "multiplied")
    out_shape = ((matrices[0]._data.shape[0],) if first == 2 else ()) + \
        ((matrices[-1]._data.shape[1],) if last == 2 else ())
    if count == 2:
        result = mm(matrices[0], matrices[1])
    elif count == 3:
        a, b = matrices[0]._data.shape
        c = matrices[2]._data.shape[0]
        d = matrices[2]._data.shape[1]
        left_first = a * c * (b + d) < b * d * (a + c)
        result = mm(mm(matrices[0], matrices[1]), matrices[2]) if left_first else \
            mm(matrices[0], mm(matrices[1], matrices[2]))
    else:
        order = _chain_order(matrices)
        result = _chain_product(matrices, order, 0, count - 1)
    return result.view(out_shape)


def _chain_order(matrices):
    """The textbook O(n^3) matrix-chain dynamic program: the best split of each span."""
    dims = [m._data.shape[0] for m in matrices] + [matrices[-1]._data.shape[1]]
    n = len(matrices)
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = math.inf
            for k in range(i, j):
                total = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if total < cost[i][j]:
                    cost[i][j], split[i][j] = total, k
    return split


def _chain_product(matrices, split, i, j):
    if i == j:
        return matrices[i]
    k = split[i][j]
    return mm(_chain_product(matrices, split, i, k), _chain_product(matrices, split, k + 1, j))


# ---------------------------------------------------------------- cond
def cond(A, p=None):
    """The condition number in the `p` norm: sigma_max / sigma_min for p in (None, 2, -2)."""
    if _autocast.on:
        return _autocast.float32(cond, A, p)
    if p is None or p in (2, -2):
        check_matrix("linalg.svd", A, square=False, reduced_kernel="linalg_svd_cpu")
        S = svdvals(A)
        k = S.shape[-1]
        high, low = S.narrow(-1, 0, 1), S.narrow(-1, k - 1, 1)
        return (low / high if p == -2 else high / low).squeeze(-1)
    if p not in ("fro", "nuc", 1, -1, math.inf, -math.inf):
        raise RuntimeError(f"linalg.cond got an invalid norm type: {p}")
    shape = A._data.shape
    if len(shape) < 2:
        raise RuntimeError(f"linalg.cond(ord={p}): The input tensor A must have at least 2 "
                           "dimensions.")
    if shape[-1] != shape[-2]:
        raise RuntimeError(f"linalg.cond(ord={p}): A must be batches of square matrices, but "
                           f"they are {shape[-2]} by {shape[-1]} matrices")
    norm = matrix_norm(A, p)  # first, as PyTorch: 'nuc' meets the SVD's dtype check here
    inverse, info = inv_ex(A)
    result = norm * matrix_norm(inverse, p)
    singular = new(info._data > 0, A)
    return where(singular, math.inf, result).nan_to_num(math.inf, math.inf, -math.inf) \
        if bool(singular._data.any()) else result.nan_to_num(math.inf, math.inf, -math.inf)


# ---------------------------------------------------------------- cross / diagonal
def cross(input, other, *, dim=-1):
    """linalg.cross: the 3-vector cross product along `dim`, broadcasting the rest."""
    if not isinstance(input, Tensor) or not isinstance(other, Tensor):
        raise TypeError("linalg_cross(): argument 'input' (position 1) must be Tensor")
    a, b = input._data, other._data
    if a.ndim != b.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    if input.dtype is not other.dtype:
        raise RuntimeError(f"expected scalar type {_errors.scalar_type_name(input.dtype)} but "
                           f"found {_errors.scalar_type_name(other.dtype)}")
    if not a.ndim:   # no wrapping of a dim against 0-dim inputs here
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    axis = wrap_dim(dim, a.ndim)
    if a.shape[axis] != 3 or b.shape[axis] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got "
                           f"{a.shape[axis]} and {b.shape[axis]}")
    xp = input._device.xp
    shape = xp.broadcast_shapes(a.shape, b.shape)
    a, b = xp.broadcast_to(a, shape), xp.broadcast_to(b, shape)
    out = new(xp.ascontiguousarray(xp.cross(a, b, axis=axis)), input)
    if grad_state.enabled and (input._requires_grad or other._requires_grad):
        node = LinalgCrossBackward0()
        node.dim, node.shapes = axis, (input._data.shape, other._data.shape)
        node.save(input, other)
        attach(out, node, input, other)
    return out


class LinalgCrossBackward0(Node):
    __slots__ = ("dim", "shapes")

    def backward(self, grad):
        input, other = self.saved_tensors
        grad_input = grad_other = None
        if self.next_functions[0][0] is not None:
            grad_input = sum_to_shape(cross(other, grad, dim=self.dim), self.shapes[0])
        if self.next_functions[1][0] is not None:
            grad_other = sum_to_shape(cross(grad, input, dim=self.dim), self.shapes[1])
        return grad_input, grad_other


def torch_cross(input, other, dim=None):
    """torch.cross: without `dim`, the first dimension of size 3 (PyTorch's deprecated rule,
    which it warns about)."""
    if dim is None:
        _warnings.warn("Using torch.cross without specifying the dim arg is deprecated.\n"
                       "Please either pass the dim explicitly or simply use torch.linalg.cross."
                       "\nThe default value of dim will change to agree with that of "
                       "linalg.cross in a future release.", UserWarning, stacklevel=2)
        shape = _broadcast_shape(input._data.shape, other._data.shape)
        dim = next((i for i, size in enumerate(shape) if size == 3), None)
        if dim is None:
            raise RuntimeError("no dimension of size 3 in input")
    return cross(input, other, dim=dim)


def _broadcast_shape(x, y):
    return tuple(max(p, q) for p, q in zip((1,) * (len(y) - len(x)) + tuple(x),
                                           (1,) * (len(x) - len(y)) + tuple(y)))


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """linalg.diagonal: Tensor.diagonal with the last two dims as the default."""
    return A.diagonal(offset, dim1, dim2)
