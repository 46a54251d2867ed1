"""nn_linear ops (nn.functional)."""
__all__ = []
