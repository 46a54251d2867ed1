"""ember.func: composable function transforms (torch.func).

grad, vjp, jvp and the Jacobians run on the reverse-mode engine (`_transforms`);
vmap loops over the mapped dimension (`_vmap`); functional_call runs a module with
swapped parameters (nn.utils.stateless's mechanism, without its deprecation warning).
"""
from ._functional_call import functional_call
from ._transforms import grad, grad_and_value, hessian, jacfwd, jacrev, jvp, vjp
from ._vmap import vmap

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian",
           "functional_call", "vmap"]
