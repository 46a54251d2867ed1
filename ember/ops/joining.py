"""joining ops."""
__all__ = []
