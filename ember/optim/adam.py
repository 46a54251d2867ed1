"""optim: adam."""
__all__ = []
