"""ember.masked: reductions and normalizations that ignore masked-out elements, and
MaskedTensor (PyTorch's prototype), a tensor carrying its own mask."""
from ._ops import (amax, amin, argmax, argmin, cumprod, cumsum, log_softmax, logaddexp,
                   logsumexp, mean, median, norm, normalize, prod, softmax, softmin, std,
                   sum, var)
from .maskedtensor import MaskedTensor, as_masked_tensor, is_masked_tensor, masked_tensor

__all__ = ["amax", "amin", "argmax", "argmin", "cumprod", "cumsum", "log_softmax", "logsumexp",
           "mean", "median", "norm", "normalize", "prod", "softmax", "softmin", "std", "sum",
           "var", "logaddexp", "MaskedTensor", "as_masked_tensor", "is_masked_tensor",
           "masked_tensor"]
