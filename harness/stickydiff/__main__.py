"""python3 -m stickydiff (with PYTHONPATH=harness)."""

import sys

from .cli import main

try:
    sys.exit(main())
except BrokenPipeError:         # e.g. piped into head
    sys.stderr.close()
    sys.exit(1)
