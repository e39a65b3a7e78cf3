"""Every standard workload by name: ``build_workload("resnet50", batch=1)``.

Names: the CNNs (``resnet50``, ``vgg16``, ``alexnet``, the CIFAR ``resnet-cifar`` and its
reversible counterpart ``revnet-cifar``), the eight ``fathom-*`` workloads,
``paradnn-fc`` / ``paradnn-cnn`` / ``paradnn-rnn``, the encoders (``bert-base``,
``albert-base``, ``minilm-l6``), every decoder preset of
:data:`~archsim.compilers.graph.transformer.TRANSFORMER_PRESETS` (``llama-7b``,
``gpt3-175b``...), built by :func:`transformer_graph` as a prefill of ``new_tokens``, and
every DLRM preset of :data:`~archsim.compilers.graph.dlrm.DLRM_PRESETS` (``dlrm-mlperf``...)
and the eight DeepRecSys models of :data:`~archsim.compilers.graph.recsys.RECSYS_MODELS`
(``dlrm-rmc1``, ``dlrm-rmc2``, ``dlrm-rmc3``, ``ncf``, ``wnd``, ``mt-wnd``, ``din``, ``dien``),
and the TTI/TTV components of :mod:`.tti` (``sd-v1-unet``, ``sd-vae-decoder``,
``make-a-video-unet``, ``muse-3b-base``, ``parti-20b-decode``; whole pipelines with their
step counts are :func:`~archsim.compilers.graph.tti.tti_pipeline`), and SMAUG's eight
evaluation networks of :data:`~archsim.compilers.graph.smaug_nets.SMAUG_NETWORKS`
(``smaug-minerva``, ``smaug-lenet5``, ``smaug-cnn10``, ``smaug-vgg``, ``smaug-elu16``,
``smaug-elu24``, ``smaug-resnet50``, ``smaug-lstm``).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ...errors import ConfigError
from .bert import albert_base, bert_base, minilm_l6
from .cnn import alexnet, resnet50, vgg16
from .dlrm import DLRM_PRESETS, dlrm_graph, get_dlrm
from .fathom import FATHOM_WORKLOADS
from .ir import WorkloadGraph
from .paradnn import paradnn_cnn, paradnn_fc, paradnn_rnn
from .recsys import RECSYS_MODELS, get_recsys, recsys_graph
from .revnet import resnet_cifar, revnet_cifar
from .smaug_nets import SMAUG_NETWORKS
from .transformer import TRANSFORMER_PRESETS, get_transformer, transformer_graph
from .tti import (
    MAKE_A_VIDEO_UNET,
    MUSE_BASE,
    PARTI_DECODER,
    SD_UNET,
    SD_VAE_DECODER,
    token_transformer_graph,
    unet_graph,
    vae_decoder_graph,
)

__all__ = ["WorkloadEntry", "WORKLOADS", "build_workload", "workload_params"]


@dataclass(frozen=True)
class WorkloadEntry:
    """A named workload: its builder, one-line description and family."""

    name: str
    builder: Callable[..., WorkloadGraph]
    description: str
    family: str


def _decoder(preset: str) -> Callable[..., WorkloadGraph]:
    def build(batch: int = 1, *, new_tokens: int = 128, context_len: int | None = None,
              dtype: str = "fp16", include_lm_head: bool = True) -> WorkloadGraph:
        return transformer_graph(get_transformer(preset), batch=batch, new_tokens=new_tokens,
                                 context_len=context_len, dtype=dtype,
                                 include_lm_head=include_lm_head)
    build.__name__ = f"build_{preset.replace('-', '_')}"
    build.__doc__ = f"{preset}: one forward pass of ``new_tokens`` tokens per sequence."
    return build


def _dlrm(preset: str) -> Callable[..., WorkloadGraph]:
    def build(batch: int = 1, *, dtype: str = "fp32") -> WorkloadGraph:
        return dlrm_graph(get_dlrm(preset), batch=batch, dtype=dtype)
    build.__name__ = f"build_{preset.replace('-', '_')}"
    build.__doc__ = f"{preset}: one forward pass of ``batch`` samples."
    return build


def _recsys(name: str) -> Callable[..., WorkloadGraph]:
    def build(batch: int = 1, *, dtype: str = "fp32") -> WorkloadGraph:
        return recsys_graph(get_recsys(name), batch=batch, dtype=dtype)
    build.__name__ = f"build_{name.lower().replace('-', '_')}"
    build.__doc__ = f"{name} (DeepRecSys): one forward pass of ``batch`` samples."
    return build


def sd_v1_unet(batch: int = 1, *, image_size: int = 512, dtype: str = "fp16") -> WorkloadGraph:
    """Stable Diffusion v1 U-Net: one denoising step on the ``image_size / 8`` latent."""
    return unet_graph(SD_UNET, batch=batch, height=image_size // 8, width=image_size // 8,
                      text_len=77, dtype=dtype)


def sd_vae_decoder(batch: int = 1, *, image_size: int = 512,
                   dtype: str = "fp16") -> WorkloadGraph:
    """Stable Diffusion's KL-f8 VAE decoder to an ``image_size`` image."""
    return vae_decoder_graph(SD_VAE_DECODER, batch=batch, height=image_size // 8,
                             width=image_size // 8, dtype=dtype)


def make_a_video_unet(batch: int = 1, *, frames: int = 16, size: int = 64,
                      dtype: str = "fp16") -> WorkloadGraph:
    """Make-A-Video-style pseudo-3D U-Net (assumed layout): one step over ``frames``."""
    return unet_graph(MAKE_A_VIDEO_UNET, batch=batch, height=size, width=size, text_len=77,
                      frames=frames, dtype=dtype)


def muse_base(batch: int = 1, *, dtype: str = "fp16") -> WorkloadGraph:
    """Muse-3B base transformer (recollected layout): one pass over 16 x 16 tokens."""
    return token_transformer_graph(MUSE_BASE, batch=batch, new_tokens=256, context_len=256,
                                   text_len=128, dtype=dtype)


def parti_decode(batch: int = 1, *, context_len: int = 512,
                 dtype: str = "fp16") -> WorkloadGraph:
    """Parti-20B decoder (recollected layout): one decode step at ``context_len``."""
    return token_transformer_graph(PARTI_DECODER, batch=batch, new_tokens=1,
                                   context_len=context_len, text_len=128, dtype=dtype)


def _entries() -> dict[str, WorkloadEntry]:
    out = [
        WorkloadEntry("resnet50", resnet50, "ResNet-50 (torchvision), 224x224", "cnn"),
        WorkloadEntry("vgg16", vgg16, "VGG-16 (torchvision), 224x224", "cnn"),
        WorkloadEntry("alexnet", alexnet, "AlexNet (torchvision), 224x224", "cnn"),
        WorkloadEntry("resnet-cifar", resnet_cifar,
                      "He et al. CIFAR ResNet (ResNet-20 by default), 32x32", "cnn"),
        WorkloadEntry("revnet-cifar", revnet_cifar,
                      "Gomez et al. RevNet on the CIFAR ResNet stages (reversible blocks)",
                      "cnn"),
        WorkloadEntry("paradnn-fc", paradnn_fc, "ParaDnn fully connected generator", "paradnn"),
        WorkloadEntry("paradnn-cnn", paradnn_cnn, "ParaDnn residual/bottleneck CNN generator",
                      "paradnn"),
        WorkloadEntry("paradnn-rnn", paradnn_rnn, "ParaDnn RNN/LSTM/GRU generator", "paradnn"),
        WorkloadEntry("bert-base", bert_base, "BERT-base encoder", "encoder"),
        WorkloadEntry("albert-base", albert_base, "ALBERT-base encoder (shared layers)",
                      "encoder"),
        WorkloadEntry("minilm-l6", minilm_l6, "MiniLM-L6 encoder (all-MiniLM-L6-v2)",
                      "encoder"),
        WorkloadEntry("sd-v1-unet", sd_v1_unet, "Stable Diffusion v1 U-Net, one step", "tti"),
        WorkloadEntry("sd-vae-decoder", sd_vae_decoder, "Stable Diffusion KL-f8 VAE decoder",
                      "tti"),
        WorkloadEntry("make-a-video-unet", make_a_video_unet,
                      "pseudo-3D U-Net with temporal attention (assumed layout), one step",
                      "tti"),
        WorkloadEntry("muse-3b-base", muse_base, "Muse-3B base transformer, one pass", "tti"),
        WorkloadEntry("parti-20b-decode", parti_decode, "Parti-20B decoder, one decode step",
                      "tti"),
    ]
    for key, builder in SMAUG_NETWORKS.items():
        doc = (builder.__doc__ or "").strip().splitlines()[0].rstrip(".:")
        out.append(WorkloadEntry(key, builder, f"{doc} (SMAUG's experiments repository)",
                                 "smaug"))
    for key, builder in FATHOM_WORKLOADS.items():
        doc = (builder.__doc__ or "").strip().splitlines()[0].rstrip(".")
        out.append(WorkloadEntry(f"fathom-{key}", builder, f"Fathom: {doc}", "fathom"))
    for preset, cfg in TRANSFORMER_PRESETS.items():
        if cfg.decoder:
            out.append(WorkloadEntry(preset, _decoder(preset), f"{preset} ({cfg.source})",
                                     "decoder"))
    for preset, dcfg in DLRM_PRESETS.items():
        out.append(WorkloadEntry(preset, _dlrm(preset), f"{preset} ({dcfg.source})",
                                 "recommendation"))
    for rname, rcfg in RECSYS_MODELS.items():
        out.append(WorkloadEntry(rcfg.workload, _recsys(rname), f"{rname} ({rcfg.source})",
                                 "recommendation"))
    return {e.name: e for e in out}


#: Every workload by name.
WORKLOADS: dict[str, WorkloadEntry] = _entries()


def workload_params(name: str) -> dict[str, Any]:
    """The keyword parameters ``name``'s builder accepts, with their defaults."""
    entry = _entry(name)
    return {p.name: p.default for p in inspect.signature(entry.builder).parameters.values()
            if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}


def _entry(name: str) -> WorkloadEntry:
    try:
        return WORKLOADS[name.lower()]
    except (KeyError, AttributeError):
        raise ConfigError(f"unknown workload '{name}'", field="workload",
                          allowed=sorted(WORKLOADS)) from None


def build_workload(name: str, **params: Any) -> WorkloadGraph:
    """Build the workload ``name`` with builder keyword ``params`` (e.g. ``batch=4``).

    An unknown name or parameter is a :class:`ConfigError` listing the allowed values.
    """
    entry = _entry(name)
    allowed = workload_params(entry.name)
    for key in params:
        if key not in allowed:
            raise ConfigError(f"workload '{entry.name}' has no parameter '{key}'",
                              field=key, allowed=sorted(allowed))
    return entry.builder(**params)
