"""torch.special: special functions under their scipy-style names.

A namespace of doors: the functions live in ember/ops/special.py (and the pointwise
and reduction families for the ones PyTorch shares with the top level).
"""
from .ops.nn_ops import log_softmax, softmax
from .ops.pointwise import erf, erfc, erfinv, exp2, expm1, log1p, logit, round, xlogy
from .ops.reduction import logsumexp
from .ops.special import (digamma, i0, lgamma as gammaln, mvlgamma as multigammaln, polygamma,
                          sinc, special_bessel_j0 as bessel_j0, special_bessel_j1 as bessel_j1,
                          special_entr as entr, special_erfcx as erfcx, special_expit as expit,
                          special_gammainc as gammainc, special_gammaincc as gammaincc,
                          special_i0e as i0e, special_i1 as i1, special_i1e as i1e,
                          special_log_ndtr as log_ndtr, special_ndtr as ndtr,
                          special_ndtri as ndtri, special_xlog1py as xlog1py,
                          special_zeta as zeta)

from .ops import _out

psi = digamma

__all__ = ["bessel_j0", "bessel_j1", "digamma", "entr", "erf", "erfc", "erfcx", "erfinv",
           "exp2", "expit", "expm1", "gammainc", "gammaincc", "gammaln", "i0", "i0e", "i1",
           "i1e", "log1p", "log_ndtr", "log_softmax", "logit", "logsumexp", "multigammaln",
           "ndtr", "ndtri", "polygamma", "psi", "round", "sinc", "softmax", "xlog1py", "xlogy",
           "zeta"]

_out.wire_special(globals())  # out= as PyTorch takes it
del _out
