"""ember.onnx: importable, but ember cannot export ONNX graphs.

Exporting needs a traced graph of the model's operators, which ember (an eager
library with no tracer) does not build. `export` raises `OnnxExporterError`, the
RuntimeError subclass PyTorch raises when its exporter cannot run (for example
without the onnx package), with a message saying what to do instead.
"""
__all__ = ["export", "is_in_onnx_export", "OnnxExporterError", "TrainingMode",
           "OperatorExportTypes", "register_custom_op_symbolic",
           "unregister_custom_op_symbolic", "select_model_mode_for_export"]

import contextlib
import enum


class OnnxExporterError(RuntimeError):
    """ONNX export failed (with ember: always, as it has no exporter)."""


class TrainingMode(enum.IntEnum):
    EVAL = 0
    PRESERVE = 1
    TRAINING = 2


class OperatorExportTypes(enum.IntEnum):
    ONNX = 0
    ONNX_ATEN = 1
    ONNX_ATEN_FALLBACK = 2
    ONNX_FALLTHROUGH = 3


def export(model, args=(), f=None, **kwargs):
    raise OnnxExporterError(
        "ember cannot export ONNX: it runs models eagerly and builds no operator graph to "
        "export. Save the weights with ember.save(model.state_dict(), path), load them into "
        "the same model in PyTorch, and export from there.")


def is_in_onnx_export():
    return False


def register_custom_op_symbolic(symbolic_name, symbolic_fn, opset_version):
    """Symbolic functions only matter to an exporter; ember has none to register them with."""


def unregister_custom_op_symbolic(symbolic_name, opset_version):
    pass


@contextlib.contextmanager
def select_model_mode_for_export(model, mode):
    yield
