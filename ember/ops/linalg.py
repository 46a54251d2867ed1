"""linalg ops."""
__all__ = []
LINALG_NAMESPACE = {}
