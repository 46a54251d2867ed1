"""ember.autograd: the graph, the engine, grad modes and the user-facing API."""
from .api import backward, grad
from .grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from .graph import Node
from .gradcheck import GradcheckError, gradcheck, gradgradcheck

__all__ = ["backward", "grad", "enable_grad", "is_grad_enabled", "no_grad",
           "set_grad_enabled", "Node", "gradcheck", "gradgradcheck", "GradcheckError"]
