"""Unpicklers for checkpoints: the restricted `weights_only` one and the full one.

`WeightsUnpickler` interprets pickle opcodes itself, as torch's
`_weights_only_unpickler` does, rather than trusting `pickle.Unpickler.find_class`
alone: globals come only from an allowlist (tensors' rebuild functions, dtypes,
containers), only those may be called, BUILD/APPEND/SETITEM act only on the types
they are meant for, and every length is checked against the bytes present. Damaged
input therefore ends in `pickle.UnpicklingError` (or the RuntimeError of a rebuild
check), never in arbitrary code, a huge allocation or a crash.
"""
import _compat_pickle
import pickle
import struct
from collections import Counter, OrderedDict
from pickle import UnpicklingError

from .._tensor import Tensor
from ..nn.parameter import Parameter
from . import names

__all__ = []

_BLOCKED_MODULES = ("sys", "os", "posix", "nt")
_MAX_NESTING = 1000  # hashing a deeper tuple could overflow the C stack
_MEMO_MISSING = object()

# Globals the user allowlisted with ember.serialization.add_safe_globals.
user_safe_globals = set()


def user_globals():
    """{'module.qualname': object} for the user's safe globals."""
    found = {}
    for item in user_safe_globals:
        if isinstance(item, tuple):
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
        self.persistent_load = persistent_load
        self.encoding = encoding
        self.globals = dict(names.TORCH_GLOBALS, **names.WEIGHTS_ONLY_GLOBALS)
        self.globals.update(user_globals())
        # What REDUCE/NEWOBJ may call: never Tensor itself (Tensor(2**40) allocates).
        self.callables = {id(obj) for obj in self.globals.values()
                          if callable(obj) and obj is not Tensor}

    # ---------------------------------------------------------------- reading bytes
    def _read(self, n):
        pos, end = self.pos, self.pos + n
        if n < 0 or end > len(self.data):
            raise UnpicklingError("pickle data was truncated")
        self.pos = end
        return self.data[pos:end]

    def _readline(self):
        newline = self.data.find(b"\n", self.pos)
        if newline < 0:
            raise UnpicklingError("pickle data was truncated")
        line = self.data[self.pos:newline]
        self.pos = newline + 1
        return line

    def _unpack(self, fmt, size):
        return struct.unpack(fmt, self._read(size))[0]

    # ---------------------------------------------------------------- driver
    def load(self):
        self.stack, self.metastack, self.memo = [], [], {}
        self._depths = {}
        if self.pos >= len(self.data):
            raise EOFError("Ran out of input")
        handlers = _HANDLERS
        try:
            while True:
                if self.pos >= len(self.data):
                    raise UnpicklingError("pickle data was truncated")
                opcode = self.data[self.pos]
                self.pos += 1
                if opcode == 0x2E:  # STOP
                    if not self.stack:
                        raise UnpicklingError("STOP with an empty stack")
                    return self.stack.pop()
                handler = handlers.get(opcode)
                if handler is None:
                    raise UnpicklingError(f"Unsupported operand {opcode}")
                handler(self)
        except (IndexError, KeyError, TypeError, ValueError, AttributeError, OverflowError,
                struct.error, RecursionError) as error:
            if isinstance(error, UnicodeError):
                raise UnpicklingError(f"invalid text in pickle data: {error}") from None
            raise UnpicklingError(f"malformed pickle data near byte {self.pos}: "
                                  f"{type(error).__name__}: {error}") from None

    def _pop_mark(self):
        if not self.metastack:
            raise UnpicklingError("could not find MARK")
        items = self.stack
        self.stack = self.metastack.pop()
        return items

    def _push_nested(self, items, kind=tuple):
        """Push kind(items) (a tuple or frozenset), refusing nesting deep enough that
        hashing it could overflow the C stack."""
        depth = 1
        for item in items:
            if type(item) is tuple or type(item) is frozenset:
                found = self._depths.get(id(item))
                depth = max(depth, (found[1] if found else 1) + 1)
        value = kind(items)
        if depth > 1:
            if depth > _MAX_NESTING:
                raise UnpicklingError("pickle data nests tuples too deeply")
            self._depths[id(value)] = (value, depth)  # the value is kept so its id stays
        self.stack.append(value)

    # ---------------------------------------------------------------- globals and calls
    def _find_global(self, module, name):
        if (module, name) in _compat_pickle.NAME_MAPPING:
            module, name = _compat_pickle.NAME_MAPPING[(module, name)]
        elif module in _compat_pickle.IMPORT_MAPPING:
            module = _compat_pickle.IMPORT_MAPPING[module]
        full_path = f"{module}.{name}"
        if module in _BLOCKED_MODULES:
            raise UnpicklingError(f"Trying to load unsupported GLOBAL {full_path} whose module "
                                  f"{module} is blocked.")
        found = self.globals.get(full_path)
        if found is None:
            found = names.torch_global(module, name)  # raises for torch dtypes ember lacks
        if found is None:
            raise UnpicklingError(_unsupported_global_message(full_path))
        return found

    def _call(self, func, args, kwargs=None):
        if id(func) not in self.callables:
            raise UnpicklingError(f"Trying to call reduce for unrecognized function {func!r}")
        if not isinstance(args, tuple):
            raise UnpicklingError(f"expected a tuple of arguments, got {type(args).__name__}")
        return func(*args, **(kwargs or {}))

    def _build(self, state):
        inst = self.stack[-1]
        kind = type(inst)
        if kind is OrderedDict or kind is Counter:
            if isinstance(state, dict):
                inst.__dict__.update(state)
            return
        if isinstance(inst, Parameter):
            names.set_object_state(inst, state)
            return
        if id(kind) in self.callables and hasattr(inst, "__setstate__"):
            inst.__setstate__(state)
            return
        raise UnpicklingError("Can only build Tensor, Parameter, OrderedDict or types "
                              f"allowlisted via `add_safe_globals`, but got {kind}")


def _container(unpickler, allowed, opcode_name):
    target = unpickler.stack[-1]
    if type(target) not in allowed:
        raise UnpicklingError(f"Can only {opcode_name} for "
                              f"{', '.join(t.__name__ for t in allowed)}, but got {type(target)}")
    return target


_DICTS = (dict, OrderedDict, Counter)


# ---------------------------------------------------------------- opcode handlers
def _proto(u):
    version = u._read(1)[0]
    if version > pickle.HIGHEST_PROTOCOL:
        raise UnpicklingError(f"unsupported pickle protocol: {version}")


def _frame(u):
    u._read(8)


def _mark(u):
    u.metastack.append(u.stack)
    u.stack = []


def _pop(u):
    if u.stack:
        u.stack.pop()
    else:
        u._pop_mark()


def _text_int(u):
    line = u._readline()
    u.stack.append(False if line == b"00" else True if line == b"01" else int(line))


def _text_long(u):
    line = u._readline()
    u.stack.append(int(line[:-1] if line.endswith(b"L") else line, 0))


def _long4(u):
    size = u._unpack("<i", 4)
    if size < 0:
        raise UnpicklingError("LONG pickle has negative byte count")
    u.stack.append(pickle.decode_long(u._read(size)))


def _string(u, size):
    data = u._read(size)
    u.stack.append(data if u.encoding == "bytes" else data.decode(u.encoding, "strict"))


def _unicode(u, size):
    u.stack.append(str(u._read(size), "utf-8", "surrogatepass"))


def _tuple_n(n):
    def handler(u):
        if len(u.stack) < n:
            raise UnpicklingError("tuple with too few items on the stack")
        items = u.stack[len(u.stack) - n:]
        del u.stack[len(u.stack) - n:]
        u._push_nested(items)
    return handler


def _append(u):
    value = u.stack.pop()
    _container(u, (list,), "append").append(value)


def _appends(u):
    items = u._pop_mark()
    _container(u, (list,), "extend").extend(items)


def _setitem(u):
    value, key = u.stack.pop(), u.stack.pop()
    _container(u, _DICTS, "SETITEM")[key] = value


def _setitems(u):
    items = u._pop_mark()
    target = _container(u, _DICTS, "SETITEMS")
    if len(items) % 2:
        raise UnpicklingError("SETITEMS with an odd number of items")
    for i in range(0, len(items), 2):
        target[items[i]] = items[i + 1]


def _additems(u):
    items = u._pop_mark()
    _container(u, (set,), "ADDITEMS").update(items)


def _frozenset(u):
    u._push_nested(u._pop_mark(), frozenset)


def _dict_from_mark(u):
    items = u._pop_mark()
    if len(items) % 2:
        raise UnpicklingError("DICT with an odd number of items")
    u.stack.append({items[i]: items[i + 1] for i in range(0, len(items), 2)})


def _get(u, index):
    value = u.memo.get(index, _MEMO_MISSING)
    if value is _MEMO_MISSING:
        raise UnpicklingError(f"Memo value not found at index {index}")
    u.stack.append(value)


def _put(u, index):
    if index < 0:
        raise UnpicklingError("negative PUT argument")
    u.memo[index] = u.stack[-1]


def _global(u):
    module = u._readline().decode("utf-8")
    name = u._readline().decode("utf-8")
    u.stack.append(u._find_global(module, name))


def _stack_global(u):
    name, module = u.stack.pop(), u.stack.pop()
    if type(name) is not str or type(module) is not str:
        raise UnpicklingError("STACK_GLOBAL requires str")
    u.stack.append(u._find_global(module, name))


def _reduce(u):
    args = u.stack.pop()
    u.stack[-1] = u._call(u.stack[-1], args)


def _newobj(u):
    args = u.stack.pop()
    cls = u.stack.pop()
    u.stack.append(_new_object(u, cls, args, {}))


def _newobj_ex(u):
    kwargs, args, cls = u.stack.pop(), u.stack.pop(), u.stack.pop()
    if not isinstance(kwargs, dict):
        raise UnpicklingError("NEWOBJ_EX kwargs must be a dict")
    u.stack.append(_new_object(u, cls, args, kwargs))


def _new_object(u, cls, args, kwargs):
    if not isinstance(cls, type) or id(cls) not in u.callables:
        raise UnpicklingError("Can only create new object for nn.Parameter or classes "
                              f"allowlisted via `add_safe_globals` but got {cls}")
    if not isinstance(args, tuple):
        raise UnpicklingError("NEWOBJ arguments must be a tuple")
    if issubclass(cls, Tensor):
        return cls(*args, **kwargs)
    return cls.__new__(cls, *args, **kwargs)


def _build(u):
    u._build(u.stack.pop())


def _binpersid(u):
    pid = u.stack.pop()
    if type(pid) is not tuple or not pid or _decode_tag(pid[0]) != "storage":
        raise UnpicklingError("Only persistent_load of storage is allowed, but got "
                              f"{type(pid[0] if type(pid) is tuple and pid else pid)}")
    u.stack.append(u.persistent_load(pid))


def _decode_tag(tag):
    return tag.decode("ascii", "replace") if isinstance(tag, bytes) else tag


def _push(value):
    return lambda u: u.stack.append(value)


def _push_new(factory):
    return lambda u: u.stack.append(factory())


_HANDLERS = {
    0x80: _proto,
    0x95: _frame,
    0x28: _mark,
    0x30: _pop,
    0x31: lambda u: u._pop_mark(),
    0x32: lambda u: u.stack.append(u.stack[-1]),
    0x4E: _push(None),
    0x88: _push(True),
    0x89: _push(False),
    0x49: _text_int,
    0x4A: lambda u: u.stack.append(u._unpack("<i", 4)),
    0x4B: lambda u: u.stack.append(u._read(1)[0]),
    0x4D: lambda u: u.stack.append(u._unpack("<H", 2)),
    0x4C: _text_long,
    0x8A: lambda u: u.stack.append(pickle.decode_long(u._read(u._read(1)[0]))),
    0x8B: _long4,
    0x46: lambda u: u.stack.append(float(u._readline())),
    0x47: lambda u: u.stack.append(u._unpack(">d", 8)),
    0x54: lambda u: _string(u, u._unpack("<i", 4)),
    0x55: lambda u: _string(u, u._read(1)[0]),
    0x42: lambda u: u.stack.append(u._read(u._unpack("<I", 4))),
    0x43: lambda u: u.stack.append(u._read(u._read(1)[0])),
    0x8E: lambda u: u.stack.append(u._read(u._unpack("<Q", 8))),
    0x96: lambda u: u.stack.append(bytearray(u._read(u._unpack("<Q", 8)))),
    0x56: lambda u: u.stack.append(u._readline().decode("raw-unicode-escape")),
    0x58: lambda u: _unicode(u, u._unpack("<I", 4)),
    0x8C: lambda u: _unicode(u, u._read(1)[0]),
    0x8D: lambda u: _unicode(u, u._unpack("<Q", 8)),
    0x29: _push_new(tuple),
    0x74: lambda u: u._push_nested(u._pop_mark()),
    0x85: _tuple_n(1),
    0x86: _tuple_n(2),
    0x87: _tuple_n(3),
    0x5D: _push_new(list),
    0x6C: lambda u: u.stack.append(u._pop_mark()),
    0x61: _append,
    0x65: _appends,
    0x7D: _push_new(dict),
    0x64: _dict_from_mark,
    0x73: _setitem,
    0x75: _setitems,
    0x8F: _push_new(set),
    0x90: _additems,
    0x91: _frozenset,
    0x67: lambda u: _get(u, int(u._readline())),
    0x68: lambda u: _get(u, u._read(1)[0]),
    0x6A: lambda u: _get(u, u._unpack("<I", 4)),
    0x70: lambda u: _put(u, int(u._readline())),
    0x71: lambda u: _put(u, u._read(1)[0]),
    0x72: lambda u: _put(u, u._unpack("<I", 4)),
    0x94: lambda u: _put(u, len(u.memo)),
    0x63: _global,
    0x93: _stack_global,
    0x52: _reduce,
    0x81: _newobj,
    0x92: _newobj_ex,
    0x62: _build,
    0x51: _binpersid,
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
    unpickler.persistent_load = persistent_load
    return unpickler
