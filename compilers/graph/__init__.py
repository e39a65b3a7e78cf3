"""Workload graphs: the one operator-graph representation, and builders for standard models
(CNNs, encoders, decoder LLMs, recommendation models, text-to-image/video pipelines).

Build any standard workload by name with :func:`build_workload` (see :data:`WORKLOADS`),
import ONNX with :func:`from_onnx`, or compose layers with :class:`NetBuilder`; turn any
CNN graph into one training iteration with :func:`training_graph`.
"""

from .bert import albert_base, bert_base, minilm_l6, share_layer_weights
from .cnn import (
    RECURRENT_CELLS,
    NetBuilder,
    alexnet,
    conv2d,
    linear,
    pool2d,
    recurrent,
    resnet50,
    vgg16,
)
from .dlrm import (
    DLRM_PRESETS,
    DLRMConfig,
    DLRMSampleWork,
    dlrm_graph,
    dlrm_sample_work,
    get_dlrm,
)
from .fathom import FATHOM_WORKLOADS, fathom_workload
from .ir import (
    DTYPE_BYTES,
    OP_KINDS,
    TENSOR_ROLES,
    Operator,
    TensorSpec,
    WorkloadGraph,
    dtype_bytes,
    matmul,
)
from .onnx_import import SUPPORTED_ONNX_OPS, from_onnx
from .paradnn import PARADNN_SWEEPS, paradnn_model, paradnn_sweep
from .recsys import (
    RECSSD_MODELS,
    RECSYS_KINDS,
    RECSYS_MODELS,
    RecModelConfig,
    get_recsys,
    recsys_graph,
    recsys_sample_work,
)
from .registry import WORKLOADS, build_workload, workload_params
from .revnet import ReversibleBlock, parameter_counts, resnet_cifar, revnet_cifar
from .smaug_nets import SMAUG_NETWORKS
from .training import (
    DIFFERENTIABLE_KINDS,
    OPTIMIZERS,
    PHASES,
    TensorUse,
    TrainingGraph,
    training_graph,
)
from .transformer import (
    TRANSFORMER_PRESETS,
    TransformerConfig,
    get_transformer,
    transformer_graph,
)
from .tti import (
    TTI_MODELS,
    TTIPipeline,
    TTIStage,
    UNetConfig,
    attention_operator,
    tti_pipeline,
    unet_graph,
)

__all__ = [
    "DTYPE_BYTES", "OP_KINDS", "TENSOR_ROLES", "Operator", "TensorSpec", "WorkloadGraph",
    "dtype_bytes", "matmul",
    "TRANSFORMER_PRESETS", "TransformerConfig", "get_transformer", "transformer_graph",
    "NetBuilder", "conv2d", "pool2d", "linear", "recurrent", "RECURRENT_CELLS",
    "resnet50", "vgg16", "alexnet", "bert_base", "albert_base", "minilm_l6", "share_layer_weights",
    "RECSYS_KINDS", "RECSYS_MODELS", "RECSSD_MODELS", "RecModelConfig", "get_recsys", "recsys_graph",
    "recsys_sample_work",
    "DLRM_PRESETS", "DLRMConfig", "DLRMSampleWork", "dlrm_graph", "dlrm_sample_work", "get_dlrm",
    "FATHOM_WORKLOADS", "fathom_workload", "PARADNN_SWEEPS", "paradnn_model", "paradnn_sweep",
    "from_onnx", "SUPPORTED_ONNX_OPS", "WORKLOADS", "build_workload", "workload_params",
    "SMAUG_NETWORKS",
    "ReversibleBlock", "resnet_cifar", "revnet_cifar", "parameter_counts",
    "PHASES", "OPTIMIZERS", "DIFFERENTIABLE_KINDS", "TensorUse", "TrainingGraph",
    "training_graph",
    "TTI_MODELS", "TTIPipeline", "TTIStage", "UNetConfig", "attention_operator", "tti_pipeline",
    "unet_graph",
]
