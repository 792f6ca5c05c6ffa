"""`python -m mock_server.proxy`: the same as `python -m mock_server proxy`."""

import sys

from .cli import main

sys.exit(main())
