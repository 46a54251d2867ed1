"""ember.compile: PyTorch's argument checks, then the function or module unchanged.

ember has no graph compiler; compiled code would compute what eager code
computes, so returning the model itself gives the same outputs (unlike PyTorch,
`compile(model) is model`).
"""
_MODES = ("default", "lite", "reduce-overhead", "max-autotune-no-cudagraphs", "max-autotune")


def compile(model=None, *, fullgraph=False, dynamic=None, backend="inductor", mode=None,
            options=None, disable=False):  # noqa: A001 - PyTorch's name
    """Check the arguments as PyTorch does; return `model` itself (or a decorator)."""
    if model is None:
        def decorator(function):
            return compile(function, fullgraph=fullgraph, dynamic=dynamic, backend=backend,
                           mode=mode, options=options, disable=disable)
        return decorator
    if not callable(model):
        raise AssertionError(f"A callable function is expected, but {type(model)} is provided.")
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be "
                           "specified at the same time.")
    if mode is not None and mode not in _MODES:
        raise RuntimeError(f"Unrecognized mode={mode}, should be one of: {', '.join(_MODES)}")
    return model
