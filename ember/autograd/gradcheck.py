"""gradcheck / gradgradcheck: compare analytical gradients with finite differences.

For every input that requires grad, perturb each element by +-eps (central
differences) to get the numerical Jacobian, and build the analytical one row by
row with `autograd.grad` of each output element. Inputs should be float64.
"""
from .. import _tensor
from .._backend import numpy as _np
from .api import grad as _grad

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


class GradcheckError(RuntimeError):
    """Raised by gradcheck when the analytical and numerical Jacobians differ."""


def _as_tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _differentiable_outputs(outputs):
    return [o for o in _as_tuple(outputs)
            if isinstance(o, _tensor.Tensor) and o._requires_grad]


def _flat_outputs(func, inputs):
    outs = _as_tuple(func(*inputs))
    return [o for o in outs if isinstance(o, _tensor.Tensor) and o.is_floating_point()]


def _numerical_jacobians(func, inputs, eps):
    """One list per input of d(all outputs flattened)/d(input element)."""
    jacobians = []
    for x in inputs:
        if not (isinstance(x, _tensor.Tensor) and x._requires_grad):
            jacobians.append(None)
            continue
        columns = []
        for i in range(x._data.size):
            # Grad mode stays on: gradgradcheck's function differentiates inside.
            index = divmod_index(i, x._data.shape)
            original = float(x._data[index])
            x._data[index] = original + eps
            plus = [o._data.astype("float64").reshape(-1).copy()
                    for o in _flat_outputs(func, inputs)]
            x._data[index] = original - eps
            minus = [o._data.astype("float64").reshape(-1).copy()
                     for o in _flat_outputs(func, inputs)]
            x._data[index] = original
            columns.append([(p - m) / (2 * eps) for p, m in zip(plus, minus)])
        jacobians.append(columns)
    return jacobians


def divmod_index(i, shape):
    index = []
    for size in reversed(shape):
        index.append(i % size if size else 0)
        i //= size if size else 1
    return tuple(reversed(index))


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True,
              nondet_tol=0.0, check_undefined_grad=True, check_grad_dtypes=False,
              check_batched_grad=False, fast_mode=False, masked=None):
    """True when `func`'s gradients match central finite differences at `inputs`."""
    inputs = _as_tuple(inputs)
    outputs = _flat_outputs(func, inputs)
    differentiable = [x for x in inputs if isinstance(x, _tensor.Tensor) and x._requires_grad]
    numerical = _numerical_jacobians(func, inputs, eps)
    diff_positions = [i for i, x in enumerate(inputs)
                      if isinstance(x, _tensor.Tensor) and x._requires_grad]
    for out_index, out in enumerate(outputs):
        for k in range(out._data.size):
            if out._requires_grad:
                one_hot = _np.zeros(out._data.size, out._data.dtype)
                one_hot[k] = 1
                one_hot = _tensor.make_tensor(one_hot.reshape(out._data.shape), out._device)
                grads = _grad(out, differentiable, one_hot, retain_graph=True,
                              allow_unused=True)
            else:
                grads = (None,) * len(differentiable)
            for position, g in zip(diff_positions, grads):
                x = inputs[position]
                analytical = (g._data.astype("float64").reshape(-1) if g is not None
                              else None)
                for i in range(x._data.size):
                    expected = numerical[position][i][out_index][k]
                    got = 0.0 if analytical is None else analytical[i]
                    if abs(got - expected) > atol + rtol * abs(expected):
                        message = (f"Jacobian mismatch for output {out_index} with respect to "
                                   f"input {position},\nnumerical:{expected}\nanalytical:{got}\n"
                                   f"(output element {k}, input element {i})")
                        if raise_exception:
                            raise GradcheckError(message)
                        return False
    return True


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True, **kwargs):
    """gradcheck of the backward pass itself (second derivatives), with random grad_outputs."""
    inputs = _as_tuple(inputs)
    outputs = _differentiable_outputs(func(*inputs))
    if grad_outputs is None:
        rng = _np.random.default_rng(0)
        grad_outputs = tuple(
            _tensor.make_tensor(rng.standard_normal(o._data.shape).astype(o._data.dtype),
                                o._device).requires_grad_() for o in outputs)
    grad_outputs = _as_tuple(grad_outputs)
    n_inputs = len(inputs)
    differentiable = [i for i, x in enumerate(inputs)
                      if isinstance(x, _tensor.Tensor) and x._requires_grad]

    def first_derivative(*args):
        xs, gos = args[:n_inputs], args[n_inputs:]
        outs = _differentiable_outputs(func(*xs))
        grads = _grad(outs, [xs[i] for i in differentiable], gos, create_graph=True,
                      allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(first_derivative, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception)
