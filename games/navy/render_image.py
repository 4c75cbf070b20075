"""Board images of a Navy Defense position (PNG, via matplotlib), for replays and reports:
everything is drawn, the hidden submarines faded."""

from __future__ import annotations

from pathlib import Path

from base.files import save_figure

SEA = "#dceaf5"
SONAR = "#b9d7ee"
NAVY = "#1f3f8f"
CARGO = "#d98b1e"
SUB_SEEN = "#b22222"
SUB_HIDDEN = "#b2222255"


def render_image(state, path: str | Path, title: str | None = None) -> None:
    """The sea, the sonar block shaded, the Navy ship a square, cargo ships numbered discs
    with their route's direction, subs triangles (hidden ones faded)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Circle, Rectangle, RegularPolygon

    b = state.board
    w = state.size
    block = b.block[state.navy] if state.navy_hp > 0 else 0
    fig, ax = plt.subplots(figsize=(w * 0.7 + 1, w * 0.7 + 1.3), dpi=100)
    for i in range(b.cells):
        x, y = b.xy[i]
        ax.add_patch(Rectangle((x, w - 1 - y), 1, 1, edgecolor="#9fb8cc", linewidth=0.6,
                               facecolor=SONAR if block >> i & 1 else SEA))

    def centre(cell: int, dx: float = 0.0, dy: float = 0.0) -> tuple[float, float]:
        x, y = b.xy[cell]
        return x + 0.5 + dx, w - 1 - y + 0.5 + dy

    if state.navy_hp > 0:
        cx, cy = centre(state.navy)
        ax.add_patch(Rectangle((cx - 0.3, cy - 0.3), 0.6, 0.6, facecolor=NAVY,
                               alpha=1.0 if state.navy_hp > 1 else 0.55))
    for c in range(len(state.c_hp)):
        if state.c_hp[c] <= 0:
            continue
        cx, cy = centre(state.cargo_cell(c), 0.2, 0.2)
        ax.add_patch(Circle((cx, cy), 0.2, facecolor=CARGO,
                            alpha=1.0 if state.c_hp[c] > 1 else 0.55))
        arrow = "↻" if state.c_dir[c] == "cw" else "↺"
        ax.text(cx, cy, f"{c + 1}{arrow}", ha="center", va="center", fontsize=7)
    for k, (p, h) in enumerate(zip(state.s_pos, state.s_hp)):
        if h <= 0:
            continue
        seen = bool(block >> p & 1)
        cx, cy = centre(p, -0.22 + 0.08 * k, -0.2)
        ax.add_patch(RegularPolygon((cx, cy), 3, radius=0.17,
                                    facecolor=SUB_SEEN if seen else SUB_HIDDEN,
                                    edgecolor=SUB_SEEN, linestyle="-" if seen else ":"))
    ax.set_xlim(0, w)
    ax.set_ylim(0, w)
    ax.set_aspect("equal")
    ax.set_xticks([k + 0.5 for k in range(w)], [str(k) for k in range(w)], fontsize=7)
    ax.set_yticks([w - 1 - k + 0.5 for k in range(w)], [str(k) for k in range(w)], fontsize=7)
    head = "over" if state.is_terminal() else f"step {state.t + 1}/{state.steps}"
    ax.set_title(title or f"{head}: cost {state.cost} (faded subs: hidden)", fontsize=8)
    fig.tight_layout()
    save_figure(fig, path)
    plt.close(fig)
