"""Entry point for ``python -m playstyles``: the same as the ``playstyles`` command."""

from playstyles.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
