"""``archsim serve``: simulate LLM serving with a KV-cache memory policy."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ...compilers.graph.transformer import TRANSFORMER_PRESETS
from ...hw.models.gpu import GPU_SPECS
from ..serving.policies import POLICY_NAMES
from ..serving.requests import DATASETS
from .common import check_number, choices

__all__ = ["register", "GPUName", "PolicyName", "DatasetName", "ArrivalProcess",
           "MAX_REQUESTS", "MAX_RATE_PER_S"]

#: Requests one run may simulate: the engine holds per-request arrays in memory, and 10M
#: requests already take about 10 minutes of CPU (100k take ~5 s, bench/serving_speed.py).
MAX_REQUESTS = 10_000_000
#: Arrival rates above this are not a serving load but an offline batch (use --offline).
MAX_RATE_PER_S = 1e6

# Choices built from the data, so a new GPU, policy or data set shows up here by itself.
if TYPE_CHECKING:  # members of these StrEnums are str (see .common)
    GPUName = str
    PolicyName = str
    DatasetName = str
else:
    GPUName = choices("GPUName", GPU_SPECS)
    PolicyName = choices("PolicyName", (*POLICY_NAMES, "s3-exact"))
    DatasetName = choices("DatasetName", DATASETS)


class ArrivalProcess(StrEnum):
    poisson = "poisson"
    bursty = "bursty"


_DECODERS = ", ".join(sorted(name for name, cfg in TRANSFORMER_PRESETS.items() if cfg.decoder))
#: Draw a progress bar only for runs long enough to need one.
_PROGRESS_MIN_REQUESTS = 20000


def register(app: typer.Typer) -> None:
    @app.command("serve")
    def serve(
        model: Annotated[str, typer.Option(help=f"Decoder preset: {_DECODERS}.")] = "llama-13b",
        gpu: Annotated[GPUName, typer.Option(help="GPU datasheet.")] = GPUName("a100-80gb"),
        policy: Annotated[PolicyName, typer.Option(help="Scheduling and KV-cache policy.")] = PolicyName("s3"),
        rate: Annotated[float, typer.Option(help="Mean arrival rate (requests/s).")] = 5.0,
        requests: Annotated[int, typer.Option(
            min=1, max=MAX_REQUESTS, help="Number of requests to simulate.")] = 10000,
        tp: Annotated[int, typer.Option(help="Tensor-parallel GPUs.")] = 1,
        seed: Annotated[int, typer.Option(help="Seed for arrivals, lengths and the predictor.")] = 0,
        out: Annotated[Path | None, typer.Option("--out", "-o",
                                                 help="Write JSON/CSV and plots here.")] = None,
        trace: Annotated[Path | None, typer.Option(
            help="CSV trace: arrival_s,prompt_tokens,output_tokens.")] = None,
        dataset: Annotated[DatasetName, typer.Option(help="Length distributions.")] = DatasetName("alpaca"),
        arrival: Annotated[ArrivalProcess, typer.Option(help="Arrival process.")] = ArrivalProcess.poisson,
        burst_cv: Annotated[float, typer.Option(
            help="Gap coefficient of variation when bursty.")] = 3.0,
        offline: Annotated[bool, typer.Option(
            help="All requests arrive at t=0 (ignores --rate).")] = False,
        predictor_accuracy: Annotated[float, typer.Option(help="S3 predictor accuracy.")] = 0.986,
        buckets: Annotated[int, typer.Option(
            min=1, max=4096, help="S3 predictor length buckets.")] = 10,
        block_tokens: Annotated[int, typer.Option(
            min=1, max=65536, help="Paged KV block size (tokens).")] = 16,
        dtype: Annotated[str, typer.Option(help="Weight/KV data type.")] = "fp16",
        max_batch_size: Annotated[int | None, typer.Option(
            help="Cap on running sequences.")] = None,
        compute_efficiency: Annotated[float, typer.Option(
            help="Achieved fraction of peak FLOP/s.")] = 0.6,
        memory_efficiency: Annotated[float, typer.Option(
            help="Achieved fraction of HBM bandwidth.")] = 0.8,
        overhead_ms: Annotated[float, typer.Option(
            help="Fixed per-iteration overhead (ms).")] = 1.0,
        calibration: Annotated[Path | None, typer.Option(
            help="CSV batch,context_len,latency_s table.")] = None,
        slo_ttft_s: Annotated[float, typer.Option(help="SLO on time to first token (s).")] = 1.0,
        slo_tbt_s: Annotated[float, typer.Option(
            help="SLO on mean time between tokens (s).")] = 0.1,
        window: Annotated[int, typer.Option(
            min=1, max=MAX_REQUESTS, help="Queued requests the scheduler considers.")] = 256,
        progress: Annotated[bool | None, typer.Option(
            help="Progress bar (default: when interactive).")] = None,
    ) -> None:
        """Simulate serving REQUESTS with POLICY and print throughput, latency and memory."""
        import sys

        from rich.console import Console
        from rich.progress import Progress
        from rich.table import Table

        from ...compilers.graph import get_transformer
        from ...outputs import atomic_dir, check_output_dir
        from ..serving import (
            SLO,
            CalibrationTable,
            Deployment,
            generate_requests,
            load_trace,
            make_policy,
            simulate,
        )

        get_transformer(model).check_tp(tp, field="--tp")  # named as the user typed it
        for option, value, low, high, low_open in (
                ("--rate", rate, 0.0, MAX_RATE_PER_S, True),
                ("--burst-cv", burst_cv, 0.0, 100.0, True),
                ("--predictor-accuracy", predictor_accuracy, 0.0, 1.0, False),
                ("--compute-efficiency", compute_efficiency, 0.0, 1.0, True),
                ("--memory-efficiency", memory_efficiency, 0.0, 1.0, True),
                ("--overhead-ms", overhead_ms, 0.0, 1e6, False),
                ("--slo-ttft-s", slo_ttft_s, 0.0, None, True),
                ("--slo-tbt-s", slo_tbt_s, 0.0, None, True)):
            check_number(value, option=option, low=low, high=high, low_open=low_open)
        console = Console()
        if out is not None:
            check_output_dir(out, field="--out")
        calib = CalibrationTable.from_csv(calibration) if calibration else None
        dep = Deployment.build(model=model, gpu=str(gpu), tp=tp, dtype=dtype,
                               compute_efficiency=compute_efficiency,
                               memory_efficiency=memory_efficiency,
                               iteration_overhead_s=overhead_ms * 1e-3, calibration=calib)
        pol = make_policy(str(policy), accuracy=predictor_accuracy,
                          num_buckets=buckets, block_tokens=block_tokens)
        if trace is not None:
            reqs = load_trace(trace)
        else:
            reqs = generate_requests(requests, rate_per_s=None if offline else rate,
                                     dataset=str(dataset),
                                     arrival=ArrivalProcess(arrival).value, burst_cv=burst_cv,
                                     seed=seed)
        show = sys.stderr.isatty() if progress is None else progress
        slo = SLO(ttft_s=slo_ttft_s, tbt_s=slo_tbt_s)
        if show and len(reqs) >= _PROGRESS_MIN_REQUESTS:
            with Progress(transient=True, console=Console(stderr=True)) as bar:
                task = bar.add_task(f"serving ({pol.name})", total=len(reqs))
                result = simulate(dep, reqs, pol, seed=seed, max_batch_size=max_batch_size,
                                  window=window, slo=slo,
                                  progress=lambda done, total: bar.update(task, completed=done))
        else:
            result = simulate(dep, reqs, pol, seed=seed, max_batch_size=max_batch_size,
                              window=window, slo=slo)
        m = result.metrics
        table = Table(title=f"{result.model} on {tp}x {result.gpu}, policy {result.policy}")
        table.add_column("metric")
        table.add_column("value", justify="right")
        for row in m.rows():
            v = row["value"]
            table.add_row(row["metric"], f"{v:.4g}" if isinstance(v, float) else str(v))
        table.add_row("kv_capacity_tokens", str(dep.kv_capacity_tokens))
        console.print(table)
        if out is not None:
            with atomic_dir(out) as tmp:
                files = result.write(tmp)
            console.print(f"wrote {len(files)} files to {out}")
