"""``archsim serve``: simulate LLM serving with a KV-cache memory policy."""

from __future__ import annotations

from pathlib import Path

import typer

__all__ = ["register"]


def register(app: typer.Typer) -> None:
    @app.command("serve")
    def serve(
        model: str = typer.Option("llama-13b", help="Transformer preset (archsim.compilers.graph)."),
        gpu: str = typer.Option("a100-80gb", help="GPU: a100-40gb, a100-80gb, h100-80gb."),
        policy: str = typer.Option("s3", help="worst-case, s3, oracle, paged, paged-swap."),
        rate: float = typer.Option(5.0, help="Mean arrival rate (requests/s)."),
        requests: int = typer.Option(10000, help="Number of requests to simulate."),
        tp: int = typer.Option(1, help="Tensor-parallel GPUs."),
        seed: int = typer.Option(0, help="Seed for arrivals, lengths and the predictor."),
        out: Path = typer.Option(None, "--out", "-o", help="Write JSON/CSV and plots here."),
        trace: Path = typer.Option(None, help="CSV trace: arrival_s,prompt_tokens,output_tokens."),
        dataset: str = typer.Option("alpaca", help="Length distributions: alpaca, sharegpt."),
        arrival: str = typer.Option("poisson", help="Arrival process: poisson or bursty."),
        burst_cv: float = typer.Option(3.0, help="Gap coefficient of variation when bursty."),
        offline: bool = typer.Option(False, help="All requests arrive at t=0 (ignores --rate)."),
        predictor_accuracy: float = typer.Option(0.986, help="S3 predictor accuracy."),
        buckets: int = typer.Option(10, help="S3 predictor length buckets."),
        block_tokens: int = typer.Option(16, help="Paged KV block size (tokens)."),
        dtype: str = typer.Option("fp16", help="Weight/KV data type."),
        max_batch_size: int = typer.Option(None, help="Cap on running sequences."),
        compute_efficiency: float = typer.Option(0.6, help="Achieved fraction of peak FLOP/s."),
        memory_efficiency: float = typer.Option(0.8, help="Achieved fraction of HBM bandwidth."),
        overhead_ms: float = typer.Option(1.0, help="Fixed per-iteration overhead (ms)."),
        calibration: Path = typer.Option(None, help="CSV batch,context_len,latency_s table."),
        slo_ttft_s: float = typer.Option(1.0, help="SLO on time to first token (s)."),
        slo_tbt_s: float = typer.Option(0.1, help="SLO on mean time between tokens (s)."),
        window: int = typer.Option(256, help="Queued requests the scheduler considers."),
        progress: bool = typer.Option(None, help="Progress bar (default: when interactive)."),
    ) -> None:
        """Simulate serving REQUESTS with POLICY and print throughput, latency and memory."""
        import sys

        from rich.console import Console
        from rich.table import Table

        from ..serving import (
            SLO,
            CalibrationTable,
            Deployment,
            generate_requests,
            load_trace,
            make_policy,
            simulate,
        )

        console = Console()
        calib = CalibrationTable.from_csv(calibration) if calibration else None
        dep = Deployment.build(model=model, gpu=gpu, tp=tp, dtype=dtype,
                               compute_efficiency=compute_efficiency,
                               memory_efficiency=memory_efficiency,
                               iteration_overhead_s=overhead_ms * 1e-3, calibration=calib)
        pol = make_policy(policy, accuracy=predictor_accuracy, num_buckets=buckets,
                          block_tokens=block_tokens)
        if trace is not None:
            reqs = load_trace(trace)
        else:
            reqs = generate_requests(requests, rate_per_s=None if offline else rate,
                                     dataset=dataset, arrival=arrival, burst_cv=burst_cv,
                                     seed=seed)
        show = sys.stderr.isatty() if progress is None else progress
        result = simulate(dep, reqs, pol, seed=seed, max_batch_size=max_batch_size,
                          window=window, slo=SLO(ttft_s=slo_ttft_s, tbt_s=slo_tbt_s),
                          progress=show and len(reqs) >= 20000)
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
            files = result.write(out)
            console.print(f"wrote {len(files)} files to {out}")
