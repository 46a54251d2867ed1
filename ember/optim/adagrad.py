"""optim: adagrad."""
__all__ = []
