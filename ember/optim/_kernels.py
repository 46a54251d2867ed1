"""In-place array kernels for the optimizers' hot path.

Every optimizer's update is written once with ember ops (`add_`, `lerp_`,
`addcdiv_`...), which handles everything: autograd for `differentiable=True`,
tensor hyper-parameters, half precision. Those ops compute out of place and copy
back, which costs a step about twice PyTorch's. For the common case (a float32 or
float64 parameter and gradient, number hyper-parameters, no graph) the optimizers
run the same arithmetic, op for op and in the same order, as array ufuncs writing
through `out=`, and bump each tensor's version counter once per in-place op as
PyTorch does. Each kernel below names the PyTorch op it stands for.

Rounding: each kernel rounds every product and sum to the tensor's precision, except
`add`/`add_` with an alpha on tensors of up to `FUSED_LIMIT` elements, which round
once as PyTorch's fused multiply-add does (ops.pointwise's `_fused_add`): SGD, with or
without momentum, Nesterov and weight decay, then follows PyTorch's trajectory bit for
bit on the small models of a tutorial. PyTorch also fuses `lerp` and `addcmul`, and its
vectorized float32 `sqrt` is itself 1 ulp off for ~17% of inputs; emulating the fused
forms through float64 makes NumPy five times slower on large tensors. So the Adam
family, and SGD on large tensors, agree with PyTorch to rounding (a few ulps after
hundreds of steps), not bit for bit.
"""
from ..autograd.grad_mode import state as grad_state
from ..ops._common import wrap
from ..ops.pointwise import _FUSED_LIMIT as FUSED_LIMIT, _fused_add

__all__ = []


# Hooks on a parameter (DDP's gradient hooks, for one) play no part in its update; an
# inference tensor's flag or tracked views do, so those take the ops' path.
_HOOKS_ONLY = frozenset(("hooks", "post_accumulate_hooks", "retains_grad"))


def fast(param, grad):
    """Whether `param`'s update can run as array kernels: grad mode off (nothing to
    record), float32/float64 with a matching gradient, a tensor of at least one dimension
    (NumPy turns 0-dim results into scalars that `out=` cannot target) without
    self-overlap, and nothing but hooks in its extras. Otherwise ember ops run it, with
    their checks and autograd."""
    if grad_state.enabled:
        return False
    data = grad._data
    p = param._data
    extras = param._extras
    return (p.dtype.char in "fd" and data.dtype == p.dtype and data.shape == p.shape
            and p.ndim != 0 and (extras is None or extras.keys() <= _HOOKS_ONLY)
            and 0 not in p.strides)


def bump(*tensors):
    """Count one in-place write on each tensor, as its in-place op would."""
    for t in tensors:
        t._storage.version += 1


def step_(step_t):
    """`step_t += 1` on the 0-dim step counter; returns the new count as a float."""
    data = step_t._data
    data += 1
    step_t._storage.version += 1
    return float(data)


def new_tensor(array, like):
    """A fresh ember tensor (e.g. a momentum buffer) around `array`, on `like`'s device."""
    return wrap(array, like._device)


def add(xp, x, y, alpha):
    """`x.add(y, alpha=alpha)`: a new array x + alpha * y (rounded once when small)."""
    if x.size <= FUSED_LIMIT:
        return _fused_add(x, y, alpha, xp)
    out = xp.multiply(y, alpha)
    out += x
    return out


def add_(xp, x, y, alpha, tmp):
    """`x.add_(y, alpha=alpha)`: x + alpha * y (rounded once when small)."""
    if alpha.__class__ is int and alpha == 1:
        x += y
    elif x.size <= FUSED_LIMIT:
        x[...] = _fused_add(x, y, alpha, xp)
    else:
        xp.multiply(y, alpha, out=tmp)
        x += tmp


def gradient(xp, grad, param, maximize, weight_decay):
    """`grad = -grad if maximize`, then `grad = grad.add(param, alpha=weight_decay)`."""
    g = grad._data
    if maximize:
        g = xp.negative(g)
    if weight_decay != 0:
        g = add(xp, g, param._data, weight_decay)
    return g


def lerp_(xp, x, y, weight, tmp):
    """`x.lerp_(y, weight)` for a number weight, from the nearer end as PyTorch does:
    x + weight * (y - x) below one half, else y - (y - x) * (1 - weight), with the
    weight and 1 - weight in the tensor's precision."""
    w = x.dtype.type(weight)
    diff = xp.subtract(y, x, out=tmp)
    if abs(w) < 0.5:
        diff *= w
        x += diff
    else:
        diff *= x.dtype.type(1) - w
        xp.subtract(y, diff, out=x)


def addcmul_(xp, x, t1, t2, value, tmp):
    """`x.addcmul_(t1, t2, value=value)`: x + (value * t1) * t2."""
    xp.multiply(t1, value, out=tmp)
    tmp *= t2
    x += tmp


def addcdiv_(xp, x, t1, t2, value, tmp):
    """`x.addcdiv_(t1, t2, value=value)`: x + (value * t1) / t2."""
    xp.multiply(t1, value, out=tmp)
    tmp /= t2
    x += tmp
