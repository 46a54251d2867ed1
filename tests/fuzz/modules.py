"""nn.Module classes: construct with drawn arguments, then run forward, in both libraries.

Constructor arguments are drawn by parameter name against a drawn input shape
(`in_features` is its last size, `num_features` its channel count, ...), so most
modules build and run. torch's freshly initialised parameters and buffers are copied
into ember's module, so values compare whatever the initialisers do; the reprs, the
forward outcome and the state after forward (running statistics) are compared.
"""
import dataclasses
import inspect
import warnings

import numpy as np
import torch
from hypothesis import strategies as st

import ember

from .compare import Mismatch, compare_errors, compare_results, safe_repr
from .draw import BOOLS, FLOAT_PARAMS, Ctx, _dim, _rank_hint
from .inputs import DTYPES, TensorSpec, materialize, shapes, tensors

CONTAINERS = {"Container", "Module", "ModuleDict", "ModuleList", "ParameterDict",
              "ParameterList", "Sequential"}
CLASS_TARGETS = {"CrossEntropyLoss", "NLLLoss"}


@dataclasses.dataclass
class ModuleCase:
    init: dict
    inputs: list
    train: bool

    def __repr__(self):
        return f"(init={self.init!r}, forward{tuple(self.inputs)!r}, train={self.train})"


def _channels(shape):
    return shape[1] if len(shape) >= 2 else (shape[0] if shape else 1)


def _init_value(draw, pname, ctx, name):
    shape = ctx.shape
    if pname in ("in_features", "in1_features"):
        return shape[-1] if shape and draw(st.integers(0, 5)) else draw(st.integers(1, 4))
    if pname in ("in_channels", "num_features", "num_channels"):
        return _channels(shape) if draw(st.integers(0, 5)) else draw(st.integers(1, 4))
    if pname == "num_groups":
        c = _channels(shape)
        return draw(st.sampled_from([d for d in range(1, c + 1) if c % d == 0] or [1]))
    if pname in ("out_features", "out_channels", "embedding_dim", "num_embeddings",
                 "in2_features", "num_parameters", "groups_"):
        return draw(st.integers(1, 4))
    if pname in ("kernel_size", "output_size"):
        return draw(st.integers(1, 3)) if draw(st.integers(0, 3)) else tuple(
            draw(st.integers(1, 2)) for _ in range(max(len(shape) - 2, 1)))
    if pname in ("stride", "dilation"):
        return draw(st.sampled_from((1, 2, None))) if pname == "stride" else draw(
            st.integers(1, 2))
    if pname == "padding":
        return draw(st.integers(0, 1)) if name not in ("Conv1d", "Conv2d", "Conv3d") else \
            draw(st.sampled_from((0, 1, "same", "valid")))
    if pname == "normalized_shape":
        return tuple(shape[-1:]) if shape else (1,)
    if pname in ("dim", "start_dim", "end_dim"):
        return _dim(draw, ctx)
    if pname == "unflattened_size":
        return draw(st.sampled_from(((-1,), (1, -1), (2, -1))))
    if pname in ("groups", "size", "norm_type"):
        return draw(st.integers(1, 2))
    if pname == "scale_factor":
        return draw(st.sampled_from((None, 2, 1.5)))
    if pname in ("mode", "padding_mode", "reduction", "approximate", "nonlinearity"):
        options = {"mode": ("nearest", "linear", "bilinear"),
                   "padding_mode": ("zeros", "reflect", "replicate", "circular"),
                   "reduction": ("mean", "sum", "none"), "approximate": ("none", "tanh")}
        return draw(st.sampled_from(options.get(pname, ("tanh", "relu"))))
    if pname in ("weight", "pos_weight", "_weight"):
        return None
    if pname in BOOLS or pname == "bias":
        return draw(st.booleans())
    if pname in ("ignore_index", "padding_idx"):
        return draw(st.sampled_from((-100, 0, 1)))
    if pname == "value":
        return draw(st.sampled_from((0.0, 1.5, -2)))
    if pname in FLOAT_PARAMS or pname in ("size_average", "reduce"):
        return draw(st.sampled_from((0.5, 1.0, 0.1, 2.0)))
    return draw(st.integers(1, 3))


def _forward_params(cls):
    params = list(inspect.signature(cls.forward).parameters.values())[1:]
    return [p.name for p in params if p.kind is p.POSITIONAL_OR_KEYWORD
            and p.default is p.empty] or ["input"]


@st.composite
def module_cases(draw, entry):
    cls = getattr(torch.nn, entry.name)
    rank = _rank_hint(entry)
    if rank is not None and draw(st.integers(0, 4)):
        shape = draw(shapes(rank, rank, 1, 4))
    else:
        shape = draw(shapes(0, 4, 1, 4))
    dtype = draw(st.sampled_from(("float32", "float64"))) if draw(st.integers(0, 5)) else \
        draw(st.sampled_from(DTYPES))
    ctx = Ctx(shape, dtype, entry.name)
    init = {}
    if entry.name not in CONTAINERS:
        for pname, required in entry.params:
            if required or draw(st.integers(0, 2)) == 0:
                init[pname] = _init_value(draw, pname, ctx, entry.name)
    inputs = []
    if entry.name == "Embedding":
        n = init.get("num_embeddings", 1)
        inputs.append(TensorSpec(np.asarray(draw(st.lists(st.integers(0, n), max_size=4)),
                                            dtype=np.int64), "int64"))
        return ModuleCase(init, inputs, draw(st.booleans()))
    for i, pname in enumerate(_forward_params(cls)):
        if i and pname == "target" and entry.name in CLASS_TARGETS:
            target_shape = shape[:1] + shape[2:]
            c = max(_channels(shape), 1)
            array = np.asarray(draw(st.lists(st.integers(0, c - 1), min_size=int(np.prod(
                target_shape)), max_size=int(np.prod(target_shape))))).reshape(target_shape)
            inputs.append(TensorSpec(array.astype(np.int64), "int64"))
        elif i and entry.name == "Bilinear":
            size = shape[:-1] + (init.get("in2_features", 1),)
            inputs.append(draw(tensors(size, dtype, special=False, grad=False)))
        else:
            spec = draw(tensors(shape, dtype, grad=False))
            if entry.name in ("BCELoss",) and i:
                spec.array = np.clip(np.nan_to_num(spec.array), 0, 1)
            inputs.append(spec)
    return ModuleCase(init, inputs, draw(st.booleans()))


def run_module_case(entry, case):
    t_module, t_error = _construct(torch, entry.name, case.init)
    e_module, e_error = _construct(ember, entry.name, case.init)
    if t_error is not None or e_error is not None:
        if t_error is None or e_error is None:
            raise Mismatch("construct", f"ember {safe_repr(e_error)} | torch {t_error!r}")
        return compare_errors(e_error, t_error)
    _copy_state(t_module, e_module)
    if repr(e_module) != repr(t_module).replace("torch.", "ember."):
        raise Mismatch("repr", f"ember {e_module!r} | torch {t_module!r}")
    t_module.train(case.train)
    e_module.train(case.train)
    t_inputs, e_inputs = materialize(torch, case.inputs), materialize(ember, case.inputs)
    t_result, t_error = _forward(t_module, t_inputs)
    e_result, e_error = _forward(e_module, e_inputs)
    if t_error is not None and e_error is not None:
        return compare_errors(e_error, t_error)
    if t_error is not None or e_error is not None:
        raise Mismatch("raises in torch only" if t_error else "raises in ember only",
                       f"ember {safe_repr(e_error or e_result)} | torch {t_error!r}")
    random = entry.random and case.train or entry.name.startswith("Lazy")
    compare_results(e_result, t_result, random=random)
    compare_results(list(e_module.state_dict().values()),
                    list(t_module.state_dict().values()), "state after forward", random)


def _construct(lib, name, init):
    try:
        lib.manual_seed(0)
        return getattr(lib.nn, name)(**init), None
    except Exception as error:     # noqa: BLE001 - compared like any outcome
        return None, error


def _forward(module, inputs):
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            return module(*inputs), None
    except Exception as error:     # noqa: BLE001
        return None, error


def _copy_state(t_module, e_module):
    """Give ember's module torch's freshly initialised values (keys must agree)."""
    t_state = t_module.state_dict()
    e_state = e_module.state_dict()
    if list(t_state) != list(e_state):
        raise Mismatch("state_dict keys", f"ember {list(e_state)} | torch {list(t_state)}")
    with ember.no_grad():
        for key, value in t_state.items():
            if torch.nn.parameter.is_lazy(value):
                continue
            target = e_state[key]
            source = value.detach()
            if source.dtype == torch.bfloat16:
                source = source.float()
            target.copy_(ember.tensor(source.numpy()))
