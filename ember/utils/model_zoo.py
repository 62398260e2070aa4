"""``ember.utils.model_zoo``: PyTorch's older path to ``hub.load_state_dict_from_url``.

Examples:
    >>> from ember.utils import model_zoo
    >>> import ember.hub
    >>> model_zoo.load_url is ember.hub.load_state_dict_from_url
    True
"""

from ember.hub import load_state_dict_from_url as load_url

__all__ = ["load_url"]
