"""``archsim train``: parallelization search and variability for distributed training."""

# No ``from __future__ import annotations``: typer evaluates the annotations, and the choice
# enums are local to register() (built from the data on registration).
import math
from contextlib import ExitStack
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, TypeAlias

import typer

from .common import check_number, choices

__all__ = ["register", "MAX_GLOBAL_BATCH", "MAX_SEQ_LEN", "MAX_SAMPLES"]

#: Plausible limits of the options (each far above any published run, so none is a real
#: constraint): 16M sequences per iteration, 1M-token sequences, and 10M Monte Carlo samples
#: (each sample array is held in memory: 80 MB of float64 at the limit).
MAX_GLOBAL_BATCH = 2**24
MAX_SEQ_LEN = 2**20
MAX_SAMPLES = 10_000_000


def _choices() -> tuple[type[StrEnum], type[StrEnum], type[StrEnum], type[StrEnum]]:
    """Enums of the GPU names, networks, model presets and modes, built from the data."""
    from ...compilers.graph import DLRM_PRESETS, TRANSFORMER_PRESETS
    from ...errors import ConfigError
    from ...hw.models.gpu import GPU_SPECS, get_gpu
    from ..distributed.cluster import NETWORKS
    from ..distributed.parallelism import MODES

    # Distributed training needs a scale-up link: GPUs without NVLink (the Jetson TX2) are
    # not offered.
    trainable = {name: spec for name, spec in GPU_SPECS.items()
                 if spec.nvlink_bw_bytes_per_s > 0}
    gpus = list(trainable)
    for short in sorted({name.split("-")[0] for name in trainable}):
        try:  # the short names get_gpu resolves (a100, h100)
            get_gpu(short)
        except ConfigError:
            continue
        gpus.append(short)
    models = [k for k, c in TRANSFORMER_PRESETS.items() if c.decoder] + list(DLRM_PRESETS)

    return (choices("GPUName", gpus), choices("NetworkName", NETWORKS),
            choices("ModelName", models), choices("Mode", MODES))


def register(app: typer.Typer) -> None:
    if TYPE_CHECKING:  # members of these StrEnums are str (see .common)
        GPUName: TypeAlias = str
        NetworkName: TypeAlias = str
        ModelName: TypeAlias = str
        Mode: TypeAlias = str
    else:
        GPUName, NetworkName, ModelName, Mode = _choices()

    @app.command("train")
    def train(
        model: Annotated[ModelName, typer.Option(
            "--model", "-m", help="LLM or DLRM preset.", show_choices=True)],
        gpus: Annotated[int, typer.Option("--gpus", "-n", help="Number of GPUs.", min=1)],
        gpu: Annotated[GPUName, typer.Option(
            "--gpu", help="GPU datasheet.")] = GPUName("h100"),
        network: Annotated[NetworkName, typer.Option(
            "--network", help="Inter-node network.")] = NetworkName("ib-ndr"),
        gpus_per_node: Annotated[int, typer.Option("--gpus-per-node", min=1, max=1024)] = 8,
        global_batch: Annotated[int | None, typer.Option(
            "--global-batch", "-b", min=1, max=MAX_GLOBAL_BATCH,
            help="Sequences (LLM) or samples (DLRM) per iteration; default ~4M tokens / "
                 "65,536 samples.")] = None,
        seq_len: Annotated[int | None, typer.Option(
            "--seq-len", min=1, max=MAX_SEQ_LEN, help="Tokens per sequence (LLM).")] = None,
        mode: Annotated[Mode, typer.Option(
            "--mode", help="training, inference (prefill) or decode (LLM).")] = Mode("training"),
        do_search: Annotated[bool, typer.Option("--search",
                                                help="Search all strategies.")] = False,
        variability: Annotated[bool, typer.Option(
            "--variability", help="PRISM variability of the best strategy.")] = False,
        samples: Annotated[int, typer.Option("--samples", min=1, max=MAX_SAMPLES,
                                             help="Monte Carlo samples.")] = 10_000,
        kernel_sigma: Annotated[float | None, typer.Option(
            "--kernel-sigma", help="Per-kernel log-sigma (default PRISM study's).")] = None,
        gpu_sigma: Annotated[float | None, typer.Option(
            "--gpu-sigma", help="Per-GPU persistent log-sigma.")] = None,
        comm_sigma: Annotated[float | None, typer.Option(
            "--comm-sigma", help="Per-collective log-sigma.")] = None,
        train_samples: Annotated[float | None, typer.Option(
            "--train-samples",
            help="Sequences (LLM) or samples (DLRM) to train on, for the total-time "
                 "quantiles; default 2T tokens / one Criteo epoch.")] = None,
        seed: Annotated[int, typer.Option("--seed")] = 0,
        top: Annotated[int, typer.Option("--top", min=1, help="Strategies to show.")] = 10,
        out: Annotated[Path | None, typer.Option("--out", "-o",
                                                 help="Write JSON/CSV/PNG here.")] = None,
    ) -> None:
        """Rank parallelization strategies (--search) and model runtime variability
        (--variability) for a model on a GPU cluster."""
        from rich.console import Console
        from rich.table import Table

        from ...errors import ConfigError
        from ...outputs import atomic_dir, check_output_dir, write_csv, write_json
        from ..distributed import (
            PRISM_DEFAULT,
            VariabilityModel,
            get_workload,
            iteration_distribution,
            make_cluster,
            probability_of_finishing,
            search,
            total_time_quantiles,
        )
        from ..distributed.models import LLMWorkload

        console = Console()
        if out is not None:
            check_output_dir(out, field="--out")
        for option, sigma in (("--kernel-sigma", kernel_sigma), ("--gpu-sigma", gpu_sigma),
                              ("--comm-sigma", comm_sigma)):
            check_number(sigma, option=option, low=0.0, high=5.0)
        d0 = PRISM_DEFAULT
        vm = VariabilityModel(  # validated before the search so bad sigmas fail fast
            kernel_sigma=d0.kernel_sigma if kernel_sigma is None else kernel_sigma,
            gpu_sigma=d0.gpu_sigma if gpu_sigma is None else gpu_sigma,
            comm_sigma=d0.comm_sigma if comm_sigma is None else comm_sigma)
        if train_samples is not None and not (math.isfinite(train_samples)
                                              and train_samples > 0):
            # checked before any work: max(1, ...) below turned 0 or -5 into one iteration
            raise ConfigError(f"must be a positive finite number, not {train_samples!r}",
                              field="--train-samples")
        wl = get_workload(str(model), seq_len=seq_len)
        cluster = make_cluster(gpu=str(gpu), num_gpus=gpus, gpus_per_node=gpus_per_node,
                               network=str(network))
        if global_batch is None:
            global_batch = (max(1, 4 * 2**20 // wl.seq_len) if isinstance(wl, LLMWorkload)
                            else 65536)
        mode_name = str(mode)
        if console.is_terminal:
            from rich.progress import Progress

            with Progress(console=console, transient=True) as bar:
                task = bar.add_task("searching strategies", total=None)

                def advance(done: int, total: int) -> None:
                    bar.update(task, completed=done, total=total)

                res = search(wl, cluster, global_batch=global_batch, mode=mode_name,
                             progress=advance)
        else:
            res = search(wl, cluster, global_batch=global_batch, mode=mode_name)
        console.print(f"[bold]{wl.name}[/bold] {mode_name} on {cluster.describe()}, global batch "
                      f"{global_batch}: {len(res.ranked)} legal of {res.num_evaluated} "
                      "strategies")
        table = Table(title="strategies (fastest first)" if do_search else
                      "best strategy and baseline (--search for the ranking)")
        for col in ("rank", "strategy", "iteration s", "samples/s", "MFU", "exposed comm",
                    "bubble", "memory GiB"):
            table.add_column(col, justify="right" if col != "strategy" else "left",
                             no_wrap=col == "strategy")
        shown = [(str(i + 1), r) for i, r in enumerate(res.ranked[:top if do_search else 1])]
        if res.baseline is not None:
            shown.append(("baseline", res.baseline))
        for tag, r in shown:
            table.add_row(tag, r.strategy, f"{r.iteration_s:.4g}", f"{r.samples_per_s:.4g}",
                          f"{r.mfu:.1%}", f"{r.exposed_comm_fraction:.1%}",
                          f"{r.bubble_s / r.iteration_s:.1%}",
                          f"{r.memory.total_bytes / 2**30:.1f}")
        console.print(table)
        best = res.best
        detail = Table(title=f"best: {best.strategy}")
        detail.add_column("part")
        detail.add_column("seconds", justify="right")
        detail.add_column("share", justify="right")
        parts = [("compute", best.compute_s), ("recompute", best.recompute_s),
                 ("bubble", best.bubble_s)]
        parts += [(f"exposed {k}", v) for k, v in best.exposed_comm_s.items()]
        for name, v in parts:
            detail.add_row(name, f"{v:.4g}", f"{v / best.iteration_s:.1%}")
        console.print(detail)
        speed = f"{res.speedup:.2f}x" if res.speedup else "n/a"
        console.print(f"baseline: {res.baseline_description}; best/baseline = {speed}")
        if res.rejected:
            console.print("rejected: " + "; ".join(f"{c} x {r}" for r, c in
                                                     list(res.rejection_summary().items())[:3]))
        # every file lands in a temporary folder first: a failure leaves no partial output
        with ExitStack() as stack:
            dest = stack.enter_context(atomic_dir(out)) if out is not None else None
            files: list[Path] = []
            if dest is not None:
                files.append(write_json(dest / "search.json", res.to_dict(top=top)))
                files.append(write_csv(dest / "strategies.csv",
                                       [r.to_row() for r in res.ranked]))
                from ..distributed.plots import plot_breakdown

                rows = [{"label": r.strategy, **r.to_row()} for r in res.ranked[:top]]
                if res.baseline is not None:
                    rows.append({"label": "baseline " + res.baseline.strategy,
                                 **res.baseline.to_row()})
                files.append(plot_breakdown(rows, dest / "breakdown.png"))
            if variability:
                dist = iteration_distribution(best, vm, samples=samples, seed=seed)
                vt = Table(title=f"iteration-time distribution, {best.num_gpus} GPUs "
                                 f"(sigmas: kernel {vm.kernel_sigma}, GPU {vm.gpu_sigma:.4f}, "
                                 f"collective {vm.comm_sigma})")
                for col in ("quantile", "analytic s", "Monte Carlo s"):
                    vt.add_column(col, justify="right")
                qrows = []
                for q in (0.01, 0.1, 0.5, 0.9, 0.99):
                    qa, qm = dist.quantile(q), dist.quantile(q, method="mc")
                    qrows.append({"quantile": q, "analytic_s": qa, "monte_carlo_s": qm})
                    vt.add_row(f"{q:g}", f"{qa:.5g}", f"{qm:.5g}")
                console.print(vt)
                console.print(f"deterministic {dist.deterministic_s:.5g} s; expected slowdown "
                              f"{dist.expected_slowdown():.2%} (analytic), "
                              f"{dist.expected_slowdown(method='mc'):.2%} (Monte Carlo)")
                if train_samples is None:
                    train_samples = (2e12 / wl.seq_len if isinstance(wl, LLMWorkload)
                                     else 4_195_197_692)
                iterations = max(1, math.ceil(train_samples / global_batch))
                det_days = iterations * best.iteration_s / 86400
                tq = total_time_quantiles(dist, iterations, (0.5, 0.99))
                p_det = float(probability_of_finishing(dist, iterations, det_days * 86400))
                console.print(f"{iterations} iterations: deterministic {det_days:.3f} days, p50 "
                              f"{tq[0.5] / 86400:.3f}, p99 {tq[0.99] / 86400:.3f} days; "
                              f"P(done by the deterministic date) = {p_det:.3f}")
                if dest is not None:
                    from ..distributed.plots import plot_iteration_distribution

                    files.append(write_json(dest / "variability.json", dist.summary()))
                    files.append(write_csv(dest / "quantiles.csv", qrows))
                    files.append(plot_iteration_distribution(
                        dist, dest / "iteration_distribution.png"))
        if files:
            console.print(f"wrote {len(files)} files to {out}")
