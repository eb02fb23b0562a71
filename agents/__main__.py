"""``python -m sly_scout_env.agents`` is the ``sly-scout`` command."""

import sys

from sly_scout_env.agents.ui.cli import main

sys.exit(main())
