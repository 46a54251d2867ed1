"""nn_resize ops (nn.functional)."""
__all__ = []
