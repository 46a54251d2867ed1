"""nn_ops ops."""
__all__ = []
