"""Pictures of a backward graph without Graphviz: SVG text (`draw_graph`) and a text tree
(`print_graph`).

Why our own layout: the graph is small and its shape simple (a DAG hanging from one
root), so a layered drawing -- each node one row below its deepest parent, rows ordered
once by their parents' positions -- reads well and needs no external program. The walk
is iterative, like the engine's, so a graph thousands of nodes deep is drawn, not
recursed into. Nodes are named as `grad_fn.name()` names them, without the C++
namespace, as PyTorch's pictures show them; a leaf's `AccumulateGrad` shows the leaf's
shape and, given a module or a dict of named parameters, its name.
"""
import sys
from xml.sax.saxutils import escape

from .graph import AccumulateGrad, _FREED, _Packed

__all__ = ["draw_graph", "print_graph"]

_CHAR_WIDTH = 7.2  # monospace at 12px
_LINE_HEIGHT = 15
_GAP_X, _GAP_Y = 24, 44
_COLORS = {"tensor": "#c8f0c8", "leaf": "#cfe2ff", "op": "#e8e8e8", "saved": "#ffe2b8"}


# ---------------------------------------------------------------- the graph as data
def _parameter_names(params):
    """{id(tensor): name} from a Module (named_parameters) or a dict of named tensors."""
    if params is None:
        return {}
    if hasattr(params, "named_parameters"):
        params = dict(params.named_parameters())
    return {id(tensor): name for name, tensor in dict(params).items()}


def _shape(tensor):
    return "(" + ", ".join(str(n) for n in tensor.shape) + ("," if tensor.dim() == 1 else "") \
        + ")"


def node_label(node, names):
    """The lines a node is drawn with: its PyTorch name, and for a leaf its name and shape."""
    lines = [node.name().rpartition("::")[2]]
    if isinstance(node, AccumulateGrad):
        variable = node.variable
        name = names.get(id(variable))
        lines.append((name + " " if name else "") + _shape(variable))
    return lines


def _saved_labels(node):
    """One label per tensor the node saved for backward (or one saying they were freed)."""
    saved = node._saved
    if saved is None:
        return []
    if saved is _FREED:
        return [["saved tensors", "freed by backward()"]]
    labels = []
    for entry in saved:
        if entry is None:
            continue
        if entry.__class__ is _Packed:
            labels.append(["saved tensor", "(packed by a hook)"])
            continue
        tensor, _, output_nr = entry
        kind = "saved output" if output_nr is not False else "saved tensor"
        labels.append([kind, f"{_shape(tensor)} {str(tensor.dtype).rpartition('.')[2]}"])
    return labels


def root_node(tensor):
    """The node a tensor's gradient enters the graph at (None for a tensor without one)."""
    if tensor.grad_fn is not None:
        return tensor.grad_fn
    if tensor.requires_grad:
        return tensor._grad_accumulator() if tensor._grad_accumulator is not None else None
    return None


def collect(tensor, params=None, show_saved=False):
    """The graph below `tensor` as (labels, kinds, edges): index 0 is the tensor itself.

    `edges` are (parent, child, dashed) index pairs in the direction gradients flow.
    """
    names = _parameter_names(params)
    labels = [["tensor " + _shape(tensor)]]
    if id(tensor) in names:
        labels[0][0] = names[id(tensor)] + " " + _shape(tensor)
    kinds = ["tensor"]
    edges = []
    start = root_node(tensor)
    if start is None:
        if tensor.requires_grad:  # a leaf whose AccumulateGrad is not built yet
            labels[0].append("leaf, requires_grad")
        return labels, kinds, edges
    index = {}
    stack = [start]
    order = []
    index[start] = 1
    labels.append(node_label(start, names))
    kinds.append("leaf" if isinstance(start, AccumulateGrad) else "op")
    edges.append((0, 1, False))
    while stack:
        node = stack.pop()
        order.append(node)
        here = index[node]
        for child, _ in node.next_functions:
            if child is None:
                continue
            if child not in index:
                index[child] = len(labels)
                labels.append(node_label(child, names))
                kinds.append("leaf" if isinstance(child, AccumulateGrad) else "op")
                stack.append(child)
            edges.append((here, index[child], False))
    if show_saved:
        for node in order:
            for label in _saved_labels(node):
                labels.append(label)
                kinds.append("saved")
                edges.append((index[node], len(labels) - 1, True))
    return labels, kinds, edges


# ---------------------------------------------------------------- layered layout
def _layers(count, edges):
    """Each node's row: one below its deepest parent (longest path from the root)."""
    children = [[] for _ in range(count)]
    indegree = [0] * count
    for parent, child, _ in edges:
        children[parent].append(child)
        indegree[child] += 1
    layer = [0] * count
    ready = [i for i in range(count) if indegree[i] == 0]
    while ready:  # Kahn's order: every parent is placed before its children
        node = ready.pop()
        for child in children[node]:
            layer[child] = max(layer[child], layer[node] + 1)
            indegree[child] -= 1
            if indegree[child] == 0:
                ready.append(child)
    return layer


def layout(labels, edges):
    """(x, y, width, height) of each node's box, and the picture's width and height."""
    count = len(labels)
    layer = _layers(count, edges)
    rows = {}
    for i in range(count):
        rows.setdefault(layer[i], []).append(i)
    parents = [[] for _ in range(count)]
    for parent, child, _ in edges:
        parents[child].append(parent)
    sizes = [(max(len(line) for line in label) * _CHAR_WIDTH + 16,
              len(label) * _LINE_HEIGHT + 10) for label in labels]
    centre = [0.0] * count
    boxes = [None] * count
    row_widths = {}
    for depth in sorted(rows):
        row = rows[depth]
        # order a row by where its parents stand (one barycentre sweep, top to bottom)
        row.sort(key=lambda i: sum(centre[p] for p in parents[i]) / len(parents[i])
                 if parents[i] else 0.0)
        x = 0.0
        for i in row:
            centre[i] = x + sizes[i][0] / 2
            x += sizes[i][0] + _GAP_X
        row_widths[depth] = x - _GAP_X
    width = max(row_widths.values()) + 2 * _GAP_X
    y = _GAP_X
    for depth in sorted(rows):
        shift = (width - row_widths[depth]) / 2
        height = max(sizes[i][1] for i in rows[depth])
        for i in rows[depth]:
            centre[i] += shift
            boxes[i] = (centre[i] - sizes[i][0] / 2, y, sizes[i][0], sizes[i][1])
        y += height + _GAP_Y
    return boxes, width, y - _GAP_Y + _GAP_X


def draw_graph(tensor, params=None, show_saved=False):
    """SVG text of the backward graph below `tensor`: gradients flow from the top down.

    `params` (a Module or a dict of named tensors) names the leaves; `show_saved` adds one
    box per tensor each node saved for backward. Write the text to a `.svg` file, or show it
    in a notebook with `IPython.display.SVG`.
    """
    labels, kinds, edges = collect(tensor, params, show_saved)
    boxes, width, height = layout(labels, edges)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" '
           f'height="{height:.0f}" viewBox="0 0 {width:.0f} {height:.0f}" '
           'font-family="monospace" font-size="12">',
           '<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" '
           'markerHeight="7" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#555"/>'
           '</marker></defs>']
    for parent, child, dashed in edges:
        px, py, pw, ph = boxes[parent]
        cx, cy, cw, _ = boxes[child]
        style = ' stroke-dasharray="4,3"' if dashed else ""
        out.append(f'<line x1="{px + pw / 2:.1f}" y1="{py + ph:.1f}" x2="{cx + cw / 2:.1f}" '
                   f'y2="{cy:.1f}" stroke="#555"{style} marker-end="url(#arrow)"/>')
    for label, kind, (x, y, w, h) in zip(labels, kinds, boxes):
        out.append(f'<g class="{kind}"><title>{escape(" ".join(label))}</title>')
        out.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h:.1f}" rx="4" '
                   f'fill="{_COLORS[kind]}" stroke="#333"/>')
        for n, line in enumerate(label):
            out.append(f'<text x="{x + w / 2:.1f}" y="{y + 17 + n * _LINE_HEIGHT:.1f}" '
                       f'text-anchor="middle">{escape(line)}</text>')
        out.append('</g>')
    out.append('</svg>')
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------- text tree
def tree_text(tensor, params=None, max_depth=None):
    """The graph below `tensor` as an indented tree; a node reached twice is shown once."""
    labels, _, edges = collect(tensor, params)
    children = [[] for _ in labels]
    for parent, child, _ in edges:
        children[parent].append(child)
    lines = [" ".join(labels[0])]
    seen = set()
    # (node, prefix for its children's lines, connector, depth), last child popped first
    stack = [(child, "", i == len(children[0]) - 1, 1)
             for i, child in reversed(list(enumerate(children[0])))]
    while stack:
        node, prefix, last, depth = stack.pop()
        text = "  ".join(labels[node])
        if node in seen and children[node]:
            text += "  (shown above)"
        lines.append(prefix + ("└─ " if last else "├─ ") + text)
        if node in seen:
            continue
        seen.add(node)
        below = prefix + ("   " if last else "│  ")
        if max_depth is not None and depth >= max_depth:
            if children[node]:
                lines.append(below + "└─ ...")
            continue
        kids = children[node]
        for i in range(len(kids) - 1, -1, -1):
            stack.append((kids[i], below, i == len(kids) - 1, depth + 1))
    return "\n".join(lines)


def print_graph(tensor, params=None, file=None):
    """Print the backward graph below `tensor` as a text tree (what `draw_graph` draws)."""
    print(tree_text(tensor, params), file=sys.stdout if file is None else file)
