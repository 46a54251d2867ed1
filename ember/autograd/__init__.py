"""ember.autograd: the graph, the engine, grad modes and the user-facing API.

The package has two halves on either side of the ops (DESIGN.md, layer 5). The lower
half sits *below* `ember.ops`: `graph.py` (the `Node` base class, saved tensors with
their version checks, `AccumulateGrad`) and `grad_mode.py` (no_grad, inference mode,
anomaly mode). Every op module imports them to build Nodes and to ask whether to record,
and they import nothing from ops. The upper half sits *above* the ops and runs on them:
`engine.py` (the iterative backward pass), `function.py` (custom `Function`s),
`api.py` (`backward`, `grad`), `gradcheck.py` and `functional.py`; the learner's tools
(`explain.py`, `graph_draw.py`, and `retention.py`, which `api.backward` tells of each
call) only read the graph. Importing this package
loads both halves; ops import the lower-half modules by name (`..autograd.graph`).
"""
from .api import backward, grad
from .function import Function, FunctionCtx, once_differentiable
from .grad_mode import (detect_anomaly, enable_grad, inference_mode, is_anomaly_enabled,
                        is_grad_enabled, is_inference_mode_enabled, no_grad, set_detect_anomaly,
                        set_grad_enabled)
from .gradcheck import GradcheckError, gradcheck, gradgradcheck
from .graph import Node
from .explain import explain
from .graph_draw import draw_graph, print_graph

__all__ = ["backward", "grad", "Function", "FunctionCtx", "once_differentiable",
           "detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled", "enable_grad",
           "no_grad", "set_grad_enabled", "is_grad_enabled", "inference_mode",
           "is_inference_mode_enabled", "gradcheck", "gradgradcheck", "GradcheckError", "Node",
           "explain", "draw_graph", "print_graph"]
# `ember.autograd.functional` is imported by ember/__init__.py once the ops exist.
# func12: the graph module's saved-tensor hooks are reached as ember.autograd.graph.*
from . import graph  # noqa: E402,F401
# `ember.autograd.forward_ad` and `ember.autograd.profiler` are imported by ember/__init__.py
# (they run on the ops).
