"""``python -m ragward``."""

import sys

from ragward.cli import main

sys.exit(main())
