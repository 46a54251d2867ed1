"""L-BFGS: the limited-memory quasi-Newton method (Nocedal & Wright, Numerical
Optimization, 2nd ed., Algorithms 7.4 and 7.5), optionally with a strong-Wolfe line search.

All parameters are handled as one flat vector. Each iteration turns the gradient into a
search direction with the two-loop recursion over the last `history_size` curvature
pairs (s = x_{k+1} - x_k, y = g_{k+1} - g_k, kept only where y.s > 1e-10), scaled by
gamma = y.s / y.y (eq. 7.20). The step length is `lr` (on the very first iteration
min(1, 1/|g|_1) * lr) or comes from `_wolfe.strong_wolfe`. One `step(closure)` runs up
to `max_iter` iterations and `max_eval` closure calls. Everything the next call needs
(the history, the last direction and step, the previous gradient and loss) lives in
the state of the first parameter, in PyTorch's layout, so checkpoints load both ways.

The dot products stay 0-dim tensors (as in PyTorch, so float32 runs round alike and a
checkpoint holds tensors where PyTorch's does); step lengths are numbers or tensors
depending on where they came from, again as in PyTorch.
"""
from ..autograd.grad_mode import state as grad_state
from ..ops.joining import cat
from . import _checks
from ._wolfe import strong_wolfe
from .optimizer import Optimizer, _get_value

__all__ = ["LBFGS"]


class LBFGS(Optimizer):
    """Implements L-BFGS. `step` needs a closure that re-evaluates the model and returns
    the loss; it is called several times per step.

    Args:
        params: the parameters (one group only: L-BFGS works on one flat vector).
        lr: learning rate (default: 1).
        max_iter: the most iterations per `step` (default: 20).
        max_eval: the most closure calls per `step` (default: max_iter * 5 // 4).
        tolerance_grad: stop when the largest gradient entry is at most this.
        tolerance_change: stop when the step or the loss change is below this.
        history_size: how many curvature pairs to remember (default: 100).
        line_search_fn: None (fixed step) or "strong_wolfe".
    """

    def __init__(self, params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7,
                 tolerance_change=1e-9, history_size=100, line_search_fn=None):
        _checks.check_lr(lr)
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        defaults = {"lr": lr, "max_iter": max_iter, "max_eval": max_eval,
                    "tolerance_grad": tolerance_grad, "tolerance_change": tolerance_change,
                    "history_size": history_size, "line_search_fn": line_search_fn}
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]

    # ------------------------------------------------------------ the flat vector
    def _flat_grad(self):
        """All gradients as one new vector (zeros for a parameter without one)."""
        pieces = [p.grad.reshape(-1) if p.grad is not None else p.new_zeros(p.numel())
                  for p in self._params]
        return cat(pieces, 0)

    def _move(self, step_length, direction):
        """x += step_length * direction, piece by piece into the parameters."""
        alpha = _get_value(step_length)
        offset = 0
        for p in self._params:
            n = p.numel()
            p.add_(direction[offset:offset + n].view_as(p), alpha=alpha)
            offset += n

    def _evaluate_at(self, closure, origin, step_length, direction):
        """Loss and flat gradient at origin + step_length * direction; then back to origin."""
        self._move(step_length, direction)
        loss = float(self._closure_loss(closure))
        grad = self._flat_grad()
        for p, saved in zip(self._params, origin):
            p.copy_(saved)
        return loss, grad

    # ------------------------------------------------------------ the step
    def step(self, closure):
        """Run up to `max_iter` L-BFGS iterations; returns the loss of the first closure call."""
        previous = grad_state.enabled
        grad_state.enabled = False
        try:
            return self._iterate(closure)
        finally:
            grad_state.enabled = previous

    def _iterate(self, closure):
        group = self.param_groups[0]
        lr, max_iter, max_eval = group["lr"], group["max_iter"], group["max_eval"]
        tolerance_grad, tolerance_change = group["tolerance_grad"], group["tolerance_change"]
        line_search_fn, history_size = group["line_search_fn"], group["history_size"]
        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)

        first_loss = self._closure_loss(closure)
        loss = float(first_loss)
        evals = 1
        state["func_evals"] += 1
        grad = self._flat_grad()
        if grad.abs().max() <= tolerance_grad:
            return first_loss  # already optimal

        direction, step_length = state.get("d"), state.get("t")
        old_dirs, old_stps, ro = state.get("old_dirs"), state.get("old_stps"), state.get("ro")
        gamma, prev_grad = state.get("H_diag"), state.get("prev_flat_grad")
        prev_loss = state.get("prev_loss")

        iteration = 0
        while iteration < max_iter:
            iteration += 1
            state["n_iter"] += 1
            if state["n_iter"] == 1:
                direction = grad.neg()
                old_dirs, old_stps, ro = [], [], []
                gamma = 1
            else:
                gamma = _remember(grad.sub(prev_grad), direction.mul(step_length), old_dirs,
                                  old_stps, ro, gamma, history_size)
                if "al" not in state:
                    state["al"] = [None] * history_size
                direction = _two_loop(grad, old_dirs, old_stps, ro, gamma, state["al"])
            if prev_grad is None:
                prev_grad = grad.clone()
            else:
                prev_grad.copy_(grad)
            prev_loss = loss

            if state["n_iter"] == 1:
                step_length = min(1.0, 1.0 / grad.abs().sum()) * lr
            else:
                step_length = lr
            slope = grad.dot(direction)
            if slope > -tolerance_change:
                break  # not a descent direction

            if line_search_fn is not None:
                if line_search_fn != "strong_wolfe":
                    raise RuntimeError("only 'strong_wolfe' is supported")
                origin = [p.clone() for p in self._params]
                loss, grad, step_length, used = strong_wolfe(
                    lambda x, t, d: self._evaluate_at(closure, x, t, d), origin, step_length,
                    direction, loss, grad, slope)
                self._move(step_length, direction)
                converged = grad.abs().max() <= tolerance_grad
            else:
                self._move(step_length, direction)
                used, converged = 0, False
                if iteration != max_iter:
                    # the last iteration's loss is not needed: the next step evaluates it
                    loss = float(self._closure_loss(closure))
                    grad = self._flat_grad()
                    converged = grad.abs().max() <= tolerance_grad
                    used = 1
            evals += used
            state["func_evals"] += used

            if (iteration == max_iter or evals >= max_eval or converged
                    or direction.mul(step_length).abs().max() <= tolerance_change
                    or abs(loss - prev_loss) < tolerance_change):
                break

        state["d"], state["t"] = direction, step_length
        state["old_dirs"], state["old_stps"], state["ro"] = old_dirs, old_stps, ro
        state["H_diag"], state["prev_flat_grad"], state["prev_loss"] = gamma, prev_grad, prev_loss
        return first_loss


def _remember(y, s, old_dirs, old_stps, ro, gamma, history_size):
    """Add the curvature pair (s, y) when y.s > 1e-10 (which keeps the implicit inverse
    Hessian positive definite), forgetting the oldest past `history_size`; returns the
    initial scaling gamma = y.s / y.y of the newest kept pair (eq. 7.20)."""
    ys = y.dot(s)
    if ys > 1e-10:
        if len(old_dirs) == history_size:
            del old_dirs[0], old_stps[0], ro[0]
        old_dirs.append(y)
        old_stps.append(s)
        ro.append(1.0 / ys)
        gamma = ys / y.dot(y)
    return gamma


def _two_loop(grad, old_dirs, old_stps, ro, gamma, alphas):
    """The two-loop recursion (Algorithm 7.4): -H grad from the stored pairs, newest to
    oldest and back. `alphas` is the state's scratch list of the first loop's factors."""
    q = grad.neg()
    for i in reversed(range(len(old_dirs))):
        alphas[i] = old_stps[i].dot(q) * ro[i]
        q.add_(old_dirs[i], alpha=-_get_value(alphas[i]))
    r = q.mul(gamma)
    for i in range(len(old_dirs)):
        beta = old_dirs[i].dot(r) * ro[i]
        r.add_(old_stps[i], alpha=_get_value(alphas[i] - beta))
    return r
