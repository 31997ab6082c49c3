"""Old import path of :mod:`debiasrag.counterfactual.gender_swap` (gender-swap augmentation), kept working."""

from debiasrag.counterfactual.gender_swap import *  # noqa: F403
from debiasrag.counterfactual.gender_swap import __all__ as __all__
