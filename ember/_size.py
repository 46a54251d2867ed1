"""ember.Size: the tuple subclass `Tensor.shape` returns, with PyTorch's repr."""

__all__ = ["Size"]


class Size(tuple):
    """A tuple of ints that prints as `ember.Size([2, 3])`."""

    __slots__ = ()

    def __repr__(self):
        return f"ember.Size([{', '.join(str(s) for s in self)}])"

    __str__ = __repr__

    def numel(self):
        """The number of elements a tensor of this shape holds."""
        n = 1
        for s in self:
            n *= s
        return n

    def __getitem__(self, index):
        out = tuple.__getitem__(self, index)
        return Size(out) if isinstance(index, slice) else out

    def __add__(self, other):
        return Size(tuple.__add__(self, other))

    def __radd__(self, other):
        return Size(tuple(other) + tuple(self))

    def __mul__(self, n):
        return Size(tuple.__mul__(self, n))

    __rmul__ = __mul__

    def __reduce__(self):
        return (Size, (tuple(self),))
