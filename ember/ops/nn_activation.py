"""nn_activation ops (nn.functional)."""
__all__ = []
