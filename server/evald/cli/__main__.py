"""``python -m evald.cli``: the ``evald`` command."""

import sys

from evald.cli.main import main

sys.exit(main())
