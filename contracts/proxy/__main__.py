"""`python -m contracts.proxy` (`make proxy`): the same as `harness-proxy`."""

import sys

from .cli import main

sys.exit(main())
