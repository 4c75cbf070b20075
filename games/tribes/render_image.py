"""Board images of a Tribes position (PNG, via matplotlib), for replays and reports."""

from __future__ import annotations

from pathlib import Path

from base.files import save_figure
from games.tribes import constants as K
from games.tribes.render import BUILDING_SYMBOL, RESOURCE_SYMBOL, UNIT_SYMBOL

TERRAIN_COLOUR = {K.PLAIN: "#d9e6a6", K.SHALLOW: "#9fd3f0", K.DEEP: "#3f7fbf",
                  K.MOUNTAIN: "#a39b8f", K.VILLAGE: "#e8c98a", K.CITY: "#f2e2b6",
                  K.FOREST: "#5f9e4f"}
TRIBE_COLOUR = ("#d62728", "#1f77b4", "#9467bd", "#ff7f0e")


def render_image(s, path: str | Path, title: str | None = None) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Rectangle

    n = s.size
    fig, ax = plt.subplots(figsize=(n * 0.55 + 1, n * 0.55 + 1.2), dpi=100)
    for i in range(n * n):
        x, y = divmod(i, n)
        ax.add_patch(Rectangle((y, n - 1 - x), 1, 1, facecolor=TERRAIN_COLOUR[s.terrain[i]],
                               edgecolor="white", linewidth=0.5))
        c = s.tile_city[i]
        if c:
            colour = TRIBE_COLOUR[s.cities[c].tribe % len(TRIBE_COLOUR)]
            ax.add_patch(Rectangle((y + 0.04, n - 1 - x + 0.04), 0.92, 0.92, fill=False,
                                   edgecolor=colour, linewidth=1.2, alpha=0.7))
        mark = (BUILDING_SYMBOL.get(s.building[i], "*") if s.building[i]
                else RESOURCE_SYMBOL.get(s.resource[i]))
        if mark:
            ax.text(y + 0.14, n - 1 - x + 0.84, mark, ha="center", va="center", fontsize=6,
                    color="black", fontweight="bold" if s.building[i] else "normal")
        if s.road[i]:
            ax.plot([y + 0.1, y + 0.9], [n - 1 - x + 0.5] * 2, color="#8c564b", linewidth=1)
        if s.terrain[i] == K.CITY and c:
            city = s.cities[c]
            colour = TRIBE_COLOUR[city.tribe % len(TRIBE_COLOUR)]
            ax.add_patch(Rectangle((y + 0.15, n - 1 - x + 0.15), 0.7, 0.7, facecolor=colour,
                                   alpha=0.35, edgecolor=colour))
            ax.text(y + 0.5, n - 1 - x + 0.82, f"L{city.level}", ha="center", va="center",
                    fontsize=6, color="black")
        uid = s.unit_at[i]
        if uid:
            u = s.units[uid]
            colour = TRIBE_COLOUR[u.tribe % len(TRIBE_COLOUR)]
            ax.text(y + 0.5, n - 1 - x + 0.45, UNIT_SYMBOL[u.type], ha="center", va="center",
                    fontsize=10, fontweight="bold", color=colour)
            ax.text(y + 0.5, n - 1 - x + 0.12, str(u.hp), ha="center", va="center", fontsize=5)
    ax.set_xlim(0, n)
    ax.set_ylim(0, n)
    ax.set_aspect("equal")
    ax.set_xticks([k + 0.5 for k in range(n)], [str(k) for k in range(n)], fontsize=6)
    ax.set_yticks([n - 1 - k + 0.5 for k in range(n)], [str(k) for k in range(n)], fontsize=6)
    scores = ", ".join(f"{K.TRIBE_NAMES[t.key]} {t.score}" for t in s.tribes)
    ax.set_title(title or f"round {s.tick}, player {s.current} to play — {scores}\n"
                 "letters: units (W warrior, R rider, D defender, ...), small: resource or "
                 "building; frame colour: territory", fontsize=7)
    fig.tight_layout()
    save_figure(fig, path)
    plt.close(fig)
