"""Plumbing shared by the LAPACK-backed ops of `ember.linalg`.

The checks PyTorch runs before every decomposition (at least 2 dimensions, square,
floating point, not float16/bfloat16), its `LinAlgError`, and the one way a node with
several differentiable outputs (svd, eigh, qr, slogdet) is attached to them.
"""
from .._backend import scipy_linalg as _scipy_linalg

from .. import _dtype, _errors
from ._common import Tensor, attach, wrap

__all__ = ["LinAlgError"]

_REDUCED = (_dtype.float16, _dtype.bfloat16)


class LinAlgError(RuntimeError):
    """Raised when a decomposition fails on its input (singular, not positive-definite)."""


LinAlgError.__module__ = "ember.linalg"


# Kernels PyTorch reaches (and whose dtype check fires) even for empty input.
_ALWAYS_DISPATCHED = ("geqrf_cpu", "cholesky_inverse_out_cpu", "triangular_solve_cpu")
# ops whose only dtype check is their kernel's: integer and bool inputs meet its refusal
_KERNEL_CHECKED = ("cholesky_inverse_out_cpu", "triangular_solve_cpu")


def check_matrix(name, A, square=True, reduced_kernel=None, what="A", checks_dtype=True):
    """PyTorch's checkIsMatrix / squareCheckInputs / checkFloatingOrComplex, in its order
    (`checks_dtype=False` for the ops whose kernel judges the dtype later)."""
    if not isinstance(A, Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(A).__name__}")
    shape = A._data.shape
    prefix = f"{name}: " if name else ""  # some older ops word it without their name
    if len(shape) < 2:
        raise RuntimeError(f"{prefix}The input tensor {what} must have at least 2 dimensions.")
    if square and shape[-1] != shape[-2]:
        raise RuntimeError(f"{prefix}{what} must be batches of square matrices, but they are "
                           f"{shape[-2]} by {shape[-1]} matrices")
    if checks_dtype:
        check_floating(name, A, reduced_kernel)


def check_floating(name, A, reduced_kernel=None):
    dtype = A.dtype
    if not dtype.is_floating_point:
        if reduced_kernel in _KERNEL_CHECKED:
            raise NotImplementedError(_errors.not_implemented_for(reduced_kernel, dtype))
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got "
                           f"{_errors.scalar_type_name(dtype)}")
    if dtype in _REDUCED:
        if reduced_kernel is None:
            raise RuntimeError(f"{name}: Low precision dtypes not supported. Got "
                               f"{_errors.scalar_type_name(dtype)}")
        if A._data.size or reduced_kernel in _ALWAYS_DISPATCHED:  # empty skips the kernel
            raise NotImplementedError(_errors.not_implemented_for(reduced_kernel, dtype))


def check_same_dtype(name, A, B, a="A", b="B"):
    if A.dtype is not B.dtype:
        raise RuntimeError(f"{name}: Expected {a} and {b} to have the same dtype, but found {a} "
                           f"of type {_errors.scalar_type_name(A.dtype)} and {b} of type "
                           f"{_errors.scalar_type_name(B.dtype)} instead")


def batch_prefix(data, index):
    """'(Batch element 3): ' for a failure in a batch, '' for a single matrix."""
    return f"(Batch element {index}): " if data.ndim > 2 else ""


def getrf_info(data):
    """LAPACK getrf's info per matrix of a batch (k > 0: U[k-1, k-1] is exactly zero).

    Only called on an error path (NumPy reports a singular batch without saying where)."""
    flat = data.reshape((-1,) + data.shape[-2:])
    infos = []
    for matrix in flat:
        getrf = _scipy_linalg.get_lapack_funcs("getrf", (matrix,))
        infos.append(getrf(matrix)[2])
    return infos


def singular_inverse_error(name, data):
    for index, info in enumerate(getrf_info(data)):
        if info > 0:
            return LinAlgError(f"{name}: {batch_prefix(data, index)}The diagonal element {info} "
                               "is zero, the inversion could not be completed because the input "
                               "matrix is singular.")
    return LinAlgError(f"{name}: The inversion could not be completed.")


def attach_outputs(node, outputs, *inputs):
    """Make `node` the producer of every tensor in `outputs` (output_nr in order)."""
    attach(outputs[0], node, *inputs)
    for index, out in enumerate(outputs[1:], 1):
        out.grad_fn, out._requires_grad, out._output_nr = node, True, index
    return outputs


def new(array, like):
    """A fresh Tensor on `like`'s device around `array`."""
    return wrap(array, like._device)


def not_implemented(kernel, dtype):
    return NotImplementedError(_errors.not_implemented_for(kernel, dtype))
