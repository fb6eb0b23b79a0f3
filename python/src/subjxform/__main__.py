"""``python -m subjxform jar`` prints the jar's path (for ``spark-submit --jars``)."""

import sys

from subjxform.session import jar_path


def main(argv: list[str]) -> int:
    if argv[:1] == ["jar"]:
        print(jar_path())
        return 0
    print("usage: python -m subjxform jar", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
