"""Adam's moments for a whole parameter group in one flat buffer, updated block by block.

The per-parameter array kernels (`_kernels`) cost about 13 ufunc calls per parameter,
each a pass over memory on one core. PyTorch's single-tensor Adam runs each of its
ops on every core. Here the moment estimates of all the group's parameters are views
into one flat buffer each, made when the state is first filled; a step then walks
the buffer in blocks small enough to stay in a core's cache, gathers each block's
gradients, runs the same kernels in the same order on the block, and adds the
block's update into the parameters it covers. Blocks are shared out to the thread
pool (`ember._parallel`) by contiguous runs.

Every element sees exactly the arithmetic of `_adam_arrays` (elementwise kernels;
nothing is reduced), so the trajectory is bit for bit the per-parameter one. With numba
installed, a group of `COMPILED` elements or more skips the blocks: each parameter's
update is one compiled loop (`ember._compiled.optim_kernels`) doing the same operations,
the groups that add the L2 penalty to the gradient (non-decoupled weight decay) aside.

The layout is used only while it is intact: the same parameters in the same order,
each state tensor still the view made here (a loaded state dict, a parameter added
later, a gradient that went missing, a rebound `param.data` all fall back to the
per-parameter path), equal step counts, and every parameter passing `_kernels.fast`.
"""
import threading

from .. import _compiled, _parallel
from ..ops._common import wrap
from . import _kernels

__all__ = []

BLOCK = 1 << 16        # elements per block (a job): ~6 live float32 blocks fit a 2 MiB L2
PARALLEL = _parallel.THRESHOLD  # elements from which the blocks are shared out to the pool
# (the MLP's 270k-element Adam step took 397 us serial and 410-436 us on 2 threads)
COMPILED = _compiled.MIN_SIZE   # elements from which a group takes the compiled kernel,
# when numba is installed (ember._compiled: the same bits in one pass instead of thirteen)
_MOMENTS = ("exp_avg", "exp_avg_sq", "max_exp_avg_sq")


class FlatMoments:
    """The flat buffers of one parameter group and the views its state holds."""

    __slots__ = ("params", "datas", "buffers", "views", "pieces", "size", "xp", "flats")

    def __init__(self, params, amsgrad):
        first = params[0]._data
        self.xp = params[0]._device.xp
        self.params = list(params)
        self.datas = [p._data for p in params]
        self.size = sum(d.size for d in self.datas)
        count = 3 if amsgrad else 2
        self.buffers = [self.xp.zeros(self.size, dtype=first.dtype) for _ in range(count)]
        self.views, self.flats, offset = [], [], 0
        for data in self.datas:
            n = data.size
            self.flats.append([b[offset:offset + n] for b in self.buffers])
            self.views.append([flat.reshape(data.shape) for flat in self.flats[-1]])
            offset += n
        self.pieces = _blocks(self.datas)

    def fill(self, states):
        """First step: each state's moments become views of the flat buffers."""
        for param, state, views in zip(self.params, states, self.views):
            for key, view in zip(_MOMENTS, views):
                state[key] = wrap(view, param._device)

    def intact(self, params, grads, states, amsgrad):
        """Whether this step may use the flat layout (see the module docstring)."""
        if len(params) != len(self.params) or len(self.buffers) != (3 if amsgrad else 2):
            return False
        count = None
        for param, mine, data, grad, state, views in zip(params, self.params, self.datas,
                                                         grads, states, self.views):
            if param is not mine or param._data is not data or not _kernels.fast(param, grad):
                return False
            for key, view in zip(_MOMENTS, views):
                held = state.get(key)
                if held is None or held._data is not view or held._extras is not None:
                    return False
            step_t = state.get("step")
            if step_t is None or step_t._data.ndim != 0 or step_t.device.type != "cpu":
                return False
            if count is None:
                count = float(step_t._data)
            elif float(step_t._data) != count:
                return False
        return True


def _blocks(datas):
    """[(start, stop, [(parameter index, lo, hi), ...])] covering the flat buffer."""
    bounds, offset = [], 0
    for i, data in enumerate(datas):
        bounds.append((offset, offset + data.size, i))
        offset += data.size
    blocks = []
    for start in range(0, offset, BLOCK):
        stop = min(start + BLOCK, offset)
        pieces = [(i, max(start, a) - a, min(stop, b) - a) for a, b, i in bounds
                  if a < stop and b > start]
        blocks.append((start, stop, pieces))
    return blocks


def new(params, states, amsgrad):
    """Flat moments for `params` when all of them start from empty state and can use
    the array kernels; None otherwise."""
    if not params or any(states):
        return None
    first = params[0]._data
    for p in params:
        data = p._data
        if (p.grad is None or not _kernels.fast(p, p.grad) or data.dtype != first.dtype
                or not data.flags.c_contiguous or p._device is not params[0]._device
                or p._device.xp.__name__ != "numpy"):
            return None
    return FlatMoments(params, amsgrad)


def step(flat, params, grads, states, beta1, beta2, lr, weight_decay, eps, maximize,
         decoupled_weight_decay, amsgrad):
    """One Adam step of the group over the flat buffers (the caller checked `intact`)."""
    count = [_kernels.step_(s["step"]) for s in states][0]  # equal, as `intact` checked
    xp = flat.xp
    dtype = flat.buffers[0].dtype
    scalars = (1 - beta1, beta2, 1 - beta2, (1 - beta2 ** count) ** 0.5, eps,
               -(lr / (1 - beta1 ** count)), maximize,
               0 if decoupled_weight_decay else weight_decay,
               1 - lr * weight_decay if weight_decay != 0 and decoupled_weight_decay else None)
    sources = [g._data.reshape(-1) for g in grads]
    targets = [d.reshape(-1) for d in flat.datas]
    if flat.size >= COMPILED and (weight_decay == 0 or decoupled_weight_decay):
        kernels = _compiled.load("optim_kernels")
        if kernels is not None:
            _compiled_step(kernels.adam_update, flat, sources, targets, scalars, amsgrad)
            _bump(params, states, weight_decay, decoupled_weight_decay, amsgrad)
            return
    shared = (xp, dtype, flat.buffers, sources, targets, scalars)
    jobs = [(_run_block, block + shared, {}) for block in flat.pieces]
    _parallel.run(jobs, None if flat.size >= PARALLEL else 0)
    _bump(params, states, weight_decay, decoupled_weight_decay, amsgrad)


def _compiled_step(adam_update, flat, sources, targets, scalars, amsgrad):
    """The update of each parameter in one compiled pass (`_run_block`'s arithmetic, with
    every scalar rounded to the parameters' precision as NumPy rounds it there)."""
    (weight1, beta2, weight2, bias_correction2_sqrt, eps, step_value, maximize, _,
     decay) = scalars
    real = flat.buffers[0].dtype.type
    weight1 = real(weight1)
    numbers = (weight1, real(1) - weight1, real(beta2), real(weight2),
               real(bias_correction2_sqrt), real(eps), real(step_value),
               real(1 if decay is None else decay), bool(maximize), amsgrad,
               bool(abs(weight1) < 0.5), decay is not None)
    for buffers, grad, param in zip(flat.flats, sources, targets):
        if grad.strides[0] != grad.itemsize:   # a strided gradient: read it contiguous
            grad = grad.copy()
        adam_update(buffers[0], buffers[1], buffers[-1], grad, param, *numbers)


def _bump(params, states, weight_decay, decoupled_weight_decay, amsgrad):
    """The version counts the per-parameter path leaves: one per in-place op."""
    for param, state in zip(params, states):
        if weight_decay != 0 and decoupled_weight_decay:
            _kernels.bump(param)
        _kernels.bump(state["exp_avg"], state["exp_avg_sq"], state["exp_avg_sq"], param)
        if amsgrad:
            _kernels.bump(state["max_exp_avg_sq"])


_scratch = threading.local()


def _scratch_for(xp, dtype):
    """This thread's three block-sized scratch arrays (kept between steps)."""
    arrays = getattr(_scratch, "arrays", None)
    if arrays is None or arrays[0].dtype != dtype or arrays[0].size < BLOCK:
        arrays = _scratch.arrays = [xp.empty(BLOCK, dtype=dtype) for _ in range(3)]
    return arrays


def _run_block(start, stop, pieces, xp, dtype, buffers, sources, targets, scalars):
    """The whole update on one block of the flat buffers, with this thread's scratch."""
    (weight1, beta2, weight2, bias_correction2_sqrt, eps, step_value, maximize,
     weight_decay, decay) = scalars
    g_all, tmp_all, denom_all = _scratch_for(xp, dtype)
    n = stop - start
    g, tmp, denom = g_all[:n], tmp_all[:n], denom_all[:n]
    m = buffers[0][start:stop]
    v = buffers[1][start:stop]
    if len(pieces) == 1 and not maximize and weight_decay == 0:
        i, lo, hi = pieces[0]
        g = sources[i][lo:hi]   # read only: no need to gather
    else:
        at = 0
        for i, lo, hi in pieces:
            g[at:at + hi - lo] = sources[i][lo:hi]
            at += hi - lo
    if maximize:
        xp.negative(g, out=g)
    if weight_decay != 0:  # grad.add(param, alpha=weight_decay): (wd * param) + grad
        at = 0
        for i, lo, hi in pieces:
            n = hi - lo
            if targets[i].size <= _kernels.FUSED_LIMIT:   # rounded once, as _kernels.add
                g[at:at + n] = _kernels.add(xp, g[at:at + n], targets[i][lo:hi], weight_decay)
            else:
                xp.multiply(targets[i][lo:hi], weight_decay, out=tmp[at:at + n])
                xp.add(tmp[at:at + n], g[at:at + n], out=g[at:at + n])
            at += n
    _kernels.lerp_(xp, m, g, weight1, tmp)
    v *= beta2
    _kernels.addcmul_(xp, v, g, g, weight2, tmp)
    if len(buffers) == 3:
        xp.maximum(buffers[2][start:stop], v, out=buffers[2][start:stop])
        v = buffers[2][start:stop]
    xp.sqrt(v, out=denom)
    denom /= bias_correction2_sqrt
    denom += eps
    xp.multiply(m, step_value, out=tmp)
    tmp /= denom
    at = 0
    for i, lo, hi in pieces:
        target = targets[i][lo:hi]
        if decay is not None:
            target *= decay
        target += tmp[at:at + hi - lo]
        at += hi - lo
