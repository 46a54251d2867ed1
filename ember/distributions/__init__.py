"""ember.distributions: probability distributions with sampling, densities and KL.

Mirrors torch.distributions. The base (`Distribution`, `ExponentialFamily`), the
`constraints`, the helpers in `utils` and the KL machinery (`kl_divergence`,
`register_kl`) sit under the distributions; each distribution is its own module built
on the public Tensor API, as user code would be, and exports its classes through
its `__all__`.
"""
from . import constraints
from .distribution import *  # noqa: F401,F403
from .exp_family import *  # noqa: F401,F403
from .kl import *  # noqa: F401,F403
from .bernoulli import *  # noqa: F401,F403
from .binomial import *  # noqa: F401,F403
from .categorical import *  # noqa: F401,F403
from .cauchy import *  # noqa: F401,F403
from .dirichlet import *  # noqa: F401,F403
from .exponential import *  # noqa: F401,F403
from .gamma import *  # noqa: F401,F403
from .geometric import *  # noqa: F401,F403
from .laplace import *  # noqa: F401,F403
from .multinomial import *  # noqa: F401,F403
from .normal import *  # noqa: F401,F403
from .one_hot_categorical import *  # noqa: F401,F403
from .poisson import *  # noqa: F401,F403
from .studentT import *  # noqa: F401,F403
from .uniform import *  # noqa: F401,F403
from . import _kl_pairs  # noqa: F401  (registers the closed-form KL pairs)

__all__ = ["Bernoulli", "Beta", "Binomial", "Categorical", "Cauchy", "Chi2", "Dirichlet",
           "Distribution", "Exponential", "ExponentialFamily", "Gamma", "Geometric", "Laplace",
           "Multinomial", "Normal", "OneHotCategorical", "OneHotCategoricalStraightThrough",
           "Poisson", "StudentT", "Uniform", "kl_divergence", "register_kl"]
from ._more import *  # noqa: F401,F403,E402  (distB: transforms and the composite distributions)
from . import _more  # noqa: E402

__all__ += _more.__all__

# surface11: the remaining distributions (each its own module, as in PyTorch) and their KL
from .continuous_bernoulli import ContinuousBernoulli  # noqa: E402
from .fishersnedecor import FisherSnedecor  # noqa: E402
from .generalized_pareto import GeneralizedPareto  # noqa: E402
from .inverse_gamma import InverseGamma  # noqa: E402
from .lkj_cholesky import LKJCholesky  # noqa: E402
from .negative_binomial import NegativeBinomial  # noqa: E402
from .pareto import Pareto  # noqa: E402
from .von_mises import VonMises  # noqa: E402
from .wishart import Wishart  # noqa: E402
from . import dirichlet as beta, gamma as chi2, kl_pairs_more2 as _kl_pairs_more2  # noqa: E402,F401
from . import weibull as kumaraswamy, log_normal as logistic_normal  # noqa: E402,F401

__all__ += ["ContinuousBernoulli", "FisherSnedecor", "GeneralizedPareto", "InverseGamma",
            "LKJCholesky", "NegativeBinomial", "Pareto", "VonMises", "Wishart"]
