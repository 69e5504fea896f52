"""How a build runs: the one place that starts processes, pools and cluster clients, or tunes
the garbage collector. The pipeline hands an executor its tasks (plain functions of one item)
and never asks how they run; nothing below the pipeline imports this package.

Three executors share one interface (executors.Executor): this process alone (InlineExecutor),
worker processes of this machine that die with the build (processes.ProcessExecutor), and a
dask.distributed cluster (cluster.DaskExecutor). `executor_for` picks one.
"""
from replay_site.runtime.executors import Executor, InlineExecutor, executor_for

__all__ = ["Executor", "InlineExecutor", "executor_for"]
