"""Adam's update in one pass (see the package docstring): `optim._flat._run_block`, fused.

For each element, the same float32 (or float64) operations as the NumPy block kernel,
in the same order, each rounded to the parameter's precision: the first moment's
`lerp_` from the nearer end, `exp_avg_sq.mul_(beta2).addcmul_(grad, grad, 1 - beta2)`,
AMSGrad's running maximum (NumPy's `maximum`, NaN first), the denominator
`sqrt(v) / bias_correction2_sqrt + eps`, then `param (* decay) + (m * step) / denom`.
Every hyper-parameter arrives already in the parameter's precision, as NumPy rounds a
Python float that meets a float32 array. Thirteen passes over memory become one.
"""
import numba
import numpy as np

from ._common import OPTIONS

__all__ = ["adam_update"]


def _adam(m, v, vmax, grad, param, weight1, complement, beta2, weight2,
          bias_correction2_sqrt, eps, step_value, decay, maximize, amsgrad, near_start,
          decayed):
    for i in range(m.size):
        g = -grad[i] if maximize else grad[i]
        if near_start:               # lerp_(g, weight1): m + w (g - m), or g - (g - m)(1 - w)
            m_i = m[i] + (g - m[i]) * weight1
        else:
            m_i = g - (g - m[i]) * complement
        m[i] = m_i
        v_i = v[i] * beta2 + (g * weight2) * g
        v[i] = v_i
        if amsgrad:                  # np.maximum(vmax, v): the first NaN wins
            held = vmax[i]
            if not (held >= v_i) and held == held:
                held = v_i
            vmax[i] = held
            v_i = held
        denominator = np.sqrt(v_i) / bias_correction2_sqrt + eps
        p = param[i]
        if decayed:
            p = p * decay
        param[i] = p + (m_i * step_value) / denominator


_SIGNATURES = [f"void({t}[::1], {t}[::1], {t}[::1], {t}[::1], {t}[::1], {t}, {t}, {t}, {t}, "
               f"{t}, {t}, {t}, {t}, boolean, boolean, boolean, boolean)"
               for t in ("float32", "float64")]
adam_update = numba.njit(_SIGNATURES, **OPTIONS)(_adam)
