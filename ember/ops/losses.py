"""losses ops (nn.functional)."""
__all__ = []
