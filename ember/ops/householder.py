"""LAPACK's Householder-form QR, exposed as PyTorch exposes it: `geqrf` (the packed factor
and its scalars tau), `orgqr` / `linalg.householder_product` (the explicit Q from them) and
`ormqr` (multiplying by Q without forming it). scipy's LAPACK wrappers do the work, one
matrix at a time (LAPACK has no batched driver); the results are LAPACK's, as PyTorch's are.

geqrf has no derivative (as in PyTorch). orgqr and ormqr differentiate through the product
of reflections H_i = I - tau_i v_i v_i^T, walked back one reflection at a time with ember ops
(so double backward works), for the packed input, tau and ormqr's other operand.
"""
from .._backend import scipy_linalg as _scipy_linalg

from .. import _dtype, _errors, return_types as _rt
from ..autograd.graph import Node
from ._common import grad_state
from ._linalg_common import attach_outputs, new, not_implemented
from .diagonal import tril
from .joining import cat, stack

_LAPACK_DTYPES = (_dtype.float32, _dtype.float64)

__all__ = ["geqrf", "orgqr", "ormqr"]  # householder_product: ember.linalg


def _each_matrix(function, *arrays):
    """Apply `function` to each matrix of the (same-batch) arrays, stacking the results."""
    first = arrays[0]
    batch = first.shape[:-2]
    flat = [a.reshape((-1,) + a.shape[len(batch):]) for a in arrays]
    return [function(*parts) for parts in zip(*flat)], batch


def _stack(xp, results, batch, tail, dtype):
    if not results:
        return xp.zeros(batch + tail, dtype)
    return xp.stack(results).reshape(batch + tail).astype(dtype, copy=False)


def _check_at_least_matrix(name, tensor, what="input"):
    if tensor._data.ndim < 2:
        raise RuntimeError(f"ember.{name}: {what} must have at least 2 dimensions.")


def _check_lapack_dtype(kernel, tensor):
    if tensor.dtype not in _LAPACK_DTYPES:
        raise not_implemented(kernel, tensor.dtype)


def _check_tau(name, A, tau):
    """PyTorch's checks of tau against the packed input: one dimension less, same batch."""
    if tau._data.ndim == 0:
        raise IndexError("Dimension specified as -1 but tensor has no dimensions")
    if tau._data.ndim != A._data.ndim - 1:
        raise RuntimeError(f"ember.{name}: Expected tau to have one dimension less than input, "
                           f"but got tau.ndim equal to {tau._data.ndim} and input.ndim is equal "
                           f"to {A._data.ndim}")
    if tau._data.shape[:-1] != A._data.shape[:-2]:
        raise RuntimeError(f"ember.{name}: Expected batch dimensions of tau to be equal to "
                           f"input.shape[:-2], but got {list(tau._data.shape[:-1])}")


def geqrf(input):
    """The packed QR of `input`: R on and above the diagonal, the Householder vectors below,
    and tau; the form LAPACK's other QR routines take."""
    _check_at_least_matrix("geqrf", input)
    _check_lapack_dtype("geqrf_cpu", input)
    data, xp = input._data, input._device.xp
    m, n = data.shape[-2:]
    routine = _scipy_linalg.get_lapack_funcs("geqrf", (data,))
    results, batch = [], data.shape[:-2]
    if data.size:
        results, batch = _each_matrix(lambda a: routine(a)[:2], data)
    packed = _stack(xp, [r[0] for r in results], batch, (m, n), data.dtype)
    tau = _stack(xp, [r[1] for r in results], batch, (min(m, n),), data.dtype)
    outputs = (new(packed, input), new(tau, input))
    if grad_state.enabled and input._requires_grad:
        attach_outputs(GeqrfBackward0(), outputs, input)
    return _rt.geqrf(*outputs)


class GeqrfBackward0(Node):
    __slots__ = ()

    def backward(self, grad_a=None, grad_tau=None):
        raise NotImplementedError("the derivative for 'geqrf' is not implemented.")


def householder_product(A, tau):
    """The first n columns of Q = H_1 ... H_k from geqrf's packed vectors and tau."""
    name = "linalg.householder_product"
    _check_at_least_matrix(name, A)
    _check_tau(name, A, tau)
    data, xp = A._data, A._device.xp
    m, n = data.shape[-2:]
    if m < n:
        raise RuntimeError(f"ember.{name}: input.shape[-2] must be greater than or equal to "
                           "input.shape[-1]")
    if n < tau._data.shape[-1]:
        raise RuntimeError(f"ember.{name}: input.shape[-1] must be greater than or equal to "
                           "tau.shape[-1]")
    if tau.dtype is not A.dtype:
        raise RuntimeError(f"ember.{name}: tau dtype {_errors.scalar_type_name(tau.dtype)} does "
                           f"not match input dtype {_errors.scalar_type_name(A.dtype)}")
    _check_lapack_dtype("orgqr_cpu", A)
    kernel = "ungqr" if data.dtype.kind == "c" else "orgqr"
    routine = _scipy_linalg.get_lapack_funcs(kernel, (data,))
    tau_data = tau._data.astype(data.dtype, copy=False)
    if data.size == 0:
        q = xp.zeros(data.shape, data.dtype)
    else:
        results, batch = _each_matrix(lambda a, t: routine(a, t[0])[0], data,
                                      tau_data[..., None, :])
        q = _stack(xp, results, batch, (m, n), data.dtype)
    result = new(q, A)
    if grad_state.enabled and (A._requires_grad or tau._requires_grad):
        node = LinalgHouseholderProductBackward0()
        node.save(A, tau)
        attach_outputs(node, (result,), A, tau)
    return result


def orgqr(input, input2):
    """torch.orgqr: LAPACK's name for linalg.householder_product."""
    return householder_product(input, input2)


class LinalgHouseholderProductBackward0(Node):
    __slots__ = ()

    def backward(self, grad):
        A, tau = self.saved_tensors
        m, n = A.shape[-2], A.shape[-1]
        identity = A.new_zeros((m, n))
        identity.diagonal().fill_(1)
        grad_A, grad_tau, _ = _reflections_vjp(A, tau, identity.expand(A.shape), grad, False)
        return grad_A, grad_tau


def _reflector(A, i):
    """Householder vector i of geqrf's packed form: zeros above row i, 1 at i, A below."""
    column = A[..., i + 1:, i]
    head = A.new_zeros(column.shape[:-1] + (i,))
    one = A.new_ones(column.shape[:-1] + (1,))
    return cat([head, one, column], -1).unsqueeze(-1)


def _reflections_vjp(A, tau, E, grad, transposed):
    """Gradients of Y = H_1 ... H_k E (H_k ... H_1 E when transposed), H_i = I - tau_i v_i
    v_i^T, for A (through its vectors), tau and E; written with ember ops so that they
    differentiate again. Each step is Y <- Y - tau v (v^T Y); the inputs of the steps are
    recomputed forward, then the gradient walks back through them."""
    k = tau.shape[-1]
    vectors = [_reflector(A, i) for i in range(k)]
    order = list(range(k)) if transposed else list(reversed(range(k)))
    inputs, Y = {}, E
    for i in order:
        inputs[i] = Y
        t = tau[..., i, None, None]
        Y = Y - t * (vectors[i] @ (vectors[i].mT @ Y))
    grad_tau, grad_v = [None] * k, [None] * k
    G = grad
    for i in reversed(order):
        v, t, Yin = vectors[i], tau[..., i, None, None], inputs[i]
        vG, vY = v.mT @ G, v.mT @ Yin
        grad_tau[i] = -(vG * vY).sum((-2, -1))
        grad_v[i] = -t * (G @ vY.mT + Yin @ vG.mT)
        G = G - t * (v @ vG)
    columns = stack([g.squeeze(-1) for g in grad_v], -1) if k else A.new_zeros(A.shape[:-1] + (0,))
    if k < A.shape[-1]:
        columns = cat([columns, A.new_zeros(A.shape[:-1] + (A.shape[-1] - k,))], -1)
    grad_A = tril(columns, -1)
    grad_tau = stack(grad_tau, -1) if k else tau.new_zeros(tau.shape)
    return grad_A, grad_tau, G


def ormqr(input, input2, input3, left=True, transpose=False):
    """Q @ other (or other @ Q, with Q transposed / conjugate-transposed on request) for the
    Q that geqrf's packed vectors and tau describe, without forming Q."""
    tau, other = input2, input3
    _check_ormqr(input, tau, other, left)
    data, xp = input._data, input._device.xp
    complex_ = data.dtype.kind == "c"
    routine = _scipy_linalg.get_lapack_funcs("unmqr" if complex_ else "ormqr", (data,))
    side = "L" if left else "R"
    trans = ("C" if complex_ else "T") if transpose else "N"
    c_data = other._data.astype(data.dtype, copy=False)
    tau_data = tau._data.astype(data.dtype, copy=False)
    lwork = max(1, max(c_data.shape[-2:])) * 64

    def one(a, t, c):
        return routine(side, trans, a[:, :t.shape[-1]], t[0], c, lwork)[0]  # LAPACK: k columns
    if c_data.size == 0:
        product = xp.zeros(c_data.shape, data.dtype)
    else:
        results, batch = _each_matrix(one, data, tau_data[..., None, :], c_data)
        product = _stack(xp, results, batch, c_data.shape[-2:], data.dtype)
    result = new(product, other)
    if grad_state.enabled and (input._requires_grad or tau._requires_grad
                               or other._requires_grad):
        node = OrmqrBackward0()
        node.left, node.transpose = left, transpose
        node.save(input, tau, other)
        attach_outputs(node, (result,), input, tau, other)
    return result


def _check_ormqr(input, tau, other, left):
    """PyTorch's ormqr checks, in its order."""
    _check_at_least_matrix("ormqr", input)
    if tau._data.ndim == 0:
        raise IndexError("Dimension specified as -1 but tensor has no dimensions")
    _check_at_least_matrix("ormqr", other, "other")
    m = input._data.shape[-2]
    side_dim = -2 if left else -1
    if other._data.shape[side_dim] != m:
        raise RuntimeError(f"ember.ormqr: other.shape[{side_dim}] must be equal to "
                           "input.shape[-2]")
    if tau._data.shape[-1] != min(other._data.shape[side_dim], input._data.shape[-1]):
        raise RuntimeError(f"ember.ormqr: tau.shape[-1] must be equal to "
                           f"min(other.shape[{side_dim}], input.shape[-1])")
    if tau._data.ndim != input._data.ndim - 1:
        raise RuntimeError("ember.ormqr: Expected tau to have one dimension less than input, "
                           f"but got tau.ndim equal to {tau._data.ndim} and input.ndim is equal "
                           f"to {input._data.ndim}")
    if other._data.ndim != input._data.ndim:
        raise RuntimeError("ember.ormqr: Expected other to have the same number of dimensions "
                           f"as input, but got other.ndim equal to {other._data.ndim} and "
                           f"input.ndim is equal to {input._data.ndim}")
    for what, batch in (("tau", tau._data.shape[:-1]), ("other", other._data.shape[:-2])):
        if batch != input._data.shape[:-2]:
            raise RuntimeError(f"ember.ormqr: Expected batch dimensions of {what} to be equal to "
                               f"input.shape[:-2], but got {list(batch)}")
    for what, tensor in (("tau", tau), ("other", other)):
        if tensor.dtype is not input.dtype:
            raise RuntimeError(f"ember.ormqr: Expected input and {what} to have the same dtype, "
                               "but input has dtype"
                               f"{_errors.scalar_type_name(input.dtype)} and {what} has dtype "
                               f"{_errors.scalar_type_name(tensor.dtype)}")
    _check_lapack_dtype("ormqr_cpu", input)


class OrmqrBackward0(Node):
    __slots__ = ("left", "transpose")

    def backward(self, grad):
        A, tau, other = self.saved_tensors
        A = A[..., :tau.shape[-1]]
        if self.left:  # Q C or Q^T C
            grad_A, grad_tau, grad_other = _reflections_vjp(A, tau, other, grad, self.transpose)
        else:  # C Q = (Q^T C^T)^T, C Q^T = (Q C^T)^T
            grad_A, grad_tau, grad_other = _reflections_vjp(A, tau, other.mT, grad.mT,
                                                            not self.transpose)
            grad_other = grad_other.mT
        full = self.saved_tensors[0]
        if full.shape[-1] > grad_A.shape[-1]:
            grad_A = cat([grad_A, full.new_zeros(full.shape[:-1] + (full.shape[-1]
                                                                    - grad_A.shape[-1],))], -1)
        return grad_A, grad_tau, grad_other
