"""The parametrizations PyTorch ships on top of `parametrize`: weight_norm, spectral_norm and
orthogonal. Each is a small Module whose forward maps the stored original(s) to the weight
and whose `right_inverse` maps a weight back, so assigning `module.weight = W` works.
"""
import enum

from ... import autograd
from ...ops import creation, joining, linalg_decomp, linalg_functions, linalg_solve, random
from ..._dtype import finfo
from ..._tensor import Tensor, make_tensor
from ..modules.conv import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from ..modules.module import Module
from ...ops.nn_linear import normalize
from ...ops.normalization_more import _weight_norm, norm_except_dim
from . import parametrize

__all__ = ["orthogonal", "spectral_norm", "weight_norm"]


# ---------------------------------------------------------------- orthogonal
class _OrthMaps(enum.Enum):
    matrix_exp = enum.auto()
    cayley = enum.auto()
    householder = enum.auto()


def _householder_product(reflectors, tau):
    """The first k columns of H_0 H_1 ... H_{k-1}, H_i = I - tau_i v_i v_i^H, built with ember
    ops so gradients reach `reflectors` and `tau` (v_i: unit diagonal, column i below it)."""
    n, k = reflectors.shape[-2], reflectors.shape[-1]
    eye = creation.eye(n, k, dtype=reflectors.dtype)
    vectors = reflectors.tril(-1) + eye
    q = eye.expand(*reflectors.shape[:-2], n, k)
    for i in range(k - 1, -1, -1):
        v = vectors[..., :, i:i + 1]
        q = q - (tau[..., i:i + 1].unsqueeze(-1) * v) @ (v.mH @ q)
    return q


def _geqrf(matrix):
    """LAPACK's geqrf (Householder reflectors below R, and their tau) of a 2-D matrix.

    NumPy's qr(mode="raw") is geqrf itself; it returns the Fortran-ordered (transposed)
    result. ember has no public geqrf yet, so this reads the tensor's array module.
    """
    xp = matrix._device.xp
    raw, tau = xp.linalg.qr(matrix.detach()._data, mode="raw")
    return make_tensor(raw.T.copy(), matrix.device), make_tensor(tau, matrix.device)


def _make_orthogonal(matrix):
    """The Q of matrix's QR, columns signed so R's diagonal is positive."""
    q, r = linalg_decomp.qr(matrix)
    return q * r.diagonal(dim1=-2, dim2=-1).sgn().unsqueeze(-2)


def _is_orthogonal(q):
    n, k = q.shape[-2], q.shape[-1]
    eye = creation.eye(k, dtype=q.dtype)
    return (q.mH @ q).allclose(eye, atol=10.0 * n * finfo(q.dtype).eps)


class _Orthogonal(Module):
    """Weight = an orthogonal (or unitary) matrix built from an unconstrained one."""

    def __init__(self, weight, orthogonal_map, *, use_trivialization=True):
        super().__init__()
        if weight.is_complex() and orthogonal_map == _OrthMaps.householder:
            raise ValueError("The householder parametrization does not support complex tensors.")
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X):
        n, k = X.shape[-2], X.shape[-1]
        transposed = n < k
        if transposed:
            X = X.mT
            n, k = k, n
        if self.orthogonal_map == _OrthMaps.householder:
            reflectors = X.tril(diagonal=-1)
            tau = 2.0 / (1.0 + (reflectors * reflectors).sum(dim=-2))
            Q = _householder_product(reflectors, tau)
            Q = Q * X.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)
        else:
            Q = self._skew_map(X.tril(), n, k)
        if hasattr(self, "base"):
            Q = self.base @ Q
        return Q.mT if transposed else Q

    def _skew_map(self, lower, n, k):
        """exp(A) or the Cayley transform of the skew matrix A = L - L^H (L padded square)."""
        if n != k:
            padding = lower.new_zeros(n, n - k).expand(*lower.shape[:-2], -1, -1)
            lower = joining.cat([lower, padding], dim=-1)
        skew = lower - lower.mH
        if self.orthogonal_map == _OrthMaps.matrix_exp:
            Q = linalg_functions.matrix_exp(skew)
        else:
            eye = creation.eye(n, dtype=skew.dtype)
            Q = linalg_solve.solve(eye - 0.5 * skew, eye + 0.5 * skew)
        return Q[..., :k] if n != k else Q

    def right_inverse(self, Q):
        with autograd.no_grad():
            return self._right_inverse(Q)

    def _right_inverse(self, Q):
        if Q.shape != self.shape:
            raise ValueError(f"Expected a matrix or batch of matrices of shape {self.shape}. "
                             f"Got a tensor of shape {Q.shape}.")
        given = Q
        n, k = Q.shape[-2], Q.shape[-1]
        transposed = n < k
        if transposed:
            Q = Q.mT
            n, k = k, n
        if not hasattr(self, "base"):
            if self.orthogonal_map != _OrthMaps.householder:
                raise NotImplementedError("It is not possible to assign to the matrix "
                                          "exponential or the Cayley parametrizations when "
                                          "use_trivialization=False.")
            reflectors, tau = _geqrf(Q)
            diagonal = reflectors.diagonal(dim1=-2, dim2=-1)
            diagonal.sign_()
            diagonal[tau == 0.0] *= -1
            return reflectors.mT if transposed else reflectors
        if n == k:
            Q = Q.clone() if _is_orthogonal(Q) else _make_orthogonal(Q)
        else:
            filler = random.randn(*(tuple(Q.shape[:-2]) + (n, n - k)), dtype=Q.dtype)
            Q = _make_orthogonal(joining.cat([Q, filler], dim=-1))
        self.base = Q
        minus_identity = creation.zeros_like(given)
        minus_identity.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
        return minus_identity


def _named_weight(module, name):
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    return weight


def orthogonal(module, name="weight", orthogonal_map=None, *, use_trivialization=True):
    """Constrain module.<name> to orthogonal (unitary) matrices."""
    weight = _named_weight(module, name)
    if weight.ndim < 2:
        raise ValueError("Expected a matrix or batch of matrices. "
                         f"Got a tensor of {weight.ndim} dimensions.")
    if orthogonal_map is None:
        square = weight.size(-2) == weight.size(-1)
        orthogonal_map = "matrix_exp" if square or weight.is_complex() else "householder"
    kind = getattr(_OrthMaps, orthogonal_map, None)
    if kind is None:
        raise ValueError('orthogonal_map has to be one of "matrix_exp", "cayley", "householder". '
                         f"Got: {orthogonal_map}")
    parametrize.register_parametrization(
        module, name, _Orthogonal(weight, kind, use_trivialization=use_trivialization),
        unsafe=True)
    return module


# ---------------------------------------------------------------- weight_norm
class _WeightNorm(Module):
    """weight = v * g / ||v||, stored as original0 = g (magnitude), original1 = v (direction)."""

    def __init__(self, dim=0):
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g, weight_v):
        return _weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight):
        return norm_except_dim(weight, 2, self.dim), weight


def weight_norm(module, name="weight", dim=0):
    """Split module.<name> into magnitude and direction (state_dict keys original0/1)."""
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)

    def rename_legacy_keys(state_dict, prefix, local_metadata, strict, missing_keys,
                           unexpected_keys, error_msgs):
        """Checkpoints of the hook-based weight_norm store <name>_g / <name>_v."""
        g_key, v_key = f"{prefix}{name}_g", f"{prefix}{name}_v"
        if g_key in state_dict and v_key in state_dict:
            state_dict[f"{prefix}parametrizations.{name}.original0"] = state_dict.pop(g_key)
            state_dict[f"{prefix}parametrizations.{name}.original1"] = state_dict.pop(v_key)

    module._register_load_state_dict_pre_hook(rename_legacy_keys)
    return module


# ---------------------------------------------------------------- spectral_norm
def _as_matrix(weight, dim):
    """`weight` with `dim` moved first and the rest flattened: the matrix whose norm counts."""
    if dim != 0:
        weight = weight.permute(dim, *(d for d in range(weight.dim()) if d != dim))
    return weight.flatten(1)


class _SpectralNorm(Module):
    """weight / sigma, sigma estimated by power iteration on buffers _u and _v."""

    def __init__(self, weight, n_power_iterations=1, dim=0, eps=1e-12):
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError("Dimension out of range (expected to be in range of "
                             f"[-{ndim}, {ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            matrix = _as_matrix(weight, self.dim)
            rows, columns = matrix.shape
            u = matrix.new_empty(rows).normal_(0, 1)
            v = matrix.new_empty(columns).normal_(0, 1)
            self.register_buffer("_u", normalize(u, dim=0, eps=self.eps))
            self.register_buffer("_v", normalize(v, dim=0, eps=self.eps))
            # a good estimate before the first forward
            self._power_method(matrix, 15)

    def _power_method(self, matrix, steps):
        """Refine _u and _v in place (they are buffers: the state carries across calls)."""
        with autograd.no_grad():
            for _ in range(steps):
                normalize(matrix.mv(self._v), dim=0, eps=self.eps, out=self._u)
                normalize(matrix.H.mv(self._u), dim=0, eps=self.eps, out=self._v)

    def forward(self, weight):
        if weight.ndim == 1:
            return normalize(weight, dim=0, eps=self.eps)
        matrix = _as_matrix(weight, self.dim)
        if self.training:
            self._power_method(matrix, self.n_power_iterations)
        u, v = self._u.clone(), self._v.clone()
        return weight / u.vdot(matrix.mv(v))

    def right_inverse(self, value):
        return value


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Divide module.<name> by its largest singular value (estimated by power iteration)."""
    weight = _named_weight(module, name)
    if dim is None:
        transposed = isinstance(module, (ConvTranspose1d, ConvTranspose2d, ConvTranspose3d))
        dim = 1 if transposed else 0
    parametrize.register_parametrization(
        module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module
