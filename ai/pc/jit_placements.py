"""`ai.pc.movegen.MoveGenerator.placements` compiled with numba (`placements_into`, with the work arrays of
`scratch()` so no call allocates): the same seeds (straight drops), hidden resting
spots and backward reachability search, on arrays instead of dicts, returning the placements in the same
order. `ai.pc.movegen` uses it when numba can be imported; tests compare the two on random fields.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ai.pc.jit_table import kernel
from game.movegen import STATE_COL as _COL
from game.movegen import STATE_ROT as _ROT
from game.movegen import STATE_ROW as _ROW

_STATES = 4 * _ROT
_P = _COL - 1  # sid & _P: the row index p = y + 8


@kernel
def _fits(masks, tops, bits, sid):
    if sid < 0 or sid >= masks.shape[0] or tops[sid] < 0:
        return False
    return (masks[sid] & bits) == 0


@njit(cache=True, nogil=True)  # it allocates, so it keeps numba's runtime: called from Python only
def scratch():
    """Work arrays for placements_into: (seed flags, unreachable flags, seen stamps, stack, trail, marked, stamp,
    seeds, hidden spots' cells and states, done flags, predecessors). Flags are cleared again before a call
    returns, so one set serves any number of calls (and no call allocates)."""
    return (
        np.zeros(_STATES, np.bool_),
        np.zeros(_STATES, np.bool_),
        np.zeros(_STATES, np.int64),
        np.empty(_STATES, np.int64),
        np.empty(_STATES, np.int64),
        np.empty(_STATES, np.int64),
        np.zeros(1, np.int64),
        np.empty(64, np.int64),
        np.empty(4096, np.int64),
        np.empty(4096, np.int64),
        np.zeros(4096, np.bool_),
        np.empty(256, np.int64),
    )


@kernel
def placements_into(  # noqa: C901 - a numba kernel: the whole breadth-first search in one compiled function
    bits,
    h,
    masks,
    tops,
    lows,
    xs_start,
    xs_count,
    xs,
    turn_start,
    turn_count,
    test_start,
    test_count,
    deltas,
    soft,
    out_mask,
    out_sid,
    out_hard,
    work,
):
    """Fill out_* with (mask, sid, hard) per placement inside rows 0..h-1, in ai.pc.movegen's order; return n.
    `work` is scratch() (left clean for the next call).

    masks[sid]: the cells in rows 0..5 (the field's rows; higher cells never meet a block), tops[sid]: the
    highest row of the cells, -1 where the state is off the table."""
    is_seed, unreachable, seen, stack, trail, marked, stamps, seeds, h_mask, h_sid, done, before = work
    n = 0
    ns = 0
    for rot in range(4):
        base = rot * _ROT + (h - lows[rot] + 8) * _ROW
        for k in range(xs_start[rot], xs_start[rot] + xs_count[rot]):
            sid = base + (xs[k] + 8) * _COL
            while _fits(masks, tops, bits, sid - _ROW):
                sid -= _ROW
            seeds[ns] = sid
            ns += 1
            is_seed[sid] = True
            mask = masks[sid]
            if tops[sid] < h:
                new = True
                for j in range(n):
                    if out_mask[j] == mask:
                        new = False
                        break
                if new:
                    out_mask[n] = mask
                    out_sid[n] = sid
                    out_hard[n] = True
                    n += 1
    if not soft:
        for s in range(ns):
            is_seed[seeds[s]] = False
        return n
    # hidden resting spots below the seeds that no straight drop reaches
    found = n
    nh = 0
    for s in range(ns):
        sid = seeds[s] - _ROW
        while sid >= 0 and tops[sid] >= 0:
            mask = masks[sid]
            if (mask & bits) == 0 and tops[sid] < h:
                new = True
                for j in range(found):
                    if out_mask[j] == mask:
                        new = False
                        break
                if new:
                    below = sid - _ROW
                    if below < 0 or tops[below] < 0 or (masks[below] & bits) != 0:
                        h_mask[nh] = mask
                        h_sid[nh] = sid
                        nh += 1
            sid -= _ROW
    if nh == 0:
        for s in range(ns):
            is_seed[seeds[s]] = False
        return n
    top = h + 4 + 8  # the row index p no state may reach (SKY = 4 rows above the field)
    nmarked = 0
    done[:nh] = False
    for first in range(nh):
        if done[first]:
            continue
        mask = h_mask[first]
        stamps[0] += 1
        stamp = stamps[0]
        sp = 0
        nt = 0
        for j in range(first, nh):
            if h_mask[j] == mask:
                done[j] = True
                sid = h_sid[j]
                if not unreachable[sid] and seen[sid] != stamp:
                    seen[sid] = stamp
                    stack[sp] = sid
                    sp += 1
                    trail[nt] = sid
                    nt += 1
        reached = False
        while sp > 0:
            sp -= 1
            sid = stack[sp]
            if is_seed[sid]:
                reached = True
                break
            nb = 0
            before[nb] = sid - _COL
            before[nb + 1] = sid + _COL
            nb += 2
            if not _fits(masks, tops, bits, sid - _ROW):
                above = sid + _ROW
                while above & _P < top and _fits(masks, tops, bits, above):
                    before[nb] = above
                    nb += 1
                    above += _ROW
            rot = sid // _ROT
            for t in range(turn_start[rot], turn_start[rot] + turn_count[rot]):
                for k in range(test_count[t]):
                    start = sid - deltas[test_start[t] + k]
                    if _fits(masks, tops, bits, start):
                        earlier = False
                        for d in range(k):
                            if _fits(masks, tops, bits, start + deltas[test_start[t] + d]):
                                earlier = True
                                break
                        if not earlier:
                            before[nb] = start
                            nb += 1
            for b in range(nb):
                prev = before[b]
                if prev < 0 or prev >= _STATES or seen[prev] == stamp or unreachable[prev]:
                    continue
                if prev & _P >= top or not _fits(masks, tops, bits, prev):
                    continue
                seen[prev] = stamp
                stack[sp] = prev
                sp += 1
                trail[nt] = prev
                nt += 1
        if reached:
            out_mask[n] = mask
            out_sid[n] = h_sid[first]
            out_hard[n] = False
            n += 1
        else:  # every state seen leads to no seed
            for t in range(nt):
                if not unreachable[trail[t]]:
                    unreachable[trail[t]] = True
                    marked[nmarked] = trail[t]
                    nmarked += 1
    for s in range(ns):
        is_seed[seeds[s]] = False
    for t in range(nmarked):
        unreachable[marked[t]] = False
    return n


def _forget_stale() -> None:
    import game.movegen
    from ai.pc import jit_table

    jit_table.forget_stale_cache(__name__, [__file__, jit_table.__file__, game.movegen.__file__])


_forget_stale()
