"""nn.Parameter and friends."""
__all__ = []
