"""Old import path of :mod:`debiasrag.counterfactual.bias_score` (sentence bias score), kept working."""

from debiasrag.counterfactual.bias_score import *  # noqa: F403
from debiasrag.counterfactual.bias_score import __all__ as __all__
