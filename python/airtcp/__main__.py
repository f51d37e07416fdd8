"""``python -m airtcp``: the same as the ``airtcp`` command."""

import sys

from .cli import main

sys.exit(main())
