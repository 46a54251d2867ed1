"""Constructor checks and state helpers shared by the optimizers added after Adadelta.

PyTorch validates each optimizer's hyper-parameters in its constructor with one
message per argument; the ones several optimizers share are written here once.
"""
from .._tensor import Tensor
from ..ops.creation import tensor, zeros
from .optimizer import _get_scalar_dtype

__all__ = []


def check_lr(lr):
    """A learning rate is a non-negative number or a 1-element tensor."""
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")


def check_adam_like(lr, betas, eps, weight_decay):
    """The checks NAdam, RAdam and Adamax share with Adam (in PyTorch's order)."""
    check_lr(lr)
    if not 0.0 <= eps:
        raise ValueError(f"Invalid epsilon value: {eps}")
    for i in (0, 1):
        if not 0.0 <= betas[i] < 1.0:
            raise ValueError(f"Invalid beta parameter at index {i}: {betas[i]}")
    if not 0.0 <= weight_decay:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")


def first_failure(checks):
    """Raise ValueError with the message of the first (holds, message) pair that fails."""
    for holds, message in checks:
        if not holds:
            raise ValueError(message)


def restore(optimizer, flags, counters=("step",)):
    """After `Optimizer.__setstate__`: fill the flags an older checkpoint lacks and turn
    its number counters into tensors, for every group."""
    for group in optimizer.param_groups:
        for key, value in flags.items():
            group.setdefault(key, value)
        tensor_state(optimizer.state, group, counters)


def new_step(param, capturable):
    """A fresh `step` counter: a 0-dim float tensor on the CPU, or on the parameter's
    device when capturable (PyTorch keeps it beside the parameter for graph capture)."""
    if capturable:
        return zeros((), dtype=_get_scalar_dtype(), device=param.device)
    return tensor(0.0, dtype=_get_scalar_dtype())


def tensor_state(state, group, keys):
    """Old checkpoints stored counters such as `step` as numbers; loading turns each
    of `keys` into a 0-dim tensor of the scalar dtype, as PyTorch does."""
    for p in group["params"]:
        p_state = state.get(p, [])
        if len(p_state) == 0:
            continue
        for key in keys:
            if key in p_state and not isinstance(p_state[key], Tensor):
                device = p.device if group.get("capturable") else None
                p_state[key] = tensor(float(p_state[key]), dtype=_get_scalar_dtype(),
                                      device=device)


def capturable_refused(params, message_names, *steps):
    """PyTorch's refusal of `capturable=True` on a device that cannot graph-capture."""
    devices = ["cuda", "xpu", "hpu", "privateuseone", "xla"]
    for i, p in enumerate(params):
        kind = p.device.type
        if not all(kind == s[i].device.type for s in steps) or kind not in devices:
            raise AssertionError(f"If capturable=True, {message_names} must be on supported "
                                 f"devices: {devices}.")
