"""ember.save / ember.load in PyTorch's checkpoint format.

A checkpoint is what `torch.save` writes: a zip archive holding `data.pkl` (a
pickle whose tensors are persistent storage ids, rebuilt through
`torch._utils._rebuild_tensor_v2`) and one raw little-endian record per storage.
ember writes torch's names into the pickle without importing torch, so
`torch.load` reads what ember saved and `ember.load` reads what PyTorch saved.
Loading is `weights_only` by default: only tensors, containers and plain values
are accepted, never arbitrary globals.
"""
import contextlib
import os
import pickle
import re
import struct
import sys
import warnings

from ._dlpack import from_dlpack
from ._serialization import archive, loading, pickler
from ._serialization import unpickler as _unpickler
from .utils import safetensors as _safetensors

__all__ = ["save", "load", "from_dlpack"]

DEFAULT_PROTOCOL = 2

UNSAFE_MESSAGE = (
    "In PyTorch 2.6, we changed the default value of the `weights_only` argument in "
    "`torch.load` from `False` to `True`. Re-running `torch.load` with `weights_only` set to "
    "`False` will likely succeed, but it can result in arbitrary code execution. Do it only if "
    "you got the file from a trusted source.")
_DOCS_MESSAGE = (
    "\n\nCheck the documentation of torch.load to learn more about types accepted by default "
    "with weights_only https://pytorch.org/docs/stable/generated/torch.load.html.")


# ================================================================ save
def save(obj, f, pickle_module=pickle, pickle_protocol=DEFAULT_PROTOCOL,
         _use_new_zipfile_serialization=True, _disable_byteorder_record=False):
    """Save `obj` to a path or writable file object as `torch.save` would.

    Tensors sharing memory are written once and share it again after loading.
    """
    _check_dill_version(pickle_module)
    if not isinstance(f, (str, os.PathLike)) and not hasattr(f, "write"):
        raise AttributeError("expected 'f' to be string, path, or a file-like object with a "
                             "'write' attribute")
    if isinstance(f, (str, os.PathLike)):
        f = os.fspath(f)
        parent = os.path.dirname(f)
        if parent and not os.path.isdir(parent):
            raise RuntimeError(f"Parent directory {parent} does not exist.")
    elif not callable(f.write):
        raise TypeError(f"Buffer of {str(type(f)).strip('<>')} has no callable attribute "
                        "'write'")
    legacy = not _use_new_zipfile_serialization
    data, storages = pickler.dumps(obj, pickle_protocol, pickle_module, legacy=legacy)
    with _opened_for_save(f, legacy) as file:
        if legacy:
            _write_legacy(file, data, storages, pickle_module, pickle_protocol)
        else:
            _write_zip(file, _archive_name(f), data, storages, _disable_byteorder_record)
        file.flush()  # torch's writer flushes every file object it is given


def _check_dill_version(pickle_module):
    """torch's check (which also fails, as torch's does, on a module without a name)."""
    if pickle_module is not None and pickle_module.__name__ == "dill":
        try:
            version = tuple(int(part) for part in pickle_module.__version__.split(".")[:3])
        except ValueError:
            return
        if version < (0, 3, 1):
            raise ValueError(f"'torch' supports dill >= 0.3.1, but you have dill "
                             f"{pickle_module.__version__}. Please upgrade dill or switch to "
                             "'pickle'")


def _opened_for_save(f, legacy):
    """The file to write; a path that cannot be opened fails as torch's C++ writer says."""
    if not isinstance(f, str):
        return contextlib.nullcontext(f)
    try:
        return open(f, "wb")
    except OSError as error:
        if legacy:
            raise
        raise RuntimeError("[enforce fail at inline_container.cc:747] . open file failed with "
                           f"strerror: {error.strerror}") from None


def _archive_name(f):
    """torch's top folder: the file's name less its extension, or 'archive' for buffers."""
    if not isinstance(f, str):
        return "archive"
    base = os.path.basename(f)
    dot = base.rfind(".")
    return (base[:dot] if dot != -1 else base) or "archive"


def _write_zip(file, name, data, storages, skip_byteorder):
    writer = archive.ZipWriter(file, name)
    writer.write_record("data.pkl", data)
    writer.write_record(".format_version", b"1")
    writer.write_record(".storage_alignment", str(archive.ALIGNMENT).encode())
    if not skip_byteorder:
        writer.write_record("byteorder", sys.byteorder.encode())
    for ref in storages.refs:
        writer.write_record(f"data/{ref.key}", ref.host_bytes())
    writer.finish()


def _write_legacy(file, data, storages, pickle_module, protocol):
    """The pre-1.6 stream: magic, protocol, sys info, object, sorted keys, raw storages."""
    sys_info = {"protocol_version": loading.PROTOCOL_VERSION,
                "little_endian": sys.byteorder == "little",
                "type_sizes": {"short": 2, "int": 4, "long": struct.calcsize("l")}}
    for header in (loading.MAGIC_NUMBER, loading.PROTOCOL_VERSION, sys_info):
        pickle_module.dump(header, file, protocol=protocol)
    file.write(data)
    refs = sorted(storages.refs, key=lambda ref: ref.key)
    pickle_module.dump([ref.key for ref in refs], file, protocol=protocol)
    for ref in refs:
        raw = ref.host_bytes()
        file.write(struct.pack("<q", raw.size // ref.dtype.itemsize))
        file.write(memoryview(raw))


@contextlib.contextmanager
def _opened(f, mode):
    if isinstance(f, str):
        with open(f, mode) as file:
            yield file
    else:
        yield f


# ================================================================ load
def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None,
         **pickle_load_args):
    """Load an object saved by `ember.save` or `torch.save` (zip or legacy format).

    `map_location` ('cpu', a device, a {saved: target} dict, or a callable
    `(storage, location) -> storage or None`) says where storages go. With
    `weights_only` (the default unless a `pickle_module` is given) only tensors,
    containers and plain values load; anything else raises `pickle.UnpicklingError`.
    """
    if weights_only is None:
        weights_only = pickle_module is None
    if weights_only:
        if pickle_module is not None:
            raise RuntimeError("Can not safely load weights when explicit pickle_module is "
                               "specified")
        if pickle_load_args:
            warnings.warn("pickle_load_args only works if `weights_only=False`.", stacklevel=2)
    elif pickle_module is None:
        pickle_module = pickle
    _check_dill_version(pickle_module)
    pickle_load_args.setdefault("encoding", "utf-8")
    if isinstance(f, (str, os.PathLike)):
        f = os.fspath(f)
        if f.endswith(".safetensors"):
            return _load_safetensors(f, map_location)
    options = (map_location, weights_only, pickle_module, pickle_load_args)
    with _opened(f, "rb") as file:
        _check_seekable(file)
        if archive.is_zipfile(file):
            opened = archive.ZipArchive(file)
            if opened.has_record("constants.pkl"):
                _refuse_torchscript(weights_only)
            if mmap:
                if not isinstance(f, str):
                    raise ValueError("f must be a file path in order to use the mmap argument")
                opened.map(f)
            return _weights_only_errors(weights_only, loading.load_zip, opened, *options)
        if mmap:
            name = f"{f}, " if isinstance(f, str) else ""
            raise RuntimeError("mmap can only be used with files saved with "
                               f"`torch.save({name}_use_new_zipfile_serialization=True), please "
                               "torch.save your checkpoint with this option in order to use "
                               "mmap.")
        return _weights_only_errors(weights_only, loading.load_legacy, _legacy_bytes(file,
                                    weights_only), *options)


def _refuse_torchscript(weights_only):
    """torch.load hands a TorchScript archive to torch.jit.load; ember has no TorchScript."""
    warnings.warn("'torch.load' received a zip file that looks like a TorchScript archive "
                  "dispatching to 'torch.jit.load' (call 'torch.jit.load' directly to silence "
                  "this warning)", UserWarning, stacklevel=3)
    if weights_only:
        raise RuntimeError("Cannot use ``weights_only=True`` with TorchScript archives passed "
                           "to ``torch.load``. " + UNSAFE_MESSAGE)
    raise RuntimeError("ember.load cannot load TorchScript archives (this file was written by "
                       "torch.jit.save)")


def _legacy_bytes(file, weights_only):
    """A legacy checkpoint's bytes, refusing a file torch's unpicklers could not read."""
    if not hasattr(file, "readline"):
        if weights_only:
            raise AttributeError(f"'{type(file).__name__}' object has no attribute 'readline'")
        raise TypeError("file must have 'read' and 'readline' attributes")
    data = file.read()
    if isinstance(data, str):  # a text stream
        if weights_only:
            raise AssertionError("Expected bytes, got str")
        raise TypeError("a bytes-like object is required, not 'str'")
    return data


def _check_seekable(file):
    try:
        file.seek(file.tell())
    except (OSError, AttributeError) as error:
        if "seek" in str(error) or "tell" in str(error):
            raise type(error)(f"{error}. You can only torch.load from a file that is seekable. "
                              "Please pre-load the data into a buffer like io.BytesIO and try "
                              "to load from it instead.") from None
        raise


def _load_safetensors(path, map_location):
    if isinstance(map_location, dict) or callable(map_location):
        kind = "dict" if isinstance(map_location, dict) else "callable"
        raise RuntimeError(f"Loading safetensors file with {kind} map_location is not "
                           "supported. Use a device string or torch.device instead.")
    return _safetensors.load_file(path, device="cpu" if map_location is None
                                 else str(map_location))


def _weights_only_errors(weights_only, load_function, *args):
    """Run a load; in weights-only mode, explain an UnpicklingError as torch does."""
    if not weights_only:
        return load_function(*args)
    try:
        return load_function(*args)
    except pickle.UnpicklingError as error:
        raise pickle.UnpicklingError(_weights_only_message(str(error))) from None


def _weights_only_message(message):
    if re.search(r"GLOBAL (\S+) was not an allowed global by default.", message):
        return ("Weights only load failed. This file can still be loaded, to do so you have two "
                "options, \033[1mdo those steps only if you trust the source of the "
                f"checkpoint\033[0m. \n\t(1) {UNSAFE_MESSAGE}\n\t(2) Alternatively, to load with "
                "`weights_only=True` please check the recommended steps in the following error "
                "message.\n\tWeightsUnpickler error: " + message + _DOCS_MESSAGE)
    if re.search(r"(\S+) must be (\S+) to load", message):
        return f"Weights only load failed. {message}\n {UNSAFE_MESSAGE}\n"
    updated = f"Weights only load failed. {UNSAFE_MESSAGE}\n"
    if not re.search(r"whose module (\S+) is blocked", message):
        updated += ("Please file an issue with the following so that we can make "
                    "`weights_only=True` compatible with your use case: WeightsUnpickler "
                    "error: ")
    return updated + "\n\n" + message + _DOCS_MESSAGE


# ================================================================ safe globals
def add_safe_globals(safe_globals):
    """Allow these globals (objects, or (object, 'module.name') pairs) in weights-only loads."""
    _unpickler.user_safe_globals.update(safe_globals)


def get_safe_globals():
    return list(_unpickler.user_safe_globals)


def clear_safe_globals():
    _unpickler.user_safe_globals.clear()


class safe_globals:
    """Context manager allowing `safe_globals` in weights-only loads within it."""

    def __init__(self, safe_globals):
        self.safe_globals = safe_globals

    def __enter__(self):
        add_safe_globals(self.safe_globals)

    def __exit__(self, *exc_info):
        _unpickler.user_safe_globals.difference_update(self.safe_globals)
