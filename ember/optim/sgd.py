"""optim: sgd."""
__all__ = []
