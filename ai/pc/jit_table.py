"""An open-addressing hash table in one int64 numpy array, for the compiled PC kernels (numba).

Slot i is the pair (table[2i], table[2i+1]) = (key a, key b << vbits | value): a probe touches one cache line,
where three parallel arrays (keys, keys, values) cost three cache misses; the search is bound by those misses.
`a` is never -1 (that marks an empty slot); `b` must fit in 63 - vbits bits and the value in vbits bits.
A table is cleared (`reset`) rather than grown: every table here is a cache of facts that can be recomputed.
"""

from __future__ import annotations

import threading

import numpy as np
from numba import njit, types

MISSING = -1


def kernel(function):
    """numba's njit as every PC kernel takes it: cached on disk, releasing the GIL, and without numba's runtime
    (NRT). The kernels never allocate (their scratch arrays come from Python), and with NRT every call that passes
    arrays updates an atomic reference count per array on the way in and out: perf put a third of a live-chance
    search in those updates, and bench/pc.py's chance searches run about 1.8x faster without them. A kernel may
    only call kernels: NRT code releases references its caller did not take here (tests/test_pc_kernels.py)."""
    dispatcher = njit(cache=True, nogil=True, _nrt=False)(function)
    typed_as_given = dispatcher.get_call_template

    def get_call_template(args, kws):
        """Typed for int64 where a kernel passes a constant (`_open(0, ...)`, `state_test(..., TILING_BUDGET,
        ...)`): numba would compile the callee again for that constant's literal type, beside the int64 version
        its other calls use. Fifteen kernels were compiled twice so, and the first live chance on a cold cache
        took 41 s of CPU to compile, 27 s without them (tests/test_pc_kernels.py)."""
        return typed_as_given(tuple(map(types.unliteral, args)), {k: types.unliteral(v) for k, v in kws.items()})

    dispatcher.get_call_template = get_call_template
    return dispatcher


# The compiled PC kernels keep scratch arrays and tables per process and release the GIL: one thread at a time
# may run them (the worker's warm-up thread runs searches beside the thread answering requests). Every Python
# entry to a kernel holds it for as long as it uses the shared arrays.
KERNEL_LOCK = threading.RLock()


def make(slots: int) -> np.ndarray:
    """A table of `slots` slots (a power of two), all empty."""
    assert slots & (slots - 1) == 0
    return np.full(2 * slots, MISSING, np.int64)


@kernel
def _slot(table, a, b, vbits):
    """Index of key (a, b)'s slot, or of the empty slot where it would go."""
    mask = (table.shape[0] >> 1) - 1
    i = (((a * -7046029254386353131) ^ (b * -4658895280553007687)) >> 20) & mask
    while True:
        key = table[2 * i]
        if key == MISSING or (key == a and (table[2 * i + 1] >> vbits) == b):
            return i
        i = (i + 1) & mask


@kernel
def get(table, a, b, vbits):
    """The value stored for (a, b), or MISSING."""
    i = _slot(table, a, b, vbits)
    if table[2 * i] == MISSING:
        return MISSING
    return table[2 * i + 1] & ((1 << vbits) - 1)


@kernel
def put(table, fill, a, b, vbits, value):
    """Store value for (a, b); fill[0] counts the slots in use."""
    i = _slot(table, a, b, vbits)
    if table[2 * i] == MISSING:
        table[2 * i] = a
        fill[0] += 1
    table[2 * i + 1] = (b << vbits) | value


@kernel
def popcount(x):
    """Set bits of a non-negative int64 (SWAR: no loop)."""
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    return ((x * 0x0101010101010101) >> 56) & 255


@kernel
def reset(table, fill):
    """Forget everything."""
    table[:] = MISSING
    fill[0] = 0


@kernel
def reset_if_half_full(table, fill):
    """Forget everything once half the slots are used (probes stay short); True if it did."""
    if fill[0] * 4 > table.shape[0]:
        reset(table, fill)
        return True
    return False


def forget_stale_cache(module: str, sources: list[str]) -> None:
    """numba's on-disk cache (cache=True) is checked against the timestamp of the kernel's own file only: a
    kernel that calls kernels of other modules keeps their old machine code after they change. So remember a
    digest of every source the kernels of `module` (its name; call this at the end of the module) are built from,
    next to the cache, and empty the cache index of every kernel the module defines when it differs. Every one: a
    list kept by hand left out ai.pc.jit_trie's `_tileable`, which calls jit_tiling.state_test; when the tiling
    tables changed their layout but not their types, it kept the old state test, read the new tables with it, and
    the trie search crashed. (A failure here only costs a recompilation.)"""
    import hashlib
    import sys
    from pathlib import Path

    from numba.core.registry import CPUDispatcher

    kernels: list = [  # numba dispatchers (their _cache is not in numba's types)
        value
        for value in vars(sys.modules[module]).values()
        if isinstance(value, CPUDispatcher) and value.py_func.__module__ == module
    ]
    digest = hashlib.sha256(b"".join(Path(source).read_bytes() for source in sources)).hexdigest()
    try:
        stamp = Path(kernels[0]._cache.cache_path) / f"{module.rpartition('.')[2]}.sources"
        if stamp.exists() and stamp.read_text(encoding="utf-8") == digest:
            return
        for kernel in kernels:
            kernel._cache.flush()
        stamp.write_text(digest, encoding="utf-8")
    except (AttributeError, IndexError, OSError):
        return
