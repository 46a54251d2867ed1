"""ctc_loss: Connectionist Temporal Classification, the negative log-likelihood of a target
sequence summed over every alignment of it to the input frames.

The forward runs PyTorch's log-space alpha recursion over the extended target (blanks between
and around the labels), one vectorised step per time frame for the whole batch. The node
CtcLossBackward0 runs the beta recursion and returns PyTorch's gradient
exp(log_probs) - exp(log_alpha + log_beta + nll - log_probs) summed per class, which is the
gradient through a log_softmax that produced `log_probs` (PyTorch's convention, matched).
Reductions are composed outside the node, as PyTorch composes them (MeanBackward0 over
DivBackward0 for 'mean', WhereBackward0 for zero_infinity).
"""
from .. import _dtype, _errors
from ..autograd.graph import Node
from ._common import attach, grad_state, make_tensor
from .pointwise_select import where

__all__ = ["ctc_loss"]

_REDUCTIONS = ("none", "mean", "sum")


def _logaddexp(xp, *terms):
    """log(sum(exp(terms))) elementwise, -inf where every term is -inf (no NaN)."""
    top = terms[0]
    for term in terms[1:]:
        top = xp.maximum(top, term)
    finite = xp.where(xp.isneginf(top), 0, top)
    total = sum(xp.exp(term - finite) for term in terms)
    with xp.errstate(divide="ignore"):
        return xp.where(xp.isneginf(top), -xp.inf, xp.log(total) + finite)


def _lengths(xp, value, batch):
    data = value._data if hasattr(value, "_data") else xp.asarray(value)
    return xp.broadcast_to(data.astype(xp.int64).reshape(-1), (batch,))


def _extended(xp, targets, target_lengths, blank, batch):
    """Per sample the extended label sequence (blank, l1, blank, l2, ..., blank), padded."""
    data = targets._data.astype(xp.int64)
    longest = int(target_lengths.max()) if batch else 0
    labels = xp.full((batch, max(longest, 0)), blank, xp.int64)
    if data.ndim == 2:                      # padded (N, S_max)
        labels[:, :min(longest, data.shape[-1])] = data[:, :longest]
    else:                                   # all targets concatenated
        starts = xp.concatenate([[0], xp.cumsum(target_lengths)[:-1]])
        for n in range(batch):
            labels[n, :target_lengths[n]] = data[starts[n]:starts[n] + target_lengths[n]]
    extended = xp.full((batch, 2 * longest + 1), blank, xp.int64)
    extended[:, 1::2] = labels
    # a label (odd state) may skip the state before it unless it repeats the previous label;
    # PyTorch compares labels only, so a blank used as a label skips like any other
    skip = xp.zeros(extended.shape, bool)
    skip[:, 3::2] = labels[:, 1:] != labels[:, :-1]
    return extended, skip


def _alpha(xp, lp, extended, skip, state_count):
    frames, batch, _ = lp.shape
    states = extended.shape[1]
    rows = xp.arange(batch)[:, None]
    emit = lp[:, rows, extended]                            # (T, N, states)
    valid = xp.arange(states)[None, :] < state_count[:, None]
    alpha = xp.full((frames, batch, states), -xp.inf, lp.dtype)
    alpha[0, :, :2] = emit[0, :, :2]
    alpha[0] = xp.where(valid, alpha[0], -xp.inf)
    for t in range(1, frames):
        previous = alpha[t - 1]
        one = xp.concatenate([xp.full((batch, 1), -xp.inf, lp.dtype), previous[:, :-1]], 1)
        two = xp.concatenate([xp.full((batch, 2), -xp.inf, lp.dtype), previous[:, :-2]], 1)
        two = xp.where(skip, two, -xp.inf)
        alpha[t] = xp.where(valid, _logaddexp(xp, previous, one, two) + emit[t], -xp.inf)
    return alpha, emit


def _beta(xp, emit, skip, state_count, input_lengths):
    frames, batch, states = emit.shape
    valid = xp.arange(states)[None, :] < state_count[:, None]
    ends = (xp.arange(states)[None, :] >= state_count[:, None] - 2) & valid
    beta = xp.full((frames, batch, states), -xp.inf, emit.dtype)
    skip_next = xp.zeros(skip.shape, bool)
    skip_next[:, :-2] = skip[:, 2:]
    for t in range(frames - 1, -1, -1):
        last = (input_lengths - 1 == t)[:, None]
        if t + 1 < frames:
            following = beta[t + 1]
            one = xp.concatenate([following[:, 1:], xp.full((batch, 1), -xp.inf, emit.dtype)], 1)
            two = xp.concatenate([following[:, 2:], xp.full((batch, 2), -xp.inf, emit.dtype)], 1)
            two = xp.where(skip_next, two, -xp.inf)
            inner = _logaddexp(xp, following, one, two) + emit[t]
        else:
            inner = xp.full((batch, states), -xp.inf, emit.dtype)
        start = xp.where(ends, emit[t], -xp.inf)
        beta[t] = xp.where(valid, xp.where(last, start, inner), -xp.inf)
    return beta


def _ctc_loss(log_probs, targets, input_lengths, target_lengths, blank, zero_infinity):
    """The per-sample negative log-likelihoods, (N,), with their CtcLossBackward0."""
    xp = log_probs._device.xp
    lp = log_probs._data
    if lp.dtype in _dtype.COMPUTED_IN_FLOAT32:  # no half-type kernel in PyTorch's CPU build
        raise NotImplementedError(_errors.not_implemented_for("ctc_loss_cpu", log_probs.dtype))
    batch = lp.shape[1]
    inputs = _lengths(xp, input_lengths, batch)
    lengths = _lengths(xp, target_lengths, batch)
    extended, skip = _extended(xp, targets, lengths, blank, batch)
    state_count = 2 * lengths + 1
    alpha, emit = _alpha(xp, lp, extended, skip, state_count)
    rows = xp.arange(batch)
    final = alpha[xp.maximum(inputs - 1, 0), rows]
    last = final[rows, state_count - 1]
    before = xp.where(state_count >= 2, final[rows, xp.maximum(state_count - 2, 0)], -xp.inf)
    nll = -_logaddexp(xp, last, before)
    out = make_tensor(nll.astype(lp.dtype, copy=False), log_probs._device)
    if grad_state.enabled and log_probs._requires_grad:
        node = CtcLossBackward0()
        node.state = (alpha, emit, extended, skip, state_count, inputs, nll, zero_infinity)
        node.save(log_probs)
        attach(out, node, log_probs)
    return out


class CtcLossBackward0(Node):
    __slots__ = ("state",)

    def backward(self, grad):
        (log_probs,) = self.saved_tensors
        alpha, emit, extended, skip, state_count, inputs, nll, zero_infinity = self.state
        xp = log_probs._device.xp
        lp = log_probs._data
        frames, batch, classes = lp.shape
        beta = _beta(xp, emit, skip, state_count, inputs)
        both = alpha + beta                                   # (T, N, states)
        # PyTorch's last frame assigns the final label's term over the final blank's when
        # that label is the blank index itself, so the final blank state drops out there
        rows = xp.arange(batch)
        last_label = extended[rows, xp.maximum(state_count - 2, 0)]
        dropped = (state_count > 1) & (last_label == extended[rows, 0]) & (inputs > 0)
        both[xp.maximum(inputs - 1, 0)[dropped], rows[dropped], (state_count - 1)[dropped]] = \
            -xp.inf
        # log-sum over the states that carry each class
        peak = both.max(axis=2, keepdims=True)
        peak = xp.where(xp.isneginf(peak), 0, peak)
        weights = xp.zeros((frames, batch, classes), lp.dtype)
        index = xp.broadcast_to(extended[None], both.shape)
        planes = (xp.arange(frames)[:, None, None], xp.arange(batch)[None, :, None])
        xp.add.at(weights, planes + (index,), xp.exp(both - peak))
        with xp.errstate(divide="ignore"):
            per_class = xp.log(weights) + peak
        result = xp.exp(lp) - xp.exp(per_class + nll[None, :, None] - lp)
        inside = xp.arange(frames)[:, None] < inputs[None, :]
        result = xp.where(inside[:, :, None], result, 0)
        if zero_infinity:
            result = xp.where(xp.isinf(nll)[None, :, None], 0, result)
        result = result * grad._data[None, :, None]
        return (make_tensor(result.astype(lp.dtype, copy=False), log_probs._device),)


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean",
             zero_infinity=False):
    """CTC loss of (T, N, C) log-probabilities (or unbatched (T, C)) against the targets."""
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    for name, lengths in (("input_lengths", input_lengths), ("target_lengths", target_lengths)):
        if hasattr(lengths, "_data") and lengths._data.dtype.kind not in "iu":
            raise RuntimeError(f"{name} must be integral")
    unbatched = log_probs.dim() == 2
    if unbatched:
        log_probs = log_probs.unsqueeze(1)
        targets = targets.unsqueeze(0) if targets.dim() == 1 else targets
    losses = _ctc_loss(log_probs, targets, input_lengths, target_lengths, blank, zero_infinity)
    if zero_infinity:
        losses = where(losses == float("inf"), losses.new_zeros(()), losses)
    if unbatched:
        losses = losses.squeeze(0)
    if reduction == "sum":
        return losses.sum()
    if reduction == "mean":
        xp = log_probs._device.xp
        lengths = _lengths(xp, target_lengths, log_probs.shape[1])
        divisor = make_tensor(xp.maximum(lengths, 1), log_probs._device)
        return (losses / divisor).mean()
    return losses


def torch_ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=1,
                   zero_infinity=False):
    """ember.ctc_loss: the same op, with the reduction given as PyTorch's enum (0 none,
    1 mean, 2 sum), as torch.ctc_loss takes it."""
    return ctc_loss(log_probs, targets, input_lengths, target_lengths, blank,
                    _REDUCTIONS[reduction], zero_infinity)
