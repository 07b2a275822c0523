"""The subcommands of sticky.py, one module per stage of the pipeline:
kernel (build and check the series), suite (boot and run the suite),
experiments (attack, idmap, stress, contention, mutants, benchmarks), lava
(each kernel as a LAVA job); the
differ is harness/stickydiff, run by make."""

from experiments import beyond_cmd
from experiments import bench_cmd
from experiments import bench_table
from experiments import contend
from experiments import idmap_cmd
from experiments import mutants
from experiments import race_cmd
from experiments import stress
from kernel import cli as kernel_cli
from kernel import mboximport
from lava import cli as lava_cli
from suite import cli as suite_cli
from suite import repro_cmd


def add_all(sub):
    kernel_cli.add(sub)
    mboximport.add_parser(sub)
    suite_cli.add(sub)
    repro_cmd.add(sub)
    bench_cmd.add(sub)
    bench_table.add(sub)
    beyond_cmd.add(sub)
    contend.add(sub)
    stress.add_stress_commands(sub)
    mutants.add(sub)
    idmap_cmd.add_idmap_commands(sub)
    race_cmd.add(sub)
    lava_cli.add(sub)
