"""CTCLoss and AdaptiveLogSoftmaxWithLoss (nn12)."""
from collections import namedtuple

from ...ops import ctc
from .. import functional as _functional  # its door: PyTorch's wrong-type errors
from ...ops.joining import cat
from ...ops.nn_activation import log_softmax
from .container import ModuleList, Sequential
from .linear import Linear
from .loss import _Loss
from .module import Module

__all__ = ["CTCLoss", "AdaptiveLogSoftmaxWithLoss"]


class CTCLoss(_Loss):
    """Connectionist Temporal Classification loss over unsegmented sequences."""

    def __init__(self, blank=0, reduction="mean", zero_infinity=False):
        super().__init__(reduction=reduction)
        self.blank, self.zero_infinity = blank, zero_infinity

    def forward(self, log_probs, targets, input_lengths, target_lengths):
        return _functional.ctc_loss(log_probs, targets, input_lengths, target_lengths,
                                    self.blank, self.reduction, self.zero_infinity)


_ASMoutput = namedtuple("_ASMoutput", ["output", "loss"])

_CUTOFF_RULE = ("cutoffs should be a sequence of unique, positive integers sorted in an "
                "increasing order, where each value is between 1 and n_classes-1")


class AdaptiveLogSoftmaxWithLoss(Module):
    """Log-softmax over many classes as a head (frequent classes + one slot per cluster)
    and, per cluster of rarer classes, a low-rank tail: cheap for skewed class frequencies."""

    def __init__(self, in_features, n_classes, cutoffs, div_value=4.0, head_bias=False,
                 device=None, dtype=None):
        super().__init__()
        cutoffs = list(cutoffs)
        if not cutoffs:
            raise ValueError("cutoffs should be a sequence of length larger than 0")
        well_formed = (cutoffs == sorted(cutoffs) and min(cutoffs) > 0
                       and max(cutoffs) <= n_classes - 1 and len(set(cutoffs)) == len(cutoffs)
                       and all(int(c) == c for c in cutoffs))
        if not well_formed:
            raise ValueError(_CUTOFF_RULE)
        self.in_features, self.n_classes = in_features, n_classes
        self.cutoffs = cutoffs + [n_classes]
        self.div_value, self.head_bias = div_value, head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        factory = {"device": device, "dtype": dtype}
        self.head = Linear(in_features, self.head_size, bias=head_bias, **factory)
        self.tail = ModuleList()
        for i, (low, high) in enumerate(zip(self.cutoffs, self.cutoffs[1:])):
            hidden = int(in_features // (div_value ** (i + 1)))
            self.tail.append(Sequential(Linear(in_features, hidden, bias=False, **factory),
                                        Linear(hidden, high - low, bias=False, **factory)))

    def reset_parameters(self):
        self.head.reset_parameters()
        for projection in self.tail:
            for layer in projection:
                layer.reset_parameters()

    def _check(self, input, target):
        if target.dim() == 1:
            if input.size(0) != target.size(0):
                raise RuntimeError("Input and target should have the same size in the batch "
                                   "dimension.")
            if input.dim() != 2:
                raise RuntimeError("1D target tensor expects 2D input tensors, but found "
                                   "inputs with size", input.size())
        elif target.dim() == 0:
            if input.dim() != 1:
                raise RuntimeError("0D target tensor expects 1D input tensors, but found "
                                   "inputs with size", input.size())
        else:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")

    def forward(self, input_, target_):
        self._check(input_, target_)
        batched = target_.dim() > 0
        input = input_ if batched else input_.unsqueeze(0)
        target = target_ if batched else target_.unsqueeze(0)
        if target.numel() and (target.min().item() < 0 or
                               target.max().item() > self.n_classes - 1):
            raise RuntimeError(f"Target values should be in [0, {self.n_classes - 1}], but "
                               f"values in range [{target.min().item()}, "
                               f"{target.max().item()}] were found. ")
        # the head column each row reads: its own class, or its cluster's slot
        head_column = target.clone()
        tail_terms = input.new_zeros(target.size(0))
        for i, (low, high) in enumerate(zip(self.cutoffs, self.cutoffs[1:])):
            inside = (target >= low) & (target < high)
            rows = inside.nonzero().squeeze(1)
            if rows.numel() == 0:
                continue
            head_column = head_column.masked_fill(inside, self.shortlist_size + i)
            cluster = log_softmax(self.tail[i](input.index_select(0, rows)), dim=1)
            picked = cluster.gather(1, (target.index_select(0, rows) - low).unsqueeze(1))
            tail_terms = tail_terms.index_put((rows,), picked.squeeze(1))
        head = log_softmax(self.head(input), dim=1)
        output = tail_terms + head.gather(1, head_column.unsqueeze(1)).squeeze(1)
        loss = (-output).mean()
        return _ASMoutput(output if batched else output.squeeze(0), loss)

    def _full_log_prob(self, input, head_output):
        head = log_softmax(head_output, dim=1)
        pieces = [head[:, :self.shortlist_size]]
        for i, projection in enumerate(self.tail):
            slot = head[:, self.shortlist_size + i].unsqueeze(1)
            pieces.append(log_softmax(projection(input), dim=1) + slot)
        return cat(pieces, 1)

    def log_prob(self, input):
        """Log-probabilities of every class, (N, n_classes) (or (n_classes,) unbatched)."""
        batched = input.dim() > 1
        x = input if batched else input.unsqueeze(0)
        out = self._full_log_prob(x, self.head(x))
        return out if batched else out.squeeze(0)

    def predict(self, input):
        """The most likely class per row; the tails run only for rows the head sends there."""
        head_output = self.head(input)
        best = head_output.argmax(dim=1)
        outside = best >= self.shortlist_size
        if not outside.any():
            return best
        if outside.all():
            return self._full_log_prob(input, head_output).argmax(dim=1)
        full = self._full_log_prob(input[outside], head_output[outside])
        return best.index_put((outside,), full.argmax(dim=1))

