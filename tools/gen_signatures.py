"""Write ember/_signatures.py: PyTorch's argument-parser signatures, as PyTorch prints them.

Developer tool, run by hand with torch installed: `python tools/gen_signatures.py`.
PyTorch's C++ functions check their arguments against signature strings compiled into
libtorch_python.so ("sum(Tensor input, *, ScalarType? dtype=None)"). This script reads
those strings, rewrites each the way FunctionSignature::toString prints it
("(Tensor input, *, ember.dtype dtype = None)"), and keeps an entry only when ember's
_arguments, given it, reproduces torch's own TypeError for a set of probe calls (so a
string that belongs to another parser, or a quirk not modelled, is left out, not guessed).
"""
import itertools
import os
import pprint
import re
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import ember  # noqa: E402
from ember import _arguments  # noqa: E402

_TYPES = {
    "Tensor": "Tensor", "bool": "bool", "int64_t": "int", "SymInt": "int", "Scalar": "Number",
    "TensorList": "tuple of Tensors", "c10::List<::std::optional<Tensor>>": "tuple of Tensors",
    "double": "float", "SymIntArrayRef": "tuple of ints", "IntArrayRef": "tuple of ints",
    "ScalarType": "ember.dtype", "Device": "ember.device", "Layout": "ember.layout",
    "MemoryFormat": "ember.memory_format", "Generator": "ember.Generator", "PyObject*": "object",
    "c10::string_view": "str", "std::string_view": "str", "std::string": "str",
    "ScalarList": "tuple of Scalars", "ArrayRef<double>": "tuple of floats",
    "Storage": "ember.Storage", "DeviceIndex": "int", "Stream": "ember.Stream",
    "DispatchKeySet": "DispatchKeySet",
}
_DEFAULTS = {"at::Reduction::Mean": "1", "c10::MemoryFormat::Contiguous": "contiguous_format",
             "torch.strided": "ember.strided"}
_STRING = re.compile(rb"(?<=\x00)([a-z_][a-z0-9_]*)\(([^\x00()]*)\)((?:\|[a-z]+)*)\x00")


def read_strings():
    """{name: [native signature text, ...]} in the order the library holds them."""
    path = os.path.join(os.path.dirname(torch.__file__), "lib", "libtorch_python.so")
    with open(path, "rb") as handle:
        data = handle.read()
    found = {}
    for match in _STRING.finditer(data):
        name, body, flags = (part.decode() for part in match.groups())
        found.setdefault(name, []).append((body, flags))
    return found


def printed(body, flags):
    """One native signature as PyTorch prints it, with '|hidden' kept for the parser."""
    parts = []
    for part in body.split(", ") if body else ():
        if part == "*":
            parts.append("*")
            continue
        declared, _, default = part.partition("=")
        type_name, _, name = declared.rpartition(" ")
        # "IntArrayRef[2]": a sized int list also takes one int (or one-element integer
        # tensor); PyTorch does not print the size, _arguments drops it when printing
        sized = re.search(r"\[\d+\]", type_name)
        type_name = type_name.replace(sized.group(), "") if sized else type_name
        # PyTorch prints "int? dim" as "int dim"; the mark stays for the parser (None
        # passes), and _arguments drops it when printing. A None default says it already.
        nullable = "?" if type_name.endswith("?") and default != "None" else ""
        type_name = type_name.rstrip("?")
        type_name = _TYPES.get(type_name, type_name)
        if sized and type_name == "tuple of ints":
            type_name += sized.group()
        text = f"{type_name}{nullable} {name}"
        if default:
            text += " = " + _DEFAULTS.get(default, default)
        parts.append(text)
    text = "(" + ", ".join(parts) + ")"
    return text + ("|hidden" if flags else "")  # deprecated ones are hidden too


def deprecated_last(entries):
    return [e for e in entries if "deprecated" not in e[1]] + [
        e for e in entries if "deprecated" in e[1]]


def outcome(call):
    try:
        call()
    except TypeError as error:
        return str(error).replace("torch.", "ember.")
    except Exception:  # noqa: BLE001 - not an argument-parser error
        return None
    return None


def probes(name, method):
    marker = object()
    x = torch.ones(2, 3)
    if method:
        calls = [(), (marker,), (marker, marker), (1, marker), (marker,) * 9]
        kw = [{"zz_unknown": 1}, {"dim": marker}]
        target = lambda a, k: getattr(x, name)(*a, **k)  # noqa: E731
        args_for = lambda a: a  # noqa: E731
    else:
        calls = [(marker,), (x, marker), (x, x, marker), (x, 1, marker), (marker,) * 9]
        kw = [{"zz_unknown": 1}]
        function = getattr(torch, name, None) or getattr(torch._C._nn, name)
        target = lambda a, k: function(*a, **k)  # noqa: E731
        args_for = lambda a: tuple(ember.ones(2, 3) if v is x else v for v in a)  # noqa: E731
    for args in calls:
        yield args_for(args), {}, outcome(lambda: target(args, {}))
    for kwargs in kw:
        yield args_for((x,) if not method else ()), kwargs, outcome(
            lambda: target((x,) if not method else (), kwargs))


def fits(name, texts, method):
    checked = 0
    for args, kwargs, expected in probes(name, method):
        if expected is None:
            continue
        got = _arguments.explain_with(name, texts, args, kwargs)
        if got is None or str(got) != expected:
            return False
        checked += 1
    return checked > 0


def choose(name, natives, method):
    for forms in _form_sets(natives, method):
        texts = tuple(printed(b, f) for b, f in deprecated_last(forms))
        texts = tuple(dict.fromkeys(texts))
        for candidate in _orders(texts) if texts else [("()",), ("noargs",)]:
            if fits(name, candidate, method):
                return candidate
    return None


def _form_sets(natives, method):
    """Which stored strings may be this parser's: a method's never name self or input;
    a function's usually do, but cat(tensors, dim) or where(condition) do not, so
    failing the first guess, a function tries every string."""
    def is_function(body):
        return re.search(r"(^|, )\S+ (self|input)\b", body) is not None
    first = [(b, f) for b, f in natives if is_function(b) != method]
    yield first
    if not method and len(first) != len(natives):
        yield natives


def _orders(texts):
    """The order found first, then each string moved to the front (strings shared between
    parsers are stored apart from their neighbours), then each one left out."""
    yield texts
    for i in range(1, len(texts)):
        yield (texts[i],) + texts[:i] + texts[i + 1:]
    if len(texts) > 1:
        for i in range(len(texts)):
            yield texts[:i] + texts[i + 1:]
    # PyTorch sorts a parser's overloads (Tensor before Number, ...); where the stored
    # order is far from that, a small set is tried in every order
    if 1 < len(texts) <= 5:
        yield from itertools.permutations(texts)
        for i in range(len(texts)):
            yield from itertools.permutations(texts[:i] + texts[i + 1:])


def main():
    natives = read_strings()
    methods = sorted(n for n in dir(torch.Tensor) if hasattr(ember.Tensor, n)
                     and not n.startswith("__") and n in natives)
    # nn.functional names that are torch's C++ functions themselves (F.conv2d is
    # torch.conv2d): their Python arguments are the parser's, so they share its doors
    nn_builtins = sorted(n for n in dir(torch.nn.functional) if not n.startswith("_")
                         and isinstance(getattr(torch.nn.functional, n), type(torch.relu))
                         and hasattr(ember.nn.functional, n) and n in natives)
    functions = sorted({n for n in dir(torch) if hasattr(ember, n) and n in natives}
                       | {n for n in dir(torch._C._nn) if n in natives
                          and hasattr(ember.nn.functional, n)} | set(nn_builtins))
    table = {"methods": {}, "functions": {}}
    for kind, names in (("methods", methods), ("functions", functions)):
        for name in names:
            chosen = choose(name, natives[name], kind == "methods")
            if chosen:
                table[kind][name] = chosen
            else:
                print("left out:", kind, name, file=sys.stderr)
    out = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "ember",
                       "_signatures.py")
    with open(out, "w") as handle:
        handle.write('"""PyTorch 2.13\'s argument-parser signatures, as its TypeErrors print them.\n\n'
                     "Generated by tools/gen_signatures.py from torch's own signature strings;\n"
                     "each entry was checked against torch's TypeErrors for probe calls. Facts\n"
                     "about PyTorch's API, kept as data: do not edit by hand, rerun the tool.\n"
                     "'|hidden' marks a signature PyTorch parses but never prints.\n"
                     '"""\n')
        handle.write("# Tensor methods (self is not an argument)\n")
        handle.write("METHODS = " + pprint.pformat(table["methods"], width=100) + "\n\n")
        handle.write("# ember.* and torch._C._nn functions behind nn.functional\n")
        handle.write("FUNCTIONS = " + pprint.pformat(table["functions"], width=100) + "\n\n")
        handle.write("# nn.functional names that are C++ functions in PyTorch (same arguments)\n")
        handle.write("NN_FUNCTIONAL = " + pprint.pformat(
            tuple(n for n in nn_builtins if n in table["functions"]), width=100) + "\n")
    print(f"{len(table['methods'])} methods, {len(table['functions'])} functions -> {out}")


if __name__ == "__main__":
    main()
