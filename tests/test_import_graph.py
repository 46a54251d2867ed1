"""ember's imports form a ladder: no circles, and no imports inside op functions.

DESIGN.md allows one deliberate tie: ops build Tensors and `_tensor.py` imports the op
modules once, at its end, for its one-line methods. Every other module-to-module import
(wherever it sits, function bodies included) must point down the ladder. Imports inside
functions in `ember/ops` are refused too: an op is a hot path, and a lazy import there
usually hides a circle. The graph is read from the source with `ast`, so the test needs
no import of ember and names the offending lines.
"""
import ast
import pathlib

ROOT = pathlib.Path(__file__).resolve().parent.parent / "ember"

# Circles that predate this test, in files other helpers own. Each must be broken by
# moving its shared piece down a layer; once it is gone, delete its line (the test fails
# until then, so the list can only shrink).
KNOWN_CIRCLES = {
    # _common.inplace rebases view histories (_view_rebase), which needs slicing's
    # AsStridedBackward0; slicing's backward (split/unbind) needs joining.cat/stack.
    frozenset({"ember.ops._common", "ember.ops._view_rebase", "ember.ops.dims",
               "ember.ops.joining", "ember.ops.rearrange", "ember.ops.slicing",
               "ember.ops.views"}),
    # indexing re-exports setitem and gather_scatter, which build on its parsing helpers.
    frozenset({"ember.ops.gather_scatter", "ember.ops.indexing", "ember.ops.setitem"}),
    # reduction re-exports sorting and cumulative, which build on its helpers.
    frozenset({"ember.ops.cumulative", "ember.ops.reduction", "ember.ops.sorting"}),
    # as in torch.utils.data: the package imports worker, worker reads the package's names.
    frozenset({"ember.utils.data._utils", "ember.utils.data._utils.worker"}),
}

# Imports allowed inside function bodies under ember/ops: (file, imported module) -> why.
FUNCTION_IMPORTS_ALLOWED = {
    # Lazy optional dependencies go here, e.g. ("ember/ops/x.py", "scipy.special").
    ("ember/ops/slicing.py", "ember.ops.joining"): "part of the first KNOWN_CIRCLES entry",
}


def _modules():
    """{'ember.ops.views': path} for every module of the package."""
    found = {}
    for path in ROOT.rglob("*.py"):
        parts = path.relative_to(ROOT.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def _imported(name, path, node, modules):
    """The ember modules an Import/ImportFrom node names (a submodule where it is one)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names if alias.name in modules]
    if node.level:
        package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        package = package[:len(package) - node.level + 1]
        base = ".".join(package + ([node.module] if node.module else []))
    else:
        base = node.module or ""
    if base not in modules:
        return []
    return [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base
            for alias in node.names]


def _imports(name, path, modules):
    """(imported module, line, inside a function?) for every import in one file."""
    found = []

    def visit(node, in_function):
        for child in ast.iter_child_nodes(node):
            inside = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                       ast.Lambda))
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                found.extend((target, child.lineno, inside)
                             for target in _imported(name, path, child, modules))
            visit(child, inside)

    visit(ast.parse(path.read_text(), str(path)), False)
    return found


def _tensor_tie_start(path):
    """The line after which `_tensor.py` imports the op families (the deliberate tie)."""
    tree = ast.parse(path.read_text())
    return next(node.end_lineno for node in tree.body
                if isinstance(node, ast.ClassDef) and node.name == "Tensor")


def _graph():
    modules = _modules()
    tie = _tensor_tie_start(modules["ember._tensor"])
    edges, function_imports = {}, []
    for name, path in modules.items():
        targets = edges.setdefault(name, set())
        for target, line, in_function in _imports(name, path, modules):
            if name == "ember._tensor" and line > tie and not in_function:
                continue
            if target != name:
                targets.add(target)
            if in_function:
                function_imports.append((path.relative_to(ROOT.parent).as_posix(), line, target))
    return edges, function_imports


def _circles(edges):
    """The strongly connected components with more than one module."""
    reach = {}
    for start in edges:
        seen, stack = set(), [start]
        while stack:
            for target in edges.get(stack.pop(), ()):
                if target not in seen:
                    seen.add(target)
                    stack.append(target)
        reach[start] = seen
    circles = set()
    for module in edges:
        members = frozenset({module} | {other for other in reach[module]
                                        if module in reach[other]})
        if len(members) > 1:
            circles.add(members)
    return circles


def test_no_import_circles_but_the_tensor_ops_tie():
    circles = _circles(_graph()[0])
    new = [sorted(circle) for circle in circles - KNOWN_CIRCLES]
    assert not new, f"import circles (move the shared piece down a layer): {new}"
    gone = [sorted(circle) for circle in KNOWN_CIRCLES - circles]
    assert not gone, f"these circles are gone or changed; update KNOWN_CIRCLES: {gone}"


def test_the_tie_is_the_only_way_back_from_ops_to_tensor():
    """Without the imports at the end of _tensor.py, nothing under ops is reached from it."""
    edges = _graph()[0]
    seen, stack = set(), ["ember._tensor"]
    while stack:
        for target in edges[stack.pop()]:
            if target not in seen:
                seen.add(target)
                stack.append(target)
    assert not {m for m in seen if m.startswith("ember.ops.")}, sorted(seen)


def test_no_imports_inside_op_functions():
    found = [f"{path}:{line} imports {target}" for path, line, target in _graph()[1]
             if path.startswith("ember/ops/") and (path, target) not in FUNCTION_IMPORTS_ALLOWED]
    assert not found, "import at module level instead (hot path): " + "; ".join(found)


def test_the_checker_sees_a_circle_and_a_function_import():
    """The checker itself can fail: a made-up graph with a circle, and a lazy import."""
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == {
        frozenset({"a", "b", "c"})}
    source = "def f():\n    from . import views\n"
    path = ROOT / "ops" / "made_up.py"
    node = ast.parse(source).body[0].body[0]
    assert _imported("ember.ops.made_up", path, node, _modules()) == ["ember.ops.views"]
