"""A learned state evaluator: a small network that predicts who wins, loaded from one file.

The model is a fully connected network over a game's registered state encoding
(`agents.encodings`), trained on self-play by `play.train_evaluator`. Its output is the
probability p that the viewer wins; the evaluator returns 2p - 1 in [-1, 1] (the viewer's
expected result, with a win worth 1 and a loss -1), so `TerminalAware` bounds and the per-node
normalisation of MCTS apply unchanged.

Inference is a numpy forward pass over the exported weights: the encoding gives the positions
of the ones, so the first layer is the sum of those rows of its weight matrix (no dense
vector, no matrix product), then one small product per further layer. Neither scikit-learn
nor scipy is imported here: agents load and run models with numpy alone.

The model file is one ``.npz`` (numpy's zip of arrays, read with `allow_pickle=False`):
``W0, b0, W1, b1, ...`` (layer i maps ``layers[i]`` inputs to ``layers[i+1]`` outputs) and
``metadata``, a JSON text: the format name and version, the game, the encoding (name,
version, length), the layer sizes, the hidden and output activations, and how the model was
made (training data summary, held-out accuracy, the config and the seed). A model is refused
for another game or another encoding version, with an error naming the file and the field.

Specs name a model as ``learned:PATH`` (a path, relative to the current directory), or by a
name a game's plug-in registers with `register_model`: ``learned`` alone and
``learned:default`` are the game's shipped default model.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from agents.encodings import Encoding, get_encoding
from base.files import load_json, npz_json, read_npz
from base.limits import MAX_JSON_BYTES, MAX_LAYER_SIZE, MAX_LAYERS, short
from base.schema import errors_in
from games.registry import Registry

FORMAT = "playstyles-learned-evaluator"
FORMAT_VERSION = 1
"""The model file format written here; a file of a newer version is refused."""

ACTIVATIONS = ("relu", "tanh", "logistic", "identity")
DEFAULT_MODEL = "default"


def _activate(x: np.ndarray, name: str) -> np.ndarray:
    if name == "relu":
        return np.maximum(x, 0.0, out=x)
    if name == "tanh":
        return np.tanh(x, out=x)
    if name == "logistic":
        return 1.0 / (1.0 + np.exp(-x))
    return x


class Model:
    """A network that gives the viewer's chance to win from an encoded state.

    Args:
        weights: one (inputs, outputs) matrix per layer; the last has one output.
        biases: one vector per layer.
        metadata: the file's metadata (game, encoding, activation, training summary...).
    """

    def __init__(self, weights: Sequence[np.ndarray], biases: Sequence[np.ndarray],
                 metadata: dict[str, Any]) -> None:
        self.weights = [np.ascontiguousarray(w, dtype=np.float32) for w in weights]
        self.biases = [np.ascontiguousarray(b, dtype=np.float32).reshape(-1) for b in biases]
        self.metadata = metadata
        self.activation = metadata.get("activation", "relu")
        if self.activation not in ACTIVATIONS:
            raise ValueError(f"activation: {self.activation!r} is not one of {ACTIVATIONS}")

    @property
    def layers(self) -> list[int]:
        return [self.weights[0].shape[0]] + [w.shape[1] for w in self.weights]

    def value(self, indices: np.ndarray | Sequence[int]) -> float:
        """2p - 1 for one state given by the positions of the ones of its encoding."""
        return float(self._head(self.weights[0][indices].sum(axis=0) + self.biases[0]))

    def values(self, x) -> np.ndarray:
        """2p - 1 for every row of a (states, length) 0/1 matrix (dense or scipy sparse)."""
        return self._head(np.asarray(x @ self.weights[0], dtype=np.float32) + self.biases[0])

    def _head(self, h: np.ndarray):
        """The layers after the first, from the first layer's sums (one state or a batch)."""
        for w, b in zip(self.weights[1:], self.biases[1:]):
            h = _activate(h, self.activation) @ w + b
        return np.tanh(0.5 * h[..., 0])  # 2 * logistic(z) - 1

    def arrays(self) -> dict[str, np.ndarray]:
        """The model file's content (`load_model` reads it back): `metadata` (JSON: the
        format, its version, the layers and whatever `metadata` holds) and `W0, b0, ...`.
        `play.train_evaluator.save_model` writes it."""
        meta = {**self.metadata, "format": FORMAT, "format_version": FORMAT_VERSION,
                "layers": self.layers, "activation": self.activation, "output": "logistic"}
        arrays: dict[str, np.ndarray] = {"metadata": np.array(json.dumps(meta, indent=1))}
        for i, (w, b) in enumerate(zip(self.weights, self.biases)):
            arrays[f"W{i}"], arrays[f"b{i}"] = w, b
        return arrays


def is_model_file(path: str | Path) -> bool:
    """Whether `path` is a learned evaluator's model file (its metadata's `format`), i.e. one
    `playstyles train-evaluator` wrote: what it may overwrite with --force.

    Args:
        path: the file.
    """
    meta = npz_json(path, "metadata")
    return isinstance(meta, dict) and meta.get("format") == FORMAT


def load_model(path: str | Path, game: str | None = None) -> Model:
    """Read a model file and check it; every problem is one ValueError naming the file and
    the field. Every read is bounded before anything is parsed or decompressed: the file
    must be a regular file; its metadata (at most `MAX_JSON_BYTES`) is read alone and
    checked, field by field, and against `game`'s encoding; then each weight array's
    declared shape is checked against the metadata's layers before the arrays are read.

    Args:
        path: the ``.npz`` model file.
        game: the game the model must be for (None: any); its encoding must be registered
            with the same version and length.
    """
    path = Path(path)
    key = _cache_key(path)
    model = _CACHE.get(key)
    if model is None:
        model = _read(path, game)
        if len(_CACHE) > 16:
            _CACHE.clear()
        _CACHE[key] = model
    if game is not None:
        check_model(model, game, path)
    return model


_CACHE: dict[tuple, Model] = {}
_WHAT = "a model file (a .npz of plain arrays written by `playstyles train-evaluator`)"


def _cache_key(path: Path) -> tuple:
    try:
        st = path.stat()
    except FileNotFoundError:
        raise ValueError(f"{path}: model file not found") from None
    except OSError as e:
        raise ValueError(f"{path}: cannot read the model file: {e.strerror or e}") from None
    return (str(path.resolve()), st.st_mtime_ns, st.st_size)


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def read_metadata(path: str | Path) -> dict[str, Any]:
    """A model file's metadata, checked field by field (the weights are not read); every
    problem is one ValueError naming the file and the field.

    Args:
        path: the ``.npz`` model file.
    """
    def text(name: str, shape: tuple, dtype: Any) -> str | None:
        return None if shape == () and dtype.kind == "U" else \
            f"shape {short(shape)} of {dtype}; the metadata is one text"

    arrays = read_npz(path, MAX_JSON_BYTES, _WHAT, keys=["metadata"], check=text)
    if "metadata" not in arrays:
        raise ValueError(f"{path}: metadata: missing (not a model file)")
    meta = load_json(str(arrays["metadata"]), f"{path}: metadata")
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        found = meta.get("format") if isinstance(meta, dict) else meta
        raise ValueError(f"{path}: format: expected {FORMAT!r}, got {short(found)}")
    version = meta.get("format_version")
    if not _whole(version) or not 1 <= version <= FORMAT_VERSION:
        raise ValueError(f"{path}: format_version: {short(version)}; this playstyles reads 1 "
                         f"to {FORMAT_VERSION}")
    for field in ("game", "encoding", "layers"):
        if field not in meta:
            raise ValueError(f"{path}: {field}: missing from the metadata")
    if not isinstance(meta["game"], str):
        raise ValueError(f"{path}: game: {short(meta['game'])} is not a game name")
    enc = meta["encoding"]
    if not (isinstance(enc, dict) and isinstance(enc.get("name"), str)
            and _whole(enc.get("version")) and _whole(enc.get("length"))):
        raise ValueError(f"{path}: encoding: {short(enc)}; expected a name, a version and a "
                         f"length")
    layers = meta["layers"]
    if not (isinstance(layers, list) and 2 <= len(layers) <= MAX_LAYERS + 2
            and all(_whole(n) and n >= 1 for n in layers)):
        raise ValueError(f"{path}: layers: {short(layers)}; expected 2 to {MAX_LAYERS + 2} "
                         f"layer sizes of at least 1")
    if layers[0] != enc["length"]:
        raise ValueError(f"{path}: layers: {short(layers)} take {layers[0]} inputs; the "
                         f"encoding's length is {enc['length']}")
    if layers[-1] != 1 or max(layers[1:-1], default=1) > MAX_LAYER_SIZE:
        raise ValueError(f"{path}: layers: {short(layers)}; a model has hidden layers of at "
                         f"most {MAX_LAYER_SIZE} units and one output")
    activation = meta.get("activation", "relu")
    if not (isinstance(activation, str) and activation in ACTIVATIONS):
        raise ValueError(f"{path}: activation: {short(activation)} is not one of "
                         f"{ACTIVATIONS}")
    return meta


def _read(path: Path, game: str | None) -> Model:
    meta = read_metadata(path)
    if game is not None:
        _check_metadata(meta, game, path, meta["layers"][0])
    layers = meta["layers"]
    n = len(layers) - 1
    shapes = {}
    for i in range(n):
        shapes[f"W{i}"] = (layers[i], layers[i + 1])
        shapes[f"b{i}"] = (layers[i + 1],)

    def weights(name: str, shape: tuple, dtype: Any) -> str | None:
        if name not in shapes:
            return None
        if shape != shapes[name]:
            return f"shape {short(shape)}; layers {short(layers)} make it {shapes[name]}"
        return None if dtype.kind == "f" else f"{dtype} numbers; weights are floats"

    arrays = read_npz(path, what=_WHAT, keys=list(shapes), check=weights)
    missing = [name for name in shapes if name not in arrays]
    if missing:
        raise ValueError(f"{path}: {missing[0]}: missing (layers {short(layers)})")
    for name, array in arrays.items():
        if not np.isfinite(array).all():
            raise ValueError(f"{path}: {name}: weights are not all finite")
    return Model([arrays[f"W{i}"] for i in range(n)], [arrays[f"b{i}"] for i in range(n)], meta)


def _check_metadata(meta: dict[str, Any], game: str, path: str | Path, inputs: int
                    ) -> Encoding:
    """The game's encoding, after checking that a model's metadata is for `game`, that the
    game registers its encoding with the same version and length, and that the model takes
    `inputs` inputs (checked before its weights are read)."""
    if meta["game"] != game:
        raise ValueError(f"{path}: game: the model is for {short(meta['game'])}, not {game!r}")
    enc_meta = meta["encoding"]
    with errors_in(f"{path}: encoding"):  # (the name is text: `_read_metadata`)
        enc = get_encoding(game, enc_meta["name"])
    if enc_meta.get("version") != enc.version:
        raise ValueError(f"{path}: encoding.version: the model was trained on version "
                         f"{short(enc_meta.get('version'))} of {enc.name!r}; the game encodes "
                         f"version {enc.version} (train the model again)")
    if enc_meta.get("length") != enc.length or inputs != enc.length:
        raise ValueError(f"{path}: encoding.length: the model takes {inputs} inputs; "
                         f"{enc.name!r} has {enc.length}")
    return enc


def check_model(model: Model, game: str, path: str | Path = "<model>") -> Encoding:
    """The model's encoding, after checking that the model is for `game` and that the game
    registers its encoding with the same version and length."""
    return _check_metadata(model.metadata, game, path, model.layers[0])


MODELS = Registry("learned model")
"""Models a game ships (`learned:NAME`), by name."""


def register_model(game: str, name: str, path: str | Path) -> None:
    """Ship a model under a name: ``learned:NAME`` (``learned`` alone: ``default``).

    Args:
        game: the game name.
        name: the model's name in specs.
        path: its file (usually inside the game's package, so that it is installed with it).
    """
    MODELS.add(name, Path(path), game=game)


def model_path(game: str, model: str | None) -> Path:
    """The file a spec's model text names: a registered name (None: the default), else a
    path relative to the current directory."""
    shipped = MODELS.find(model or DEFAULT_MODEL, game)
    if shipped is not None:
        return shipped
    if model is None:
        raise ValueError(f"evaluator: game {game!r} ships no default learned model; give "
                         f"learned:PATH")
    return Path(model)


class LearnedEvaluator:
    """evaluate(root, leaf, player) = 2p - 1, p the model's chance that `player` wins from
    `leaf` (the root is not used).

    Args:
        model: the loaded model.
        encoding: the game's encoding the model was trained on.
        source: where the model came from (for messages).
    """

    name = "learned"

    def __init__(self, model: Model, encoding: Encoding, source: str = "") -> None:
        self.model = model
        self.encoding = encoding
        self.source = source

    def evaluate(self, root, leaf, player: int) -> float:
        return self.model.value(self.encoding.active(leaf, player))

    def __repr__(self) -> str:
        return f"LearnedEvaluator({self.source!r})"


def learned_evaluator(game: str, model: str | None = None) -> LearnedEvaluator:
    """The evaluator of spec ``learned[:MODEL]`` for `game`.

    Args:
        game: the game the evaluator judges.
        model: a shipped model's name, or a model file; None: the game's default model.
    """
    path = model_path(game, model)
    m = load_model(path, game)
    return LearnedEvaluator(m, check_model(m, game, path), source=str(path))
