"""Loading a state dict into a module tree (``Module.load_state_dict``), as PyTorch does.

Traversal is pre-order; each module sees only the keys under its prefix.
Missing keys are listed in model order and unexpected keys in state-dict order;
with ``strict`` either kind raises one RuntimeError that lists all problems.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ember.autograd.grad_mode import no_grad
from ember.core.tensor import Tensor

if TYPE_CHECKING:
    from ember.nn.modules.module import Module

__all__ = ["load", "load_local"]


def load_local(
    mod: Module,
    state_dict: Mapping[str, Any],
    prefix: str,
    strict: bool,
    missing_keys: list[str],
    unexpected_keys: list[str],
    error_msgs: list[str],
    assign: bool,
) -> None:
    from ember.nn.parameter import Parameter

    local: dict[str, Any] = {k: v for k, v in mod._parameters.items() if v is not None}
    for k, v in mod._buffers.items():
        if v is not None and k not in mod._non_persistent_buffers_set:
            local[k] = v
    for name, param in local.items():
        key = prefix + name
        if key not in state_dict:
            if strict:
                missing_keys.append(key)
            continue
        value = state_dict[key]
        if not isinstance(value, Tensor):
            error_msgs.append(
                f'While copying the parameter named "{key}", expected torch.Tensor or '
                f"Tensor-like object from checkpoint but received {type(value)}"
            )
            continue
        if value.shape != param.shape:
            error_msgs.append(
                f"size mismatch for {key}: copying a param with shape {value.shape} from "
                f"checkpoint, the shape in current model is {param.shape}."
            )
            continue
        try:
            with no_grad():
                if assign:
                    if isinstance(param, Parameter):
                        setattr(mod, name, Parameter(value.detach(), param.requires_grad))
                    else:
                        setattr(mod, name, value)
                else:
                    param.copy_(value)
        except Exception as ex:  # noqa: BLE001 - reported like PyTorch, with the args
            error_msgs.append(
                f'While copying the parameter named "{key}", whose dimensions in the model are '
                f"{param.size()} and whose dimensions in the checkpoint are {value.size()}, an "
                f"exception occurred : {ex.args}."
            )
    if strict:
        for key in state_dict:
            if key.startswith(prefix):
                first = key[len(prefix) :].split(".", 1)[0]
                if first not in mod._modules and first not in local:
                    unexpected_keys.append(key)


def load(
    root: Module, state_dict: Mapping[str, Any], strict: bool, assign: bool
) -> tuple[list[str], list[str]]:
    if not isinstance(state_dict, Mapping):
        raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
    missing: list[str] = []
    unexpected: list[str] = []
    errors: list[str] = []
    metadata = getattr(state_dict, "_metadata", None) or {}

    def walk(mod: Module, sd: Mapping[str, Any], prefix: str) -> None:
        local_meta = metadata.get(prefix[:-1], {})
        mod._load_from_state_dict(sd, prefix, local_meta, True, missing, unexpected, errors, assign)
        for name, child in mod._modules.items():
            if child is not None:
                cp = prefix + name + "."
                walk(child, {k: v for k, v in sd.items() if k.startswith(cp)}, cp)

    walk(root, state_dict, "")
    if strict:
        if unexpected:
            errors.insert(
                0,
                "Unexpected key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in unexpected)
                ),
            )
        if missing:
            errors.insert(
                0,
                "Missing key(s) in state_dict: {}. ".format(", ".join(f'"{k}"' for k in missing)),
            )
    if errors:
        raise RuntimeError(
            "Error(s) in loading state_dict for {}:\n\t{}".format(
                type(root).__name__, "\n\t".join(errors)
            )
        )
    return missing, unexpected
