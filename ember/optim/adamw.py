"""optim: adamw."""
__all__ = []
