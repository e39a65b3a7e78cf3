"""ParaDnn's four platforms as rooflines: datasheet peaks per data type and bandwidth."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from ....errors import ConfigError

__all__ = ["Platform", "PLATFORMS", "FAMILIES"]

FAMILIES: tuple[str, ...] = ("fc", "cnn", "rnn")

_NOTES = ("paper notes /work/shared/papers/recsys-characterization-ml-studies.md §5, "
          "platform table marked [R] (recollected from the paper, not verified here)")


@dataclass(frozen=True, kw_only=True)
class Platform:
    """One benchmarked platform's roofline: peak FLOP/s per data type and memory bandwidth.

    ``dtype_by_family`` is the data type ParaDnn's run scripts use on this platform for
    each family (TPU bf16; GPU fp32 for FC, fp16 for CNN and RNN; CPU fp32).
    """

    name: str
    peak_flops_per_s: Mapping[str, float]
    mem_bw_bytes_per_s: float
    dtype_by_family: Mapping[str, str]
    source: str

    def __post_init__(self) -> None:
        if not (self.mem_bw_bytes_per_s > 0 and math.isfinite(self.mem_bw_bytes_per_s)):
            raise ConfigError(f"must be a finite number > 0, not {self.mem_bw_bytes_per_s!r}",
                              field="mem_bw_bytes_per_s")
        for fam in FAMILIES:
            dt = self.dtype_by_family.get(fam)
            if dt not in self.peak_flops_per_s:
                raise ConfigError(f"platform '{self.name}' has no peak for family {fam}'s "
                                  f"dtype {dt!r}", field="dtype_by_family",
                                  allowed=sorted(self.peak_flops_per_s))

    def peak(self, family: str) -> float:
        """Peak FLOP/s for ``family``'s data type on this platform."""
        try:
            return self.peak_flops_per_s[self.dtype_by_family[family]]
        except KeyError:
            raise ConfigError(f"unknown ParaDnn family '{family}'", field="family",
                              allowed=list(FAMILIES)) from None

    def ridge_ai(self, family: str) -> float:
        """The arithmetic intensity (FLOP/byte) where the roofline turns flat."""
        return self.peak(family) / self.mem_bw_bytes_per_s


_TPU = {"fc": "bf16", "cnn": "bf16", "rnn": "bf16"}
#: The paper's four platforms (peaks and bandwidths from the notes' table, see ``source``).
PLATFORMS: tuple[Platform, ...] = (
    Platform(name="tpu-v2", peak_flops_per_s={"bf16": 180e12}, mem_bw_bytes_per_s=2400e9,
             dtype_by_family=_TPU, source=f"Cloud TPU v2 board, 8 cores; {_NOTES}"),
    Platform(name="tpu-v3", peak_flops_per_s={"bf16": 420e12}, mem_bw_bytes_per_s=3600e9,
             dtype_by_family=_TPU, source=f"Cloud TPU v3 board, 8 cores; {_NOTES}"),
    Platform(name="v100", peak_flops_per_s={"fp16": 125e12, "fp32": 15.7e12},
             mem_bw_bytes_per_s=900e9,
             dtype_by_family={"fc": "fp32", "cnn": "fp16", "rnn": "fp16"},
             source=f"NVIDIA V100 (TensorCore fp16 / fp32); {_NOTES}"),
    # "~2 TFLOPS" and "~120 GB/s" are approximate in the notes themselves: assumed values.
    Platform(name="skylake", peak_flops_per_s={"fp32": 2e12}, mem_bw_bytes_per_s=120e9,
             dtype_by_family={"fc": "fp32", "cnn": "fp32", "rnn": "fp32"},
             source=f"2-socket Xeon Skylake, AVX-512, ~2 TFLOPS and ~120 GB/s (assumed "
                    f"approximate); {_NOTES}"),
)
