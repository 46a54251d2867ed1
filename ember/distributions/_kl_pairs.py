"""Closed-form KL divergences between the distributions of this package (part A).

Each formula is derived from the two densities; the registrations run when the package
is imported (ember/distributions/__init__.py imports this module last).
"""
from .kl import register_kl
from .normal import Normal


@register_kl(Normal, Normal)
def _normal_normal(p, q):
    # 1/2 [ (s_p/s_q)^2 + ((m_p - m_q)/s_q)^2 - 1 - log (s_p/s_q)^2 ]
    variance_ratio = (p.scale / q.scale).pow(2)
    shift = ((p.loc - q.loc) / q.scale).pow(2)
    return 0.5 * (variance_ratio + shift - 1 - variance_ratio.log())
