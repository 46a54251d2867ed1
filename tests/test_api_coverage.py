"""Every public name of ember is exercised against torch somewhere in tests/.

Why a static scan: running the suite under a tracer would be exact but costs the
whole suite; reading the test sources takes about a second and is honest enough
when it only counts code that a torch comparison actually runs:

- test functions that take the `torch` fixture (or a fixture built on it, or call
  `pytest.importorskip("torch")` in their body or at module level), together with the
  module-level helpers and constants they use, followed transitively;
- the op catalog's callables (`lambda lib, ...`, `lambda F, ...`) in the modules
  tests/opdb collects, which tests/test_ops.py runs in ember and torch;
- the scripts in tests/scripts/ that such a test names (run as `torch` = ember and torch).

Inside that code a name counts when it is reached through something that denotes an
ember namespace: `lib.x`, `ember.x`, `lib.nn.functional.x`, `F.x`, `F(lib).x` where
`def F(lib): return lib.nn.functional`, `from ember.nn import X`, source strings given
to eval ("nn.Softplus(2)"), or `getattr(lib, name)` with the names as string constants
of the same test (or as arguments of the catalog factory that builds the callable). An
attribute on anything else (`x.sum()`, `t.mT`) counts as a Tensor method or property.
A class or function re-exported elsewhere counts when reached under its defining module.

`ALLOWED` lists names that cannot be compared with torch, each with why (none today).
Adding a public name without a test fails `test_every_public_name_is_exercised`.
"""
import ast
import functools
import inspect
import pathlib
import types

import ember
import ember.nn.functional

TESTS = pathlib.Path(__file__).resolve().parent

# Namespaces whose public names must each be exercised, and which kind of object counts.
NAMESPACES = {
    "ember": (ember, "all"),
    "Tensor": (ember.Tensor, "all"),
    "nn.functional": (ember.nn.functional, "all"),
    "nn": (ember.nn, "classes"),
    "linalg": (ember.linalg, "all"),
    "optim": (ember.optim, "all"),
}

# namespace -> {name: reason it is not compared with torch}
ALLOWED = {
    "ember": {},
    "Tensor": {},
    "nn.functional": {},
    "nn": {},
    "linalg": {},
    "optim": {},
}


def public_names(namespace, kind):
    """Names a user reaches: no underscore, no submodule, classes only where asked."""
    names = set()
    for name in dir(namespace):
        if name.startswith("_"):
            continue
        value = inspect.getattr_static(namespace, name) if isinstance(namespace, type) \
            else getattr(namespace, name)
        if isinstance(value, types.ModuleType):
            continue
        if kind == "classes" and not isinstance(value, type):
            continue
        names.add(name)
    return names


# ---------------------------------------------------------------- the static scan
class _File:
    """One source file: its tree, its module-level definitions and its ember aliases."""

    def __init__(self, path, torch_is_ember=False):
        self.path = path
        self.tree = ast.parse(path.read_text(), str(path))
        self.torch_is_ember = torch_is_ember
        self._walks = {}
        self.definitions = {}
        for node in self.tree.body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                self.definitions[node.name] = node
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    for name in ast.walk(target):
                        if isinstance(name, ast.Name):
                            self.definitions[name.id] = node
        # the conventional parameter names of tests and catalog: `lambda lib, x: ...`,
        # `lambda F, x: F.relu(x)` (overridden where the file binds them otherwise)
        self.aliases = {"lib": "ember", "F": "ember.nn.functional"}
        self.foreign = set()                     # names bound to other modules (np, torch, ...)
        if torch_is_ember:
            self.aliases["torch"] = "ember"
        for node in self.walk(self.tree):
            if isinstance(node, ast.Import):
                for item in node.names:
                    path = self._ember_path(item.name)
                    bound = item.asname or item.name.split(".")[0]
                    if path is None:
                        self.foreign.add(bound)
                    else:
                        self.aliases[bound] = path if item.asname else "ember"
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                path = self._ember_path(node.module)
                for item in node.names:
                    bound = item.asname or item.name
                    if path is None:
                        self.foreign.add(bound)
                    else:
                        self.aliases[bound] = f"{path}.{item.name}"
        if not torch_is_ember:
            self.foreign.add("torch")
        for name in self.foreign:
            self.aliases.pop(name, None)
        # helpers that only return a namespace: `def F(lib): return lib.nn.functional`
        self.returns = {}
        for name, node in self.definitions.items():
            if isinstance(node, ast.FunctionDef) and len(node.body) == 1 \
                    and isinstance(node.body[0], ast.Return) and node.body[0].value is not None:
                self.returns[name] = node.body[0].value

    def walk(self, node):
        """ast.walk, remembered: the scan visits the same functions several times."""
        key = id(node)
        if key not in self._walks:
            self._walks[key] = list(ast.walk(node))
        return self._walks[key]

    def _ember_path(self, module):
        head = module.split(".")[0]
        if head == "ember" or (self.torch_is_ember and head == "torch"):
            return "ember" + module[len(head):]
        return None

    def reachable(self, roots):
        """The roots and every module-level definition they use, transitively."""
        seen, todo, nodes = set(), list(roots), []
        while todo:
            node = todo.pop()
            if id(node) in seen:
                continue
            seen.add(id(node))
            nodes.append(node)
            for sub in self.walk(node):
                if isinstance(sub, ast.Name) and sub.id in self.definitions:
                    todo.append(self.definitions[sub.id])
        return nodes


_OWNERS = {}   # id -> the ember module or class a reference was looked up on


def _owned(owner):
    _OWNERS[id(owner)] = owner
    return id(owner)


def _resolve(path):
    """The ember object a dotted path such as 'ember.nn.functional' denotes, or None."""
    parts = path.split(".")
    value = ember
    for part in parts[1:]:
        try:
            value = inspect.getattr_static(value, part) if isinstance(value, type) \
                else getattr(value, part)
        except AttributeError:
            return None
    return value


def _path_of(expression, aliases, returns=None):
    """The dotted ember path of `lib.nn.functional`-like expressions, or None."""
    if isinstance(expression, ast.Name):
        return aliases.get(expression.id)
    if isinstance(expression, ast.Attribute):
        base = _path_of(expression.value, aliases, returns)
        return None if base is None else f"{base}.{expression.attr}"
    if isinstance(expression, ast.Call) and isinstance(expression.func, ast.Name) \
            and returns and expression.func.id in returns:
        return _path_of(returns[expression.func.id], aliases)
    return None


def _owner(expression, file, aliases):
    """The ember namespace an attribute is looked up on (Tensor for anything unknown)."""
    path = _path_of(expression, aliases, file.returns)
    if path is not None:
        return _resolve(path)
    if isinstance(expression, ast.Name) and expression.id in file.foreign:
        return None
    return ember.Tensor


def _references(file, nodes, extra_strings=()):
    """(owner, name) pairs the nodes use; owner is an ember module or class.

    `getattr(owner, name)` with a variable name counts every identifier-like string
    constant of the nodes (a parametrize list) and `extra_strings`."""
    subs = [sub for node in nodes for sub in file.walk(node)]
    aliases = dict(file.aliases)
    for sub in subs:     # local aliases: `F = lib.nn.functional`, `nn = ember.nn`
        if isinstance(sub, ast.Assign) and len(sub.targets) == 1 \
                and isinstance(sub.targets[0], ast.Name):
            path = _path_of(sub.value, aliases, file.returns)
            if path is not None and isinstance(_resolve(path), (types.ModuleType, type)):
                aliases[sub.targets[0].id] = path
    strings = {sub.value for sub in subs
               if isinstance(sub, ast.Constant) and isinstance(sub.value, str)
               and sub.value.isidentifier()} | set(extra_strings)
    if any(isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name) and sub.func.id == "eval"
           for sub in subs):
        subs += [sub for tree in _evaluated_sources(subs, aliases) for sub in ast.walk(tree)]
    found = set()
    for sub in subs:
        if isinstance(sub, ast.Attribute):
            owner = _owner(sub.value, file, aliases)
            if owner is not None:
                found.add((_owned(owner), sub.attr))
        elif isinstance(sub, ast.Name) and sub.id in aliases:
            head, _, name = aliases[sub.id].rpartition(".")
            owner = _resolve(head) if head else None
            if owner is not None:
                found.add((_owned(owner), name))
        elif isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name) \
                and sub.func.id in ("getattr", "hasattr") and len(sub.args) >= 2:
            owner = _owner(sub.args[0], file, aliases)
            if owner is None:
                continue
            key = sub.args[1]
            names = [key.value] if isinstance(key, ast.Constant) else strings
            found.update((_owned(owner), name) for name in names)
    return found


def _evaluated_sources(subs, aliases):
    """Expressions a test passes to eval as strings ("nn.Softplus(2)", or "Softplus(2)"
    behind an "nn." prefix), parsed so that their names count like code."""
    parsed = []
    aliases.setdefault("nn", "ember.nn")     # evaluated with {"nn": lib.nn}
    for sub in subs:
        if not (isinstance(sub, ast.Constant) and isinstance(sub.value, str)):
            continue
        try:
            tree = ast.parse(sub.value, mode="eval")
        except SyntaxError:
            continue
        if not any(isinstance(n, ast.Call) for n in ast.walk(tree)):
            continue
        head = tree.body
        while isinstance(head, (ast.Call, ast.Attribute)):
            head = head.func if isinstance(head, ast.Call) else head.value
        if isinstance(head, ast.Name) and head.id not in aliases and hasattr(ember.nn, head.id):
            tree = ast.parse("nn." + sub.value, mode="eval")   # the "nn." + source idiom
        parsed.append(tree)
    return parsed


def _takes_torch(function, providers):
    """A test that gets the oracle: the `torch` fixture, a fixture built on it, or importorskip."""
    names = {a.arg for a in function.args.args + function.args.kwonlyargs}
    return bool(names & providers) or _imports_torch(function.body)


def _torch_fixtures(tree):
    """`torch` and this file's fixtures that take it (`def libs(torch): ...`)."""
    providers = {"torch"}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and any(
                "fixture" in ast.unparse(d) for d in node.decorator_list) \
                and any(a.arg in providers for a in node.args.args):
            providers.add(node.name)
    return providers


def _imports_torch(statements):
    for statement in statements:
        for sub in ast.walk(statement):
            if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute) \
                    and sub.func.attr == "importorskip" and sub.args \
                    and isinstance(sub.args[0], ast.Constant) \
                    and sub.args[0].value == "torch":
                return True
    return False


def _test_functions(tree):
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test"):
            yield node
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name.startswith("test"):
                    yield item


def _catalog_files():
    """The opdb modules whose entries tests/test_ops.py collects."""
    from opdb import all_ops  # noqa: PLC0415 - the catalog is a test-side package
    return sorted({pathlib.Path(inspect.getsourcefile(op.op)) for op in all_ops()})


def _takes_lib(node):
    """`lambda lib, x: ...` or `lambda F, x: F.relu(x)`: code the catalog runs in both."""
    args = node.args.args
    return bool(args) and args[0].arg in ("lib", "F")


def _catalog_roots(file):
    """The catalog's callables, grouped by the module-level function that makes them
    (`def _f(name): return lambda lib, *a: getattr(lib.nn.functional, name)(*a)`)."""
    groups = {}
    for top in file.tree.body:
        for node in ast.walk(top):
            if isinstance(node, (ast.Lambda, ast.FunctionDef)) and _takes_lib(node):
                factory = top.name if isinstance(top, ast.FunctionDef) and top is not node \
                    else None
                groups.setdefault(factory, []).append(node)
    return groups


def _factory_names(file, factory):
    """The string arguments of every call of `factory` in the file: `_f("max_pool3d")`."""
    if factory is None:
        return set()
    return {arg.value for node in ast.walk(file.tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id == factory
            for arg in node.args if isinstance(arg, ast.Constant) and isinstance(arg.value, str)}


def scan_test_file(path):
    """(references, script names) of one test module's torch-comparing tests."""
    file = _File(path)
    whole_module = _imports_torch(
        [n for n in file.tree.body if not isinstance(n, (ast.FunctionDef, ast.ClassDef))])
    providers = _torch_fixtures(file.tree)
    roots = [f for f in _test_functions(file.tree) if whole_module or _takes_torch(f, providers)]
    nodes = file.reachable(roots)
    scripts = {sub.value for node in nodes for sub in ast.walk(node)
               if isinstance(sub, ast.Constant) and isinstance(sub.value, str)
               and sub.value.endswith(".py")}
    return _references(file, nodes), scripts


@functools.lru_cache(maxsize=None)
def exercised():
    """Every (id(owner), name) that some torch-comparing test code uses."""
    found, script_names = set(), set()
    for path in sorted(TESTS.glob("test_*.py")):
        references, scripts = scan_test_file(path)
        found |= references
        script_names |= scripts
    for path in _catalog_files():
        file = _File(path)
        for factory, roots in _catalog_roots(file).items():
            found |= _references(file, file.reachable(roots), _factory_names(file, factory))
    for path in sorted((TESTS / "scripts").glob("*.py")):
        if path.name in script_names:
            file = _File(path, torch_is_ember=True)
            found |= _references(file, [file.tree])
    return frozenset(found)


def missing_names():
    found = exercised()
    reached = _reached_objects(found)
    missing = {}
    for label, (namespace, kind) in NAMESPACES.items():
        absent = sorted(name for name in public_names(namespace, kind)
                        if (id(namespace), name) not in found
                        and id(getattr(namespace, name)) not in reached
                        and name not in ALLOWED[label])
        if absent:
            missing[label] = absent
    return missing


def _reached_objects(found):
    """Classes and functions reached under any ember path, so that a re-export counts
    when its test uses the defining module (ember.nn.modules.lazy.LazyModuleMixin)."""
    reached = set()
    for owner_id, name in found:
        owner = _OWNERS[owner_id]
        if owner is ember.Tensor:
            continue
        value = getattr(owner, name, None)
        if isinstance(value, (type, types.FunctionType)):
            reached.add(id(value))
    return reached


def test_every_public_name_is_exercised():
    missing = missing_names()
    assert not missing, "public names no torch-comparing test exercises: " + "; ".join(
        f"{label}: {', '.join(names)}" for label, names in missing.items())


def test_allowlist_has_no_stale_entries():
    found = exercised()
    for label, reasons in ALLOWED.items():
        namespace, kind = NAMESPACES[label]
        names = public_names(namespace, kind)
        for name in reasons:
            assert name in names, f"{label}.{name} is allowlisted but no longer public"
            assert (id(namespace), name) not in found, (
                f"{label}.{name} is allowlisted but now tested: drop it from ALLOWED")


# ---------------------------------------------------------------- the scan itself
def test_a_new_public_name_without_a_test_fails(monkeypatch):
    monkeypatch.setattr(ember, "brand_new_op", lambda input: input, raising=False)
    monkeypatch.setattr(ember.Tensor, "brand_new_method", lambda self: self, raising=False)
    missing = missing_names()
    assert "brand_new_op" in missing["ember"]
    assert "brand_new_method" in missing["Tensor"]


SAMPLE = """
import pytest
import ember
import ember.nn.functional as F


@pytest.mark.parametrize("name", ["cos", "sin"])
def test_compared(torch, name):
    for lib in (ember, torch):
        x = lib.ones(2)
        getattr(x, name)()
        _helper(lib)
        F.relu(x)


def _helper(lib):
    return lib.nn.functional.gelu(lib.zeros(1)).mT


def test_not_compared():
    ember.tanh(ember.ones(1)).exp()
    torch.tanh(torch.ones(1))
"""


def test_scan_counts_only_code_that_torch_comparisons_run(tmp_path):
    path = tmp_path / "test_sample.py"
    path.write_text(SAMPLE)
    references, _ = scan_test_file(path)
    names = {(_OWNERS[owner].__name__, name) for owner, name in references}
    for expected in [("ember", "ones"), ("Tensor", "cos"), ("Tensor", "sin"),
                     ("ember.nn.functional", "relu"), ("ember.nn.functional", "gelu"),
                     ("Tensor", "mT")]:
        assert expected in names
    for absent in [("ember", "tanh"), ("Tensor", "exp"), ("ember", "cos"), ("Tensor", "relu")]:
        assert absent not in names
