"""Unpicklers for checkpoints: the restricted `weights_only` one and the full one.

`WeightsUnpickler` interprets pickle opcodes itself, as torch's
`_weights_only_unpickler` does, rather than trusting `pickle.Unpickler.find_class`
alone. It accepts exactly torch's opcodes (protocol 2's, less the text and
stack-juggling ones), so a file loads, or is refused with the same message, in both
libraries. Globals come only from an allowlist (tensors' rebuild functions, dtypes,
containers), only those may be called, and BUILD/APPEND/SETITEM act only on the
types they are meant for. Damaged data fails as it does in torch (reads past the end
come back short, so `struct.error`, `IndexError` or `KeyError` follow), never in
arbitrary code or a huge allocation: every read is a slice of the bytes present.
"""
import pickle
import struct
import warnings
from collections import Counter, OrderedDict
from pickle import UnpicklingError

from .._tensor import Tensor
from ..nn.parameter import Parameter
from . import names

__all__ = []

_BLOCKED_MODULES = ("sys", "os", "posix", "nt")
_MAX_NESTING = 1000  # hashing a deeper tuple could overflow the C stack

# The Python 2 names torch.load renames (torch._utils' tables; a subset of _compat_pickle's).
_IMPORT_MAPPING = {
    "__builtin__": "builtins", "copy_reg": "copyreg", "Queue": "queue", "repr": "reprlib",
    "_abcoll": "collections.abc", "UserDict": "collections", "UserList": "collections",
    "UserString": "collections", "whichdb": "dbm", "StringIO": "io", "cStringIO": "io",
}
# Python 2 globals renamed in Python 3, grouped by their old module: old -> (module, name).
_RENAMED_BY_MODULE = {
    "__builtin__": {"basestring": ("builtins", "str"), "intern": ("sys", "intern"),
                    "long": ("builtins", "int"), "reduce": ("functools", "reduce"),
                    "unichr": ("builtins", "chr"), "unicode": ("builtins", "str"),
                    "xrange": ("builtins", "range")},
    "itertools": {"ifilter": ("builtins", "filter"), "ifilterfalse": ("itertools", "filterfalse"),
                  "imap": ("builtins", "map"), "izip": ("builtins", "zip"),
                  "izip_longest": ("itertools", "zip_longest")},
    "exceptions": {"StandardError": ("builtins", "Exception")},
    "UserDict": {"IterableUserDict": ("collections", "UserDict"),
                 "UserDict": ("collections", "UserDict")},
    "UserList": {"UserList": ("collections", "UserList")},
    "UserString": {"UserString": ("collections", "UserString")},
}
_NAME_MAPPING = {(module, old): new for module, renames in _RENAMED_BY_MODULE.items()
                 for old, new in renames.items()}
# Names torch refuses with a hint to import a subsystem first.
_NEEDS_IMPORT = dict.fromkeys((
    "torch.nested._internal.nested_tensor.NestedTensor",
    "torch.nested._internal.nested_tensor._rebuild_njt",
    "torch._dynamo.decorators._DimRange"),
    "``torch.nested`` and ``torch._dynamo`` must be imported to load nested jagged tensors "
    "(NJTs)")
_NEEDS_IMPORT.update(dict.fromkeys(
    ("torch.distributed." + rest for rest in (
        "device_mesh.DeviceMesh", "tensor.DTensor",
        "tensor._dtensor_spec.DTensorSpec", "tensor._dtensor_spec.TensorMeta",
        "tensor.placement_types.Partial", "tensor.placement_types.Replicate",
        "tensor.placement_types.Shard")),
    "``torch.distributed.tensor`` must be imported to load DTensors"))

_PROTOCOL_WARNING = (
    "Detected pickle protocol {} in the checkpoint, which was not the default pickle "
    "protocol used by `torch.load` (2). The weights_only Unpickler might not support all "
    "instructions implemented by this protocol, please file an issue for adding support if "
    "you encounter this.")

# Globals the user allowlisted with ember.serialization.add_safe_globals.
user_safe_globals = set()


def user_globals():
    """{'module.qualname': object} for the user's safe globals."""
    found = {}
    for item in user_safe_globals:
        if isinstance(item, tuple):
            if len(item) != 2:
                raise ValueError("Expected tuple of length 2 (global, str of callable full "
                                 f"path), but got tuple of length: {len(item)}")
            if type(item[1]) is not str:
                raise TypeError("Expected second item in tuple to be str of callable full "
                                f"path, but got: {type(item[1])}")
            obj, name = item
            found[name] = obj
        else:
            found[f"{item.__module__}.{item.__qualname__}"] = item
    return found


def _unsupported_global_message(full_path):
    if full_path.startswith("builtins"):
        rest = full_path[len("builtins"):]
        full_path = rest[1:] if rest.startswith(".") else "builtins" + rest
    return (f"Unsupported global: GLOBAL {full_path} was not an allowed global by default. "
            f"Please use `torch.serialization.add_safe_globals([{full_path}])` or the "
            f"`torch.serialization.safe_globals([{full_path}])` context manager to allowlist "
            "this global if you trust this class/function.")


class WeightsUnpickler:
    """Loads one pickle from `data[start:]`; then `pos` is just past its STOP."""

    def __init__(self, data, persistent_load, encoding="utf-8", start=0):
        self.data = data
        self.pos = start
        self.persistent_load = persistent_load or _no_persistent_load
        self.encoding = encoding
        self.globals = dict(names.TORCH_GLOBALS, **names.WEIGHTS_ONLY_GLOBALS)
        self.globals.update(user_globals())
        allowed = self.globals.values()
        # What REDUCE/NEWOBJ may call: never Tensor itself (Tensor(2**40) allocates).
        self.callables = {id(obj) for obj in allowed if callable(obj) and obj is not Tensor}
        self.buildable = {id(obj) for obj in allowed if isinstance(obj, type)}

    # ---------------------------------------------------------------- reading bytes
    def _read(self, n):
        """Up to n bytes, fewer at the end of the data (as a file's read gives)."""
        pos = self.pos
        chunk = self.data[pos:pos + n]
        self.pos = pos + len(chunk)
        return chunk

    def _byte(self):
        """One byte's value; past the end, the IndexError torch's `read(1)[0]` raises."""
        value = self.data[self.pos]
        self.pos += 1
        return value

    def _readline(self):
        newline = self.data.find(b"\n", self.pos)
        end = len(self.data) if newline < 0 else newline + 1
        line = self.data[self.pos:end]
        self.pos = end
        return line

    def _unpack(self, fmt, size):
        return struct.unpack(fmt, self._read(size))[0]

    # ---------------------------------------------------------------- driver
    def load(self):
        self.stack, self.metastack, self.memo = [], [], {}
        self._depths = {}
        handlers = _HANDLERS
        data = self.data
        while True:
            try:
                opcode = data[self.pos]
            except IndexError:
                raise EOFError from None
            self.pos += 1
            if opcode == 0x2E:  # STOP
                return self.stack.pop()
            handler = handlers.get(opcode)
            if handler is None:
                raise UnpicklingError(f"Unsupported operand {opcode}")
            handler(self)

    def _pop_mark(self):
        items = self.stack
        self.stack = self.metastack.pop()
        return items

    def _nested(self, items):
        """tuple(items), refusing nesting deep enough that hashing it could overflow
        the C stack."""
        depth = 1
        for item in items:
            if type(item) is tuple:
                found = self._depths.get(id(item))
                depth = max(depth, (found[1] if found else 1) + 1)
        value = tuple(items)
        if depth > 1:
            if depth > _MAX_NESTING:
                raise UnpicklingError("pickle data nests tuples too deeply")
            self._depths[id(value)] = (value, depth)  # the value is kept so its id stays
        return value

    # ---------------------------------------------------------------- globals and calls
    def _find_global(self, module, name):
        if (module, name) in _NAME_MAPPING:
            module, name = _NAME_MAPPING[(module, name)]
        elif module in _IMPORT_MAPPING:
            module = _IMPORT_MAPPING[module]
        full_path = f"{module}.{name}"
        if module in _BLOCKED_MODULES:
            raise UnpicklingError(f"Trying to load unsupported GLOBAL {full_path} whose module "
                                  f"{module} is blocked.")
        found = self.globals.get(full_path)
        if found is None:
            found = names.torch_global(module, name)  # raises for torch dtypes ember lacks
        if found is None:
            hint = _NEEDS_IMPORT.get(full_path)
            raise UnpicklingError(hint or _unsupported_global_message(full_path))
        return found

    def _build(self, state):
        inst = self.stack[-1]
        kind = type(inst)
        if kind is Parameter or kind is Tensor:
            names.set_object_state(inst, state)
        elif kind is OrderedDict:
            inst.__dict__.update(state)
        elif id(kind) in self.buildable:
            if hasattr(inst, "__setstate__"):
                inst.__setstate__(state)
                return
            slots = None
            if isinstance(state, tuple) and len(state) == 2:
                state, slots = state
            if state:
                inst.__dict__.update(state)
            if slots:
                for key, value in slots.items():
                    setattr(inst, key, value)
        else:
            raise UnpicklingError("Can only build Tensor, Parameter, OrderedDict or types "
                                  f"allowlisted via `add_safe_globals`, but got {kind}")


# ---------------------------------------------------------------- opcode handlers
# Only the opcodes torch's weights-only unpickler knows; any other byte is refused
# ("Unsupported operand N"), as torch refuses it.
def _proto(u):
    version = u._byte()
    if version != 2:
        warnings.warn(_PROTOCOL_WARNING.format(version), UserWarning, stacklevel=5)


def _mark(u):
    u.metastack.append(u.stack)
    u.stack = []


def _tuple(u):
    items = u._pop_mark()  # first: it restores the stack the tuple goes on
    u.stack.append(u._nested(items))


def _tuple1(u):
    u.stack[-1] = u._nested((u.stack[-1],))


def _tuple2(u):
    u.stack[-2:] = [u._nested((u.stack[-2], u.stack[-1]))]


def _tuple3(u):
    u.stack[-3:] = [u._nested((u.stack[-3], u.stack[-2], u.stack[-1]))]


def _short_binstring(u):
    data = u._read(u._byte())
    u.stack.append(data if u.encoding == "bytes" else data.decode(u.encoding, "strict"))


def _append(u):
    item = u.stack.pop()
    target = u.stack[-1]
    if type(target) is not list:
        raise UnpicklingError(f"Can only append to lists, but got {type(target)}")
    target.append(item)


def _appends(u):
    items = u._pop_mark()
    target = u.stack[-1]
    if type(target) is not list:
        raise UnpicklingError(f"Can only extend lists, but got {type(target)}")
    target.extend(items)


def _dict_target(u, opcode_name):
    target = u.stack[-1]
    if type(target) not in _DICTS:
        raise UnpicklingError(f"Can only {opcode_name} for dict, collections.OrderedDict, "
                              f"collections.Counter, but got {type(target)}")
    return target


_DICTS = (dict, OrderedDict, Counter)


def _setitem(u):
    value, key = u.stack.pop(), u.stack.pop()
    _dict_target(u, "SETITEM")[key] = value


def _setitems(u):
    items = u._pop_mark()
    target = _dict_target(u, "SETITEMS")
    for i in range(0, len(items), 2):
        target[items[i]] = items[i + 1]


def _global(u):
    module = u._readline()[:-1].decode("utf-8")
    name = u._readline()[:-1].decode("utf-8")
    u.stack.append(u._find_global(module, name))


def _reduce(u):
    args = u.stack.pop()
    func = u.stack[-1]
    if id(func) not in u.callables:
        message = f"Trying to call reduce for unrecognized function {func}"
        if hasattr(func, "__self__"):
            message += f" which belongs to {func.__self__}"
        raise UnpicklingError(message)
    u.stack[-1] = func(*args)


def _newobj(u):
    args = u.stack.pop()
    cls = u.stack.pop()
    if cls is Parameter:
        u.stack.append(Parameter(*args))
    elif id(cls) in u.callables:
        u.stack.append(cls.__new__(cls, *args))
    else:
        raise UnpicklingError("Can only create new object for nn.Parameter or classes "
                              f"allowlisted via `add_safe_globals` but got {cls}")


def _build(u):
    u._build(u.stack.pop())


def _binpersid(u):
    pid = u.stack.pop()
    if type(pid) is not tuple and type(pid) is not int:
        raise UnpicklingError(f"persistent_load id must be tuple or int, but got {type(pid)}")
    if type(pid) is tuple and pid and decode_tag(pid[0]) != "storage":
        raise UnpicklingError(f"Only persistent_load of storage is allowed, but got "
                              f"{type(pid[0])}")
    u.stack.append(u.persistent_load(pid))


def _no_persistent_load(pid):
    """A pickle outside a checkpoint's object (a legacy header) has no storages."""
    raise UnpicklingError("unsupported persistent id encountered")


def decode_tag(tag):
    """A persistent id's text field, decoded from ASCII where Python 2 left bytes."""
    return tag.decode("ascii") if isinstance(tag, bytes) else tag


def _push(value):
    return lambda u: u.stack.append(value)


def _push_new(factory):
    return lambda u: u.stack.append(factory())


_HANDLERS = {
    0x80: _proto,                                                     # PROTO
    0x28: _mark,                                                      # MARK
    0x4E: _push(None),                                                # NONE
    0x88: _push(True),                                                # NEWTRUE
    0x89: _push(False),                                               # NEWFALSE
    0x4A: lambda u: u.stack.append(u._unpack("<i", 4)),               # BININT
    0x4B: lambda u: u.stack.append(u._byte()),                        # BININT1
    0x4D: lambda u: u.stack.append(u._unpack("<H", 2)),               # BININT2
    0x8A: lambda u: u.stack.append(pickle.decode_long(u._read(u._byte()))),  # LONG1
    0x47: lambda u: u.stack.append(u._unpack(">d", 8)),               # BINFLOAT
    0x55: _short_binstring,                                           # SHORT_BINSTRING
    0x58: lambda u: u.stack.append(                                   # BINUNICODE
        str(u._read(u._unpack("<I", 4)), "utf-8", "surrogatepass")),
    0x29: _push_new(tuple),                                           # EMPTY_TUPLE
    0x74: _tuple,                                                     # TUPLE
    0x85: _tuple1,                                                    # TUPLE1
    0x86: _tuple2,                                                    # TUPLE2
    0x87: _tuple3,                                                    # TUPLE3
    0x5D: _push_new(list),                                            # EMPTY_LIST
    0x61: _append,                                                    # APPEND
    0x65: _appends,                                                   # APPENDS
    0x7D: _push_new(dict),                                            # EMPTY_DICT
    0x73: _setitem,                                                   # SETITEM
    0x75: _setitems,                                                  # SETITEMS
    0x8F: _push_new(set),                                             # EMPTY_SET
    0x68: lambda u: u.stack.append(u.memo[u._byte()]),                # BINGET
    0x6A: lambda u: u.stack.append(u.memo[u._unpack("<I", 4)]),       # LONG_BINGET
    0x71: lambda u: u.memo.__setitem__(u._byte(), u.stack[-1]),       # BINPUT
    0x72: lambda u: u.memo.__setitem__(u._unpack("<I", 4), u.stack[-1]),  # LONG_BINPUT
    0x63: _global,                                                    # GLOBAL
    0x52: _reduce,                                                    # REDUCE
    0x81: _newobj,                                                    # NEWOBJ
    0x62: _build,                                                     # BUILD
    0x51: _binpersid,                                                 # BINPERSID
}


def full_unpickler(pickle_module, file, persistent_load, **kwargs):
    """A `pickle_module.Unpickler` (trusted data) that maps torch's names to ember's."""

    class TorchUnpickler(pickle_module.Unpickler):
        def find_class(self, module, name):
            found = names.torch_global(module, name)
            if found is not None:
                return found
            return super().find_class(module, name)

    unpickler = TorchUnpickler(file, **kwargs)
    if persistent_load is not None:  # else pickle's own error for a persistent id
        unpickler.persistent_load = persistent_load
    return unpickler
