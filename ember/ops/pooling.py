"""pooling ops (nn.functional)."""
__all__ = []
