"""python3 -m stickydiff (with PYTHONPATH=harness)."""

import sys

from .cli import main

sys.exit(main())
