"""``python -m gongzhu.cli``: the command line (as ``python -m gongzhu``)."""

import sys

from . import main

sys.exit(main())
