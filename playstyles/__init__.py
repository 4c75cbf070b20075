"""playstyles: breed diverse, still competitive AI play-styles for turn-based strategy games."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("playstyles")
except PackageNotFoundError:  # running from a source tree that was not installed
    __version__ = "0.0.0+unknown"
