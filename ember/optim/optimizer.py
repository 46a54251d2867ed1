"""optim: optimizer."""
__all__ = []
