"""Constructor checks and state helpers shared by the whole optimizer family.

PyTorch validates each optimizer's hyper-parameters in its constructor with one
message per argument ("Invalid <what>: <value>"). Here each optimizer lists its
arguments as rows (label, value, bound) in PyTorch's order and one loop raises the
first failure, so an optimizer's checks read as a table rather than a ladder of ifs.
"""
from .._tensor import Tensor
from ..ops.creation import tensor, zeros
from .optimizer import _get_scalar_dtype

__all__ = []


# Bounds a hyper-parameter must meet. They differ on NaN on purpose: PyTorch's SGD
# refuses only `lr < 0` (so NaN passes), the others refuse `not 0 <= value`.
def _not_negative(value):
    return not value < 0.0


def _at_least_zero(value):
    return 0.0 <= value


def _fraction(value):
    return 0.0 <= value <= 1.0


def _below_one(value):
    return 0.0 <= value < 1.0


NOT_NEGATIVE, AT_LEAST_ZERO, FRACTION, BELOW_ONE = (_not_negative, _at_least_zero,
                                                    _fraction, _below_one)


def refuse_invalid(*rows):
    """Raise PyTorch's `Invalid <label>: <value>` for the first (label, value, bound)
    row whose value is out of bounds; rows are checked in the order given."""
    for label, value, bound in rows:
        if not bound(value):
            raise ValueError(f"Invalid {label}: {value}")


def lr_row(lr, bound=AT_LEAST_ZERO):
    """The learning-rate row; a tensor lr must hold exactly one element first."""
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    return ("learning rate", lr, bound)


def check_lr(lr):
    """A learning rate is a non-negative number or a 1-element tensor."""
    refuse_invalid(lr_row(lr))


def beta_rows(betas):
    """Rows for the two running-average coefficients, each in [0, 1)."""
    return tuple((f"beta parameter at index {i}", betas[i], BELOW_ONE) for i in (0, 1))


def check_adam_like(lr, betas, eps, weight_decay):
    """The checks NAdam, RAdam and Adamax share with Adam (in PyTorch's order)."""
    refuse_invalid(lr_row(lr), ("epsilon value", eps, AT_LEAST_ZERO))
    # betas are indexed only once lr and eps have passed, as PyTorch reads them.
    refuse_invalid(*beta_rows(betas), ("weight_decay value", weight_decay, AT_LEAST_ZERO))


def first_failure(checks):
    """Raise ValueError with the message of the first (holds, message) pair that fails."""
    for holds, message in checks:
        if not holds:
            raise ValueError(message)


def restore(optimizer, flags, counters=("step",), beside=("capturable",)):
    """After `Optimizer.__setstate__`: fill the flags an older checkpoint lacks and turn
    its number counters into tensors, for every group (see `tensor_state`)."""
    for group in optimizer.param_groups:
        for key, value in flags.items():
            group.setdefault(key, value)
        tensor_state(optimizer.state, group, counters, beside)


def new_step(param, on_device, fused=False):
    """A fresh `step` counter: a 0-dim float tensor on the CPU, or on the parameter's
    device when `on_device` (capturable or fused: PyTorch keeps it beside the parameter
    for graph capture); fused counters are always float32."""
    if on_device:
        return zeros((), dtype=_get_scalar_dtype(is_fused=fused), device=param.device)
    return tensor(0.0, dtype=_get_scalar_dtype())


def tensor_state(state, group, keys, beside=("capturable",)):
    """Old checkpoints stored counters such as `step` as numbers; loading turns each
    of `keys` into a 0-dim tensor of the scalar dtype, as PyTorch does. The counter goes
    on the parameter's device when any of the group's `beside` flags is set, and is then
    float32 if the group is fused."""
    on_device = any(group.get(flag) for flag in beside)
    dtype = _get_scalar_dtype(is_fused=group.get("fused") if on_device else None)
    for p in group["params"]:
        p_state = state.get(p, ())
        numbers = [key for key in keys if key in p_state and not isinstance(p_state[key], Tensor)]
        for key in numbers:
            p_state[key] = tensor(float(p_state[key]), dtype=dtype,
                                  device=p.device if on_device else None)


def capturable_refused(params, message_names, *steps):
    """PyTorch's refusal of `capturable=True` on a device that cannot graph-capture."""
    devices = ["cuda", "xpu", "hpu", "privateuseone", "xla"]
    for i, p in enumerate(params):
        kind = p.device.type
        if not all(kind == s[i].device.type for s in steps) or kind not in devices:
            raise AssertionError(f"If capturable=True, {message_names} must be on supported "
                                 f"devices: {devices}.")


def gather(optimizer, group, fill_state):
    """The group's parameters that received a gradient, their gradients and their state
    dicts; an empty state (first step, or a parameter added later) is filled first by
    `fill_state(state, param, group)`."""
    params = [p for p in group["params"] if p.grad is not None]
    states = [optimizer.state[p] for p in params]
    for param, state in zip(params, states):
        if not state:
            fill_state(state, param, group)
    return params, [p.grad for p in params], states
