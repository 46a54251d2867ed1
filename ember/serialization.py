"""ember.save / ember.load in PyTorch's checkpoint format."""
__all__ = []
