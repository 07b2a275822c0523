"""Experiments beyond the suite: the /tmp attack, idmapped mounts,
stress under lockdep, contention, mutants and the benchmarks."""
