"""What is fuzzed: torch's public API intersected with ember's, and how each is called.

Names come from `dir(torch)`, `dir(torch.Tensor)`, `dir(torch.nn.functional)` and the
nn.Module classes of `torch.nn`, kept where ember has the same name. Parameters come
from torch's own signature table (`torch.overrides.get_testing_overrides()`), else from
the Python signature; `SIGNATURES` below overrides the few that neither describes.
Names torch has and ember lacks are counted (`missing_names`), never failed on.
"""
import dataclasses
import inspect

import torch

import ember

# Never fuzzed: they act on global state, files, hooks or the autograd graph, where a
# differential call says nothing (or changes the process for every later test).
EXCLUDED = {
    "load", "save", "manual_seed", "seed", "initial_seed", "set_rng_state", "get_rng_state",
    "set_default_dtype", "set_printoptions", "from_dlpack", "from_numpy", "is_grad_enabled",
    "is_inference_mode_enabled", "get_default_dtype",
    "backward", "register_hook", "register_post_accumulate_grad_hook", "retain_grad",
    "data_ptr", "const_data_ptr", "numpy", "cuda", "get_device", "grad", "grad_fn", "data",
    "retains_grad",
    "requires_grad", "is_leaf", "type", "__array__", "__dlpack__", "__dlpack_device__",
    "__reduce__", "__reduce_ex__", "__deepcopy__", "__setattr__", "__getattribute__",
    "__init__", "__new__", "__sizeof__", "__init_subclass__", "__subclasshook__", "__dir__",
    "__class__", "__doc__", "__module__", "__weakref__", "__delattr__", "__getstate__",
    "__hash__", "__format__", "__array_priority__", "__iter__", "__setitem__", "__getitem__",
    "__str__", "__repr__",
    # process-wide settings (threads, determinism, autocast): a drawn call would change
    # them for every later test in torch and ember alike; tests/test_api_surface.py and
    # tests/test_surface_settings.py compare them with bad arguments and restore them
    "set_num_threads", "set_num_interop_threads", "set_deterministic_debug_mode",
    "use_deterministic_algorithms", "set_autocast_cache_enabled", "set_autocast_enabled",
    "set_autocast_dtype", "set_float32_matmul_precision", "set_default_device",
    "set_anomaly_enabled", "set_warn_always", "set_flush_denormal",
    "set_autocast_cpu_enabled", "set_autocast_cpu_dtype", "set_autocast_gpu_dtype",
    "set_autocast_ipu_enabled", "set_autocast_ipu_dtype", "set_autocast_xla_enabled",
    "set_autocast_xla_dtype", "autocast_increment_nesting", "autocast_decrement_nesting",
}

# Results whose values are random: dtype, shape and errors are still compared.
RANDOM = {
    "bernoulli", "multinomial", "normal", "rand", "rand_like", "randint", "randint_like",
    "randn", "randn_like", "randperm", "empty", "empty_like", "empty_strided", "new_empty",
    "bernoulli_", "cauchy_", "exponential_", "geometric_", "log_normal_", "normal_",
    "random_", "uniform_", "dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout",
    "feature_alpha_dropout", "rrelu", "Dropout", "Dropout1d", "Dropout2d", "Dropout3d",
    "AlphaDropout", "FeatureAlphaDropout", "RReLU", "gumbel_softmax",
    "poisson", "binomial",  # distA: unseeded here; seeded draws match in test_distributions
    "empty_permuted", "new", "resize_", "resize_as_",  # ops13: uninitialised memory
    "new_empty_strided",  # fuzz3: uninitialised memory too
}

# Parameter lists for names torch's override table lacks or describes unhelpfully.
# Each entry: parameter names, required first; a trailing "=" marks an optional one.
SIGNATURES = {
    "zeros": ("size", "dtype="), "ones": ("size", "dtype="), "empty": ("size", "dtype="),
    "rand": ("size", "dtype="), "randn": ("size", "dtype="),
    "full": ("size", "fill_value", "dtype="), "eye": ("n", "m=", "dtype="),
    "arange": ("start", "end=", "step=", "dtype="), "range": ("start", "end", "step=", "dtype="),
    "linspace": ("start", "end", "steps", "dtype="),
    "logspace": ("start", "end", "steps", "base=", "dtype="),
    "tensor": ("data", "dtype="), "as_tensor": ("data", "dtype="), "asarray": ("data", "dtype="),
    "scalar_tensor": ("s", "dtype="), "empty_strided": ("size", "stride", "dtype="),
    "randint": ("high", "size", "dtype="), "randperm": ("n", "dtype="),
    "normal": ("mean", "std"), "tril_indices": ("row", "col", "offset="),
    "triu_indices": ("row", "col", "offset="), "promote_types": ("type1", "type2"),
    "result_type": ("tensor1", "tensor2"), "can_cast": ("from_", "to"),
    "broadcast_shapes": ("*shapes",), "rand_like": ("input", "dtype="),
    "randn_like": ("input", "dtype="), "randint_like": ("input", "high", "dtype="),
    "as_strided": ("input", "size", "stride", "storage_offset="),
    "new_empty": ("self", "size", "dtype="), "new_zeros": ("self", "size", "dtype="),
    "new_ones": ("self", "size", "dtype="), "new_full": ("self", "size", "fill_value", "dtype="),
    "new_tensor": ("self", "data", "dtype="), "unflatten": ("input", "dim", "sizes"),
    "stride": ("self", "dim="), "size": ("self", "dim="), "to": ("self", "dtype"),
    "einsum": ("equation", "*operands"), "permute": ("self", "dims"),
    "view": ("self", "shape"), "reshape": ("input", "shape"), "repeat": ("self", "repeats"),
    "max": ("input", "dim=", "keepdim="), "min": ("input", "dim=", "keepdim="),
    "std": ("input", "dim=", "correction=", "keepdim="),
    "var": ("input", "dim=", "correction=", "keepdim="),
    "std_mean": ("input", "dim=", "correction=", "keepdim="),
    "var_mean": ("input", "dim=", "correction=", "keepdim="),
    "median": ("input", "dim=", "keepdim="), "sum": ("input", "dim=", "keepdim=", "dtype="),
    "mean": ("input", "dim=", "keepdim=", "dtype="), "prod": ("input", "dim=", "keepdim=",
                                                           "dtype="),
    "squeeze": ("input", "dim="), "where": ("condition", "input", "other"),
    "argmax": ("input", "dim=", "keepdim="), "argmin": ("input", "dim=", "keepdim="),
    "all": ("input", "dim=", "keepdim="), "any": ("input", "dim=", "keepdim="),
    "count_nonzero": ("input", "dim="), "flatten": ("input", "start_dim=", "end_dim="),
    "softmax": ("input", "dim", "dtype="), "log_softmax": ("input", "dim", "dtype="),
    "softmin": ("input", "dim", "dtype="),
    "bernoulli": ("input", "p="), "fill_": ("self", "value"), "zero_": ("self",),
    "clamp": ("input", "min=", "max="), "clip": ("input", "min=", "max="),
    "item": ("self",), "tolist": ("self",), "dim": ("self",), "numel": ("self",),
    "nelement": ("self",), "element_size": ("self",), "clone": ("input",),
    "contiguous": ("self",), "is_contiguous": ("self",), "storage_offset": ("self",),
    "detach": ("self",), "detach_": ("self",), "requires_grad_": ("self", "requires_grad="),
    "expand_as": ("self", "other"), "view_as": ("self", "other"), "reshape_as": ("self", "other"),
    "type_as": ("self", "other"), "normal_": ("self", "mean=", "std="),
    "uniform_": ("self", "from_=", "to="), "random_": ("self", "from_=", "to="),
    "__bool__": ("self",), "__float__": ("self",), "__int__": ("self",),
    "__index__": ("self",), "__complex__": ("self",), "__len__": ("self",),
    "__abs__": ("self",), "__neg__": ("self",), "__pos__": ("self",), "__invert__": ("self",),
    "norm": ("input", "p=", "dim=", "keepdim="),
    "topk": ("input", "k", "dim=", "largest=", "sorted="),
    "unique": ("input", "sorted=", "return_inverse=", "return_counts=", "dim="),
    "index_put": ("input", "indices", "values", "accumulate="),
    "one_hot": ("tensor", "num_classes="), "pad": ("input", "pad", "mode=", "value="),
    "interpolate": ("input", "size=", "scale_factor=", "mode="),
    "nan_to_num": ("input", "nan=", "posinf=", "neginf="),
    "diff": ("input", "n=", "dim="),
}

# Module constructor parameters torch marks with defaults we do not want fuzzed.
MODULE_SKIP_PARAMS = {"device", "dtype", "_weight", "_freeze", "generator"}


@dataclasses.dataclass
class Entry:
    """One fuzzed name and the way it is called."""
    name: str
    kind: str          # function | method | functional | property | module
    params: tuple = ()  # (name, required) pairs; receiver first for methods

    @property
    def id(self):
        prefix = {"function": "", "method": "Tensor.", "functional": "F.", "property": "Tensor.",
                  "module": "nn."}[self.kind]
        return prefix + self.name

    @property
    def base(self):
        """The op's name without the in-place/dunder decoration, for per-op rules."""
        name = self.name.strip("_") if self.name.startswith("__") else self.name
        if name.startswith("r") and name[1:] in _BINARY_DUNDERS:
            name = name[1:]
        if name.startswith("i") and name[1:] in _BINARY_DUNDERS:
            name = name[1:]
        return name[:-1] if name.endswith("_") and not name.endswith("__") else name

    @property
    def random(self):
        return self.name in RANDOM or self.base in RANDOM


_BINARY_DUNDERS = {"add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "and", "or",
                   "xor", "lshift", "rshift", "matmul", "eq", "ne", "lt", "le", "gt", "ge"}

_OVERRIDES = torch.overrides.get_testing_overrides()


def _params_from_table(spec):
    out = []
    for p in spec:
        out.append((p.rstrip("="), not p.endswith("=")))
    return tuple(out)


METHOD_SIGNATURES = {"where": ("self", "condition", "other")}


def _params(name, torch_obj, ember_obj, method):
    """(name, required) pairs from SIGNATURES, torch's table, or the Python signature."""
    if method and name in METHOD_SIGNATURES:
        return _params_from_table(METHOD_SIGNATURES[name])
    if name in SIGNATURES:
        params = _params_from_table(SIGNATURES[name])
    else:
        base = name[:-1] if name.endswith("_") and not name.endswith("__") else name
        fn = _OVERRIDES.get(torch_obj)
        if fn is None and method:
            fn = _OVERRIDES.get(getattr(torch.Tensor, base, None))
        if fn is None:
            fn = _OVERRIDES.get(getattr(torch, base, None))
        if fn is None and base in SIGNATURES:
            return _params_from_table(SIGNATURES[base])
        sig = None
        for candidate in (fn, torch_obj, ember_obj):
            try:
                sig = inspect.signature(candidate)
                break
            except (TypeError, ValueError):
                continue
        if sig is None:
            return (("self", True),) if method else (("input", True),)
        params = []
        for p in sig.parameters.values():
            if p.name in ("out", "_stacklevel", "memory_format", "generator", "layout",
                          "device", "pin_memory", "names", "non_blocking", "copy", "kwargs"):
                continue
            if p.kind is p.VAR_KEYWORD:
                continue
            star = "*" if p.kind is p.VAR_POSITIONAL else ""
            params.append((star + p.name, p.default is p.empty and not star))
        params = tuple(params)
    if method and params and params[0][0] not in ("self", "input"):
        params = (("self", True),) + params
    return params


def _public(obj):
    return [n for n in dir(obj) if not n.startswith("_")]


def _is_module_class(obj):
    return isinstance(obj, type) and issubclass(obj, torch.nn.Module)


_DUNDERS = tuple(f"__{n}__" for n in sorted(_BINARY_DUNDERS)) + tuple(
    f"__r{n}__" for n in sorted(_BINARY_DUNDERS - {"eq", "ne", "lt", "le", "gt", "ge"})) + tuple(
    f"__i{n}__" for n in sorted(_BINARY_DUNDERS - {"eq", "ne", "lt", "le", "gt", "ge",
                                                    "matmul"})) + (
    "__abs__", "__neg__", "__pos__", "__invert__", "__bool__", "__float__", "__int__",
    "__index__", "__len__")


def entries():
    """Every fuzzed name, in a fixed order."""
    out = []
    import torch.nn.functional as TF
    import ember.nn.functional as EF
    for name in _public(torch):
        obj = getattr(torch, name)
        if name in EXCLUDED or not hasattr(ember, name) or isinstance(obj, type):
            continue
        if callable(obj) and not inspect.ismodule(obj):
            out.append(Entry(name, "function",
                             _params(name, obj, getattr(ember, name), False)))
    for name in _public(torch.Tensor) + [d for d in _DUNDERS if hasattr(torch.Tensor, d)]:
        if name in EXCLUDED or not hasattr(ember.Tensor, name):
            continue
        obj = getattr(torch.Tensor, name)
        if isinstance(obj, (property,)) or not callable(obj) or inspect.isdatadescriptor(obj):
            out.append(Entry(name, "property", (("self", True),)))
        else:
            out.append(Entry(name, "method",
                             _params(name, obj, getattr(ember.Tensor, name), True)))
    for name in _public(TF):
        obj = getattr(TF, name)
        if name in EXCLUDED or not hasattr(EF, name) or not callable(obj) or isinstance(obj, type):
            continue
        if getattr(obj, "__module__", "").startswith("typing"):
            continue
        out.append(Entry(name, "functional", _params(name, obj, getattr(EF, name), False)))
    for name in _public(torch.nn):
        obj = getattr(torch.nn, name)
        if _is_module_class(obj) and hasattr(ember.nn, name) and name not in EXCLUDED:
            out.append(Entry(name, "module", _module_params(obj)))
    return out


def _module_params(cls):
    try:
        sig = inspect.signature(cls.__init__)
    except (TypeError, ValueError):
        return ()
    out = []
    for p in list(sig.parameters.values())[1:]:
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) or p.name in MODULE_SKIP_PARAMS:
            continue
        out.append((p.name, p.default is p.empty))
    return tuple(out)


def missing_names():
    """Public torch names ember lacks, per namespace (reported, never failed on)."""
    import torch.nn.functional as TF
    import ember.nn.functional as EF
    return {
        "torch": sorted(n for n in _public(torch) if not hasattr(ember, n)),
        "Tensor": sorted(n for n in _public(torch.Tensor) if not hasattr(ember.Tensor, n)),
        "nn.functional": sorted(n for n in _public(TF) if not hasattr(EF, n)),
        "nn": sorted(n for n in _public(torch.nn)
                     if _is_module_class(getattr(torch.nn, n)) and not hasattr(ember.nn, n)),
    }
