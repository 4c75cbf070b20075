"""Board images of a Tribolo position (PNG, via matplotlib), for replays and reports."""

from __future__ import annotations

from pathlib import Path

from base.files import save_figure
from games.tribolo.board import HEIGHT, PLAYER_NAMES, WIDTH

CELL_COLOUR = {".": "#f4f1e8", "#": "#4a4a4a"}
PLAYER_COLOUR = {"B": "#1f77b4", "R": "#d62728", "G": "#2ca02c"}


def render_image(state, path: str | Path, title: str | None = None) -> None:
    """Walls dark, each player's cells a coloured disc, the mover's legal moves a ring."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Circle, Rectangle

    legal = set(state.legal_actions())
    mover = PLAYER_COLOUR["BRG"[state.to_move]] if state.to_move >= 0 else None
    fig, ax = plt.subplots(figsize=(WIDTH * 0.45 + 1, HEIGHT * 0.45 + 1.2), dpi=100)
    for x in range(WIDTH):
        for y in range(HEIGHT):
            ch = state.cell(x, y)
            top = HEIGHT - 1 - y
            ax.add_patch(Rectangle((x, top), 1, 1, facecolor=CELL_COLOUR.get(ch, CELL_COLOUR["."]),
                                   edgecolor="#c8c3b4", linewidth=0.5))
            if ch in PLAYER_COLOUR:
                ax.add_patch(Circle((x + 0.5, top + 0.5), 0.38, facecolor=PLAYER_COLOUR[ch]))
            elif (x, y) in legal:
                ax.add_patch(Circle((x + 0.5, top + 0.5), 0.3, fill=False, edgecolor=mover,
                                    linewidth=1.2))
    ax.set_xlim(0, WIDTH)
    ax.set_ylim(0, HEIGHT)
    ax.set_aspect("equal")
    ax.set_xticks([k + 0.5 for k in range(WIDTH)], [str(k) for k in range(WIDTH)], fontsize=6)
    ax.set_yticks([HEIGHT - 1 - k + 0.5 for k in range(HEIGHT)], [str(k) for k in range(HEIGHT)],
                  fontsize=6)
    scores = ", ".join(f"{PLAYER_NAMES[p]} {state.score[p]}" for p in range(3))
    who = f"{PLAYER_NAMES[state.to_move]} to move (rings: its moves)" if state.to_move >= 0 \
        else "game over"
    ax.set_title(title or f"move {state.plies + 1}: {who} — {scores}", fontsize=8)
    fig.tight_layout()
    save_figure(fig, path)
    plt.close(fig)
