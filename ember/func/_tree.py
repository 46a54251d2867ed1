"""A small pytree: tensors nested in tuples, lists and dicts, flattened and rebuilt.

The transforms accept such nests wherever PyTorch's do (arguments, outputs, in_dims);
`describe` writes a structure the way PyTorch's TreeSpec prints, for its messages.
"""

__all__ = ["flatten", "unflatten", "describe"]


def flatten(tree):
    """(leaves, spec): the leaves in order and what `unflatten` needs to rebuild the nest."""
    leaves = []
    return leaves, _flatten(tree, leaves)


def _flatten(tree, leaves):
    if isinstance(tree, (tuple, list)):
        return (type(tree), [_flatten(item, leaves) for item in tree])
    if isinstance(tree, dict):
        return (dict, list(tree), [_flatten(value, leaves) for value in tree.values()])
    leaves.append(tree)
    return None


def unflatten(leaves, spec):
    """The nest `spec` describes, with `leaves` (an iterable, consumed in order) inside."""
    return _unflatten(iter(leaves), spec)


def _unflatten(leaves, spec):
    if spec is None:
        return next(leaves)
    if spec[0] is dict:
        return {key: _unflatten(leaves, child) for key, child in zip(spec[1], spec[2])}
    items = [_unflatten(leaves, child) for child in spec[1]]
    return spec[0](items) if spec[0] in (tuple, list) else spec[0](*items)


def broadcast(prefix, spec):
    """Leaves of `prefix` repeated over the subtrees of `spec` it stands for, or None
    where `prefix` does not match (an int in_dims applies to every input below it)."""
    out = []
    return out if _broadcast(prefix, spec, out) else None


def _broadcast(prefix, spec, out):
    if spec is None or not isinstance(prefix, (tuple, list, dict)):
        if isinstance(prefix, (tuple, list, dict)):
            return False
        out.extend([prefix] * count(spec))
        return True
    if spec[0] is dict:
        if not isinstance(prefix, dict) or list(prefix) != list(spec[1]):
            return False
        return all(_broadcast(prefix[k], c, out) for k, c in zip(spec[1], spec[2]))
    if type(prefix) is not spec[0] or len(prefix) != len(spec[1]):
        return False
    return all(_broadcast(p, c, out) for p, c in zip(prefix, spec[1]))


def count(spec):
    """How many leaves the structure holds."""
    if spec is None:
        return 1
    children = spec[2] if spec[0] is dict else spec[1]
    return sum(count(child) for child in children)


def describe(spec, indent=0):
    """The structure as PyTorch's TreeSpec repr writes it: TreeSpec(tuple, None, [*,\\n  *])."""
    if spec is None:
        return "*"
    pad = "\n" + " " * (indent + 2)
    if spec[0] is dict:
        kind, context, children = "dict", repr(spec[1]), spec[2]
    else:
        kind, context, children = spec[0].__name__, "None", spec[1]
    inner = ("," + pad).join(describe(child, indent + 2) for child in children)
    return f"TreeSpec({kind}, {context}, [{inner}])"
