"""ember.linalg: the `torch.linalg` namespace; the ops themselves live in ops/linalg.py."""
from .ops.linalg import LINALG_NAMESPACE as _NAMESPACE

globals().update(_NAMESPACE)
__all__ = sorted(_NAMESPACE)
