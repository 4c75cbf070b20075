"""What the submarines do: the true behaviour (the environment's) and the agent's model of it.

Both policies choose on the same state (after the cargo ships have moved) before any sub acts:

* **inside the sonar block** (Chebyshev distance <= 1 from the Navy ship): move out of it if
  an orthogonal move can (random among such moves); otherwise attack the Navy ship's cell if
  it is within reach (own cell or an orthogonal neighbour), else stay;
* **a cargo ship within reach** (own cell or an orthogonal neighbour): attack its cell
  (random among such cells);
* **otherwise intercept**: for a cargo ship c, the interception time is the smallest k >= 1
  such that the sub can reach, in at most k steps through cells outside the *current* sonar
  block, a cell within reach of c's position after k more moves of c; the sub takes the first
  step of a shortest path to the nearest such cell (random among equal first steps), or stays
  if it is on it already (it lies in wait). With no cargo ship reachable it closes in on the
  nearest cell of a live cargo ship's route; with no cargo ship left it stays.

The **true** target is the cargo ship intercepted soonest (random among ties), re-chosen
every step. The **believed** model (what the agent's planner simulates) gives each sub one
target, drawn uniformly among the live cargo ships, hunted until it is destroyed, then
another. Random choices come from `world.pick` (seed, step, sub, purpose).
"""

from __future__ import annotations

from games.navy.world import FAR, pick

STAY, MOVE, ATTACK = 0, 1, 2
TRUE, BELIEVED = "true", "believed"
POLICIES = (TRUE, BELIEVED)


def intercept(near_q: list[int], route: tuple[int, ...], idx: int, cells: int
              ) -> tuple[int, int]:
    """(interception time k, distance to the nearest cell within reach of the ship at time k)
    for a ship at `route[idx]`; (FAR, FAR) when it cannot be intercepted.

    Args:
        near_q: the sub's row of `world.Board.reach_distances`.
        route, idx: the ship's route and where on it the ship is.
        cells: the board's cell count (the longest wait worth checking beyond one lap).
    """
    n = len(route)
    for k in range(1, n + cells + 1):
        d = near_q[route[(idx + k) % n]]
        if d <= k:
            return k, d
    return FAR, FAR


def goals_at(b, dist_q: list[int], route: tuple[int, ...], idx: int, k: int, d: int) -> list[int]:
    pos = route[(idx + k) % len(route)]
    return [x for x in b.reach[pos] if dist_q[x] == d]


def choose(state, sid: int, dist: list[list[int]], blocked: int, pick=pick
           ) -> tuple[int, int]:
    """The action (kind, cell) of sub `sid` in `state` (its `target` may be drawn).

    Args:
        state: the state after the cargo ships moved.
        sid: the sub.
        dist: the board's distances outside the sonar block (`world.Board.distances` of
            the Navy ship's cell, -1 once it is destroyed).
        blocked: the sonar block's cells (a bit set; 0 without sonar).
        pick: the random choice, `world.pick` (seed, step, sub, purpose) by default; the
            exact belief passes one that enumerates every option.
    """
    b = state.board
    q = state.s_pos[sid]
    seed, t = state.seed, state.t
    navy = state.navy if state.navy_hp > 0 else -1
    if blocked >> q & 1:
        exits = [n for n in b.neighbours[q] if not blocked >> n & 1]
        if exits:
            return MOVE, pick(exits, seed, t, sid, 1)
        if navy in b.reach[q]:
            return ATTACK, navy
        return STAY, q
    live = [c for c in range(len(state.c_hp)) if state.c_hp[c] > 0]
    if not live:
        return STAY, q
    routes, cidx = state.c_route, state.c_idx
    reach_q = b.reach[q]
    cells = sorted({p for c in live if (p := routes[c][cidx[c]]) in reach_q})
    if cells:
        return ATTACK, pick(cells, seed, t, sid, 2)
    dist_q = dist[q]
    if state.policy == TRUE:
        candidates = live
    else:
        tg = state.s_target[sid]
        if tg < 0 or state.c_hp[tg] <= 0:
            tg = pick(live, seed, t, sid, 3)
            state.s_target[sid] = tg
        candidates = [tg]
    best, tied = FAR, []
    near_q = b.reach_distances(navy)[q]
    for c in candidates:
        k, d = intercept(near_q, routes[c], cidx[c], b.cells)
        if k < best:
            best, tied = k, [(c, d)]
        elif k == best and k < FAR:
            tied.append((c, d))
    if tied:
        c, d = pick(tied, seed, t, sid, 4)
        goals = goals_at(b, dist_q, routes[c], cidx[c], best, d)
    else:  # nothing reachable: close in on the nearest route cell
        cells_on = {x for c in candidates for x in routes[c]}
        d = min(dist_q[x] for x in cells_on)
        if d >= FAR:
            return STAY, q
        goals = [x for x in cells_on if dist_q[x] == d]
    if d == 0:
        return STAY, q
    steps = [n for n in b.neighbours[q] if any(dist[n][g] == d - 1 for g in goals)]
    return MOVE, pick(steps, seed, t, sid, 5)
