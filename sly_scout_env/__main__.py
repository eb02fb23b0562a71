"""``python -m sly_scout_env`` is the ``sly-scout`` command."""

import sys

from .cli import main

sys.exit(main())
