"""``python -m stecflow.cli``: the ``stecflow`` command."""

import sys

from stecflow.cli import main

sys.exit(main())
