"""ember.linalg: the `torch.linalg` namespace; the ops themselves live in ember/ops/."""
from .ops.linalg import matmul
from .ops.norms import matrix_norm, norm, vecdot, vector_norm

__all__ = ["matmul", "matrix_norm", "norm", "vecdot", "vector_norm"]
