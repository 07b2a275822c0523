"""Every kernel as a LAVA job: the job definitions (job.py), the device
dictionary of a local QEMU device rendered from lava-server's own
templates (device.py), lava-run and the comparison of LAVA's recorded
results with the project's own verdicts (results.py), and `sticky.py lava`
(cli.py). docs/lava.md tells how a lab runs the jobs."""
