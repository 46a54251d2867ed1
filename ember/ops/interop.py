"""Python and NumPy interop: item(), tolist(), numpy(), __array__."""
from .. import _dtype, _errors

__all__ = []


def to_python_scalar(self):
    """The single value as a Python bool, int or float."""
    data = self._data
    if data.dtype is _dtype.bfloat16.np_dtype:
        return float(data.reshape(()).astype("float32").item())
    if self._device.type != "cpu":
        data = data.get()
    return data.reshape(()).item()


def tolist(self):
    data = self._data
    if self._device.type != "cpu":
        data = data.get()
    if _dtype.bfloat16.np_dtype is not None and data.dtype == _dtype.bfloat16.np_dtype:
        data = data.astype("float32")
    return data.tolist()


def numpy(self, force=False):
    """The array behind a CPU tensor, sharing memory; refuses tensors that require grad."""
    if force:
        data = self._data
        return data.get() if self._device.type != "cpu" else data
    if self._requires_grad:
        raise RuntimeError(_errors.NUMPY_REQUIRES_GRAD)
    if self._device.type != "cpu":
        raise TypeError(f"can't convert {self._device} device type tensor to numpy. Use "
                        "Tensor.cpu() to copy the tensor to host memory first.")
    return self._data


def array(self, dtype=None, copy=None):
    data = numpy(self)
    if dtype is not None and dtype != data.dtype:
        return data.astype(dtype)
    if copy:
        return data.copy()
    return data
