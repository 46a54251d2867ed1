"""Builders for error messages: PyTorch's text first, an explanation after where it helps."""
import re

BACKWARD_TWICE = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward.")

LEAF_INPLACE = "a leaf Variable that requires grad is being used in an in-place operation."
VIEW_OF_LEAF_INPLACE = ("a view of a leaf Variable that requires grad is being used in an "
                        "in-place operation.")
NOT_REQUIRES_GRAD = "element 0 of tensors does not require grad and does not have a grad_fn"
IMPLICIT_GRAD_SCALAR = "grad can be implicitly created only for scalar outputs"
NUMPY_REQUIRES_GRAD = ("Can't call numpy() on Tensor that requires grad. "
                       "Use tensor.detach().numpy() instead.")
AMBIGUOUS_BOOL = "Boolean value of Tensor with more than one value is ambiguous"
ONLY_FLOAT_REQUIRES_GRAD = "only Tensors of floating point dtype can require gradients"
ONLY_FLOAT_REQUIRES_GRAD_SETTER = ("only Tensors of floating point and complex dtype can "
                                  "require gradients")
ONLY_FLOAT_REQUIRES_GRAD_FACTORY = ("Only Tensors of floating point and complex dtype can "
                                    "require gradients")
NON_LEAF_REQUIRES_GRAD = (
    "you can only change requires_grad flags of leaf variables. If you want to use a computed "
    "variable in a subgraph that doesn't require differentiation use var_no_grad = "
    "var.detach().")
NON_LEAF_GRAD_ACCESS = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad "
    "field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. "
    "If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor "
    "instead. See github.com/pytorch/pytorch/pull/30531 for more information.")
VIEW_NOT_COMPATIBLE = (
    "view size is not compatible with input tensor's size and stride (at least one dimension "
    "spans across two contiguous subspaces). Use .reshape(...) instead.")
INFERENCE_SAVED = (
    "Inference tensors cannot be saved for backward. Please do not use Tensors created in "
    "inference mode in computation tracked by autograd. To work around this, you can make a "
    "clone to get a normal tensor and use it in autograd, or use `ember.no_grad()` instead of "
    "`ember.inference_mode()`.")
INFERENCE_INPLACE = (
    "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a "
    "clone to get a normal tensor before doing inplace update.See "
    "https://github.com/pytorch/rfcs/pull/17 for more details.")
INFERENCE_REQUIRES_GRAD = ("Setting requires_grad=True on inference tensor outside "
                           "InferenceMode is not allowed.")
ANOMALY_HINT = ("Hint: enable anomaly detection to find the operation that failed to compute "
                "its gradient, with ember.autograd.set_detect_anomaly(True, check_nan=False).")


def shape_list(shape):
    """[2, 3] the way PyTorch prints a size inside messages."""
    return "[" + ", ".join(str(s) for s in shape) + "]"


def type_and_shape(tensor):
    """'ember.FloatTensor [2, 3]': how PyTorch names a tensor in autograd errors."""
    return f"ember.{tensor.dtype.tensor_type} {shape_list(tensor.shape)}"


def short_name(node):
    """'ExpBackward0' -> 'Exp', as PyTorch's in-place error message prints it."""
    return re.sub(r"Backward\d*$", "", node.name())


ANOMALY_ON_HINT = ("Hint: the backtrace further above shows the operation that failed to "
                   "compute its gradient. The variable in question was changed in there or "
                   "anywhere later. Good luck!")


def modified_by_inplace(tensor, node, output_nr, expected_version, anomaly=False):
    where = f", which is output {output_nr} of {short_name(node)}," if node is not None else ""
    return ("one of the variables needed for gradient computation has been modified by an "
            f"inplace operation: [{type_and_shape(tensor)}]{where} is at version "
            f"{tensor._storage.version}; expected version {expected_version} instead. "
            + (ANOMALY_ON_HINT if anomaly else ANOMALY_HINT))


def broadcast_mismatch(shape_a, shape_b):
    """The first dimension (from the right) where two shapes fail to broadcast."""
    ndim = max(len(shape_a), len(shape_b))
    a = (1,) * (ndim - len(shape_a)) + tuple(shape_a)
    b = (1,) * (ndim - len(shape_b)) + tuple(shape_b)
    for i in range(ndim - 1, -1, -1):
        if a[i] != b[i] and a[i] != 1 and b[i] != 1:
            return (f"The size of tensor a ({a[i]}) must match the size of tensor b ({b[i]}) "
                    f"at non-singleton dimension {i}")
    return None


def inplace_broadcast(out_shape, broadcast_shape):
    return (f"output with shape {shape_list(out_shape)} doesn't match the broadcast shape "
            f"{shape_list(broadcast_shape)}")


def cannot_cast(result_dtype, out_dtype):
    return (f"result type {_scalar_type_name(result_dtype)} can't be cast to the desired output "
            f"type {_scalar_type_name(out_dtype)}")


_SCALAR_NAMES = {"float32": "Float", "float64": "Double", "float16": "Half",
                 "bfloat16": "BFloat16", "int64": "Long", "int32": "Int", "int16": "Short",
                 "int8": "Char", "uint8": "Byte", "bool": "Bool", "uint16": "UInt16",
                 "uint32": "UInt32", "uint64": "UInt64"}


def _scalar_type_name(dtype):
    return _SCALAR_NAMES[dtype.name]


def dim_out_of_range(dim, ndim):
    low, high = (-ndim, ndim - 1) if ndim > 0 else (-1, 0)
    return (f"Dimension out of range (expected to be in range of [{low}, {high}], "
            f"but got {dim})")


def device_mismatch(device_a, device_b):
    """PyTorch's text when two tensors of one op live apart: `device_a` is the device the op
    settled on (its first tensor's), `device_b` the other's. Against a meta tensor PyTorch's
    CPU build words it from the check of each operand against the expected device."""
    if device_a.type == "meta" or device_b.type == "meta":
        return f"Tensor on device {device_b} is not on the expected device {device_a}!"
    return ("Expected all tensors to be on the same device, but found at least two devices, "
            f"{device_a} and {device_b}!")


def not_implemented_for(kernel, dtype):
    """PyTorch's NotImplementedError text for a kernel that lacks this dtype."""
    return f'"{kernel}" not implemented for \'{_scalar_type_name(dtype)}\''


def scalar_type_name(dtype):
    """'Float', 'Long', ...: how PyTorch names a dtype in most messages."""
    return _SCALAR_NAMES[dtype.name]


_CPP_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half",
              "bfloat16": "c10::BFloat16", "int64": "long int", "int32": "int",
              "int16": "short int", "int8": "signed char", "uint8": "unsigned char",
              "bool": "bool", "uint16": "short unsigned int", "uint32": "unsigned int",
              "uint64": "long unsigned int"}


def cpp_type_name(dtype):
    """'float', 'long int', ...: the C++ type name some PyTorch checks print."""
    return _CPP_NAMES[dtype.name]


def legacy_type_name(dtype):
    """'ember.FloatTensor' as PyTorch prints a CPU tensor's type in some messages; bool and
    bfloat16 have no legacy name, so PyTorch prints their dispatch type instead."""
    return _DISPATCH_NAMES.get(dtype.name) or f"ember.{dtype.tensor_type}"


_DISPATCH_NAMES = {"bool": "CPUBoolType", "bfloat16": "CPUBFloat16Type"}


def mm_dtype_mismatch(dtype1, dtype2):
    return ("expected m1 and m2 to have the same dtype, but got: "
            f"{cpp_type_name(dtype1)} != {cpp_type_name(dtype2)}")

INTERNAL_OVERLAP = (
    "unsupported operation: more than one element of the written-to tensor refers to a single "
    "memory location. Please clone() the tensor before performing the operation.")
PARTIAL_OVERLAP = (
    "unsupported operation: some elements of the input tensor and the written-to tensor refer "
    "to a single memory location. Please clone() the tensor before performing the operation.")


def check_hook_result(hook, original, result):
    """PyTorch's checks on a gradient a tensor hook returned in place of `original`."""
    if not hasattr(result, "_data"):
        raise TypeError(f"expected Variable, but hook returned '{type(result).__name__}'")
    if result._data.dtype != original._data.dtype or result._device != original._device:
        raise RuntimeError(f"hook '{_hook_name(hook)}' has changed the type of value (was "
                           f"{_tensor_type(original)} got {_tensor_type(result)})")
    if result._data.shape != original._data.shape:
        raise RuntimeError(f"hook '{_hook_name(hook)}' has changed the size of value")
    return result


def _hook_name(hook):
    return getattr(hook, "__name__", None) or type(hook).__name__


def _tensor_type(tensor):
    prefix = "ember.cuda." if tensor._device.type == "cuda" else "ember."
    return prefix + tensor.dtype.tensor_type


def check_node_hook_results(hook, originals, results):
    """PyTorch's checks on the tuple of gradients a Node hook returned."""
    if len(results) != len(originals):
        raise RuntimeError(f"hook '{_hook_name(hook)}' has returned an incorrect number of "
                           f"values (got {len(results)}, but expected {len(originals)})")
    for original, result in zip(originals, results):
        if original is not None and result is not None:
            check_hook_result(hook, original, result)
    return results
