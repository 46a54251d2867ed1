"""conv ops (nn.functional)."""
__all__ = []
