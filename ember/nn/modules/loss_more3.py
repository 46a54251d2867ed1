"""NLLLoss2d: PyTorch's deprecated alias of NLLLoss, kept for old scripts (last11a)."""
import warnings

from .loss import NLLLoss

__all__ = ["NLLLoss2d"]


class NLLLoss2d(NLLLoss):
    """NLLLoss under its old name; constructing one warns as PyTorch does."""

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None,
                 reduction="mean"):
        warnings.warn("`NLLLoss2d` has been deprecated. Please use `NLLLoss` instead as a "
                      "drop-in replacement and see https://pytorch.org/docs/main/nn.html"
                      "#torch.nn.NLLLoss for more details.", FutureWarning, stacklevel=2)
        super().__init__(weight, size_average, ignore_index, reduce, reduction)
