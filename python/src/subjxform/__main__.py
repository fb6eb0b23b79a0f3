"""``python -m subjxform ...``: the same as the ``subjxform`` command."""

import sys

from subjxform.cli import main

if __name__ == "__main__":
    sys.exit(main())
