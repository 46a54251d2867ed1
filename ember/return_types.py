"""Named tuples returned by ops such as max(dim) -- `ember.return_types.max(values, indices)`."""
__all__ = []
