"""normalization ops (nn.functional)."""
__all__ = []
