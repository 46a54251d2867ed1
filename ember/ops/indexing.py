"""indexing ops."""
__all__ = []
