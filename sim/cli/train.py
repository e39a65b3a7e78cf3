"""``archsim train``: parallelization search and variability for distributed training."""

from __future__ import annotations

from pathlib import Path

import typer

__all__ = ["register"]


def register(app: typer.Typer) -> None:
    @app.command("train")
    def train(
        model: str = typer.Option(..., "--model", "-m",
                                  help="LLM preset (llama-70b, gpt3-175b...) or DLRM preset "
                                       "(dlrm-mlperf, dlrm-prod-synthetic)."),
        gpus: int = typer.Option(..., "--gpus", "-n", help="Number of GPUs."),
        gpu: str = typer.Option("h100", "--gpu", help="GPU: a100, a100-40gb, a100-80gb, h100."),
        network: str = typer.Option("ib-ndr", "--network",
                                    help="Inter-node network: ib-hdr, ib-ndr, roce-400, roce-100."),
        gpus_per_node: int = typer.Option(8, "--gpus-per-node"),
        global_batch: int = typer.Option(None, "--global-batch", "-b",
                                         help="Sequences (LLM) or samples (DLRM) per iteration; "
                                              "default ~4M tokens / 65,536 samples."),
        seq_len: int = typer.Option(None, "--seq-len", help="Tokens per sequence (LLM)."),
        mode: str = typer.Option("training", "--mode",
                                 help="training, inference (prefill) or decode (LLM)."),
        do_search: bool = typer.Option(False, "--search", help="Search all strategies."),
        variability: bool = typer.Option(False, "--variability",
                                         help="PRISM variability of the best strategy."),
        samples: int = typer.Option(10_000, "--samples", help="Monte Carlo samples."),
        kernel_sigma: float = typer.Option(None, "--kernel-sigma",
                                           help="Per-kernel log-sigma (default PRISM study's)."),
        gpu_sigma: float = typer.Option(None, "--gpu-sigma",
                                        help="Per-GPU persistent log-sigma."),
        comm_sigma: float = typer.Option(None, "--comm-sigma",
                                         help="Per-collective log-sigma."),
        train_samples: float = typer.Option(None, "--train-samples",
                                            help="Sequences (LLM) or samples (DLRM) to train "
                                                 "on, for the total-time quantiles; default "
                                                 "2T tokens / one Criteo epoch."),
        seed: int = typer.Option(0, "--seed"),
        top: int = typer.Option(10, "--top", help="Strategies to show."),
        out: Path = typer.Option(None, "--out", "-o", help="Write JSON/CSV/PNG here."),
    ) -> None:
        """Rank parallelization strategies (--search) and model runtime variability
        (--variability) for a model on a GPU cluster."""
        from rich.console import Console
        from rich.table import Table

        from ...outputs import write_csv, write_json
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
        d0 = PRISM_DEFAULT
        vm = VariabilityModel(  # validated before the search so bad sigmas fail fast
            kernel_sigma=d0.kernel_sigma if kernel_sigma is None else kernel_sigma,
            gpu_sigma=d0.gpu_sigma if gpu_sigma is None else gpu_sigma,
            comm_sigma=d0.comm_sigma if comm_sigma is None else comm_sigma)
        wl = get_workload(model, seq_len=seq_len)
        cluster = make_cluster(gpu=gpu, num_gpus=gpus, gpus_per_node=gpus_per_node,
                               network=network)
        if global_batch is None:
            global_batch = (max(1, 4 * 2**20 // wl.seq_len) if isinstance(wl, LLMWorkload)
                            else 65536)
        res = search(wl, cluster, global_batch=global_batch, mode=mode,
                     progress=console.is_terminal)
        console.print(f"[bold]{wl.name}[/bold] {mode} on {cluster.describe()}, global batch "
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
        files = []
        if out is not None:
            files.append(write_json(out / "search.json", res.to_dict(top=top)))
            files.append(write_csv(out / "strategies.csv", [r.to_row() for r in res.ranked]))
            from ..distributed.plots import plot_breakdown

            rows = [{"label": r.strategy, **r.to_row()} for r in res.ranked[:top]]
            if res.baseline is not None:
                rows.append({"label": "baseline " + res.baseline.strategy,
                             **res.baseline.to_row()})
            files.append(plot_breakdown(rows, out / "breakdown.png"))
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
            import math

            iterations = max(1, math.ceil(train_samples / global_batch))
            det_days = iterations * best.iteration_s / 86400
            tq = total_time_quantiles(dist, iterations, (0.5, 0.99))
            p_det = float(probability_of_finishing(dist, iterations, det_days * 86400))
            console.print(f"{iterations} iterations: deterministic {det_days:.3f} days, p50 "
                          f"{tq[0.5] / 86400:.3f}, p99 {tq[0.99] / 86400:.3f} days; "
                          f"P(done by the deterministic date) = {p_det:.3f}")
            if out is not None:
                from ..distributed.plots import plot_iteration_distribution

                files.append(write_json(out / "variability.json", dist.summary()))
                files.append(write_csv(out / "quantiles.csv", qrows))
                files.append(plot_iteration_distribution(dist, out / "iteration_distribution.png"))
        if files:
            console.print(f"wrote {len(files)} files to {out}")
