"""python -m astaroth ...: the same as the `astaroth` command."""
import sys

from .cli import main

sys.exit(main())
