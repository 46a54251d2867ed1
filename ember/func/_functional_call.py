"""functional_call: a module run with some parameters and buffers replaced, for transforms.

The swap is nn.utils.stateless's; this door takes one dict or a sequence of dicts
(PyTorch refuses a name given in two of them) and does not warn.
"""
from ..nn.utils.stateless import _reparametrize_module

__all__ = ["functional_call"]


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *,
                    tie_weights=True, strict=False):
    """module(*args, **kwargs) with the named tensors standing in for its own."""
    if isinstance(parameter_and_buffer_dicts, dict):
        merged = parameter_and_buffer_dicts
    elif isinstance(parameter_and_buffer_dicts, (list, tuple)):
        merged, seen_twice = {}, []
        for table in parameter_and_buffer_dicts:
            for key, value in table.items():
                if key in merged:
                    seen_twice.append(key)
                merged[key] = value
        if seen_twice:
            raise ValueError(f"{seen_twice} appeared in multiple dictionaries; behavior of "
                             "functional call is ambiguous")
    else:
        raise ValueError("Expected parameter_and_buffer_dicts to be a dict, or a list/tuple "
                         f"of dicts, but got {type(parameter_and_buffer_dicts)}")
    if kwargs is None:
        kwargs = {}
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _reparametrize_module(module, merged, tie_weights, strict):
        return module(*args, **kwargs)
