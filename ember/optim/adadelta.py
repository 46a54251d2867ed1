"""optim: adadelta."""
__all__ = []
