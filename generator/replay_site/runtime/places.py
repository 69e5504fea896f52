"""Where a task ran (executors.Executor.map_placed)."""
# A place a task ran, where what it left on local disk (its spool) can be read again: None for
# this machine, where every process sees the same disk; a cluster worker's address otherwise.
Place = str | None
