"""Position evaluation: board features from bitboards, named linear weight sets, and the Evaluator protocol.

A score is split in two so search can cache the expensive half:
  * `board(bits)`   - features of the field alone (holes, transitions, wells, T-slots...); cached per field;
  * `move(...)`     - features of the lock that produced it (landing height, eroded cells, clears, spins, B2B,
                      combo, perfect clear, wasted T).
A path's value is the sum of its moves' values plus the board value of the last field. Any evaluator with these
two methods (a learned one too) plugs into search through the `Evaluator` protocol.

Feature definitions (classic ones after Dellacherie and Thiery & Scherrer), on the 10-wide field, rows up to the
stack height; walls and floor count as filled:
  row_transitions     filled/empty changes along each row (walls included) over the 20 visible rows, so every
                      empty row below row 20 counts 2 (as in Thiery & Scherrer's MDPTetris; counting only the rows
                      up to the stack height, as before, adds a hidden 2-per-row height penalty)
  column_transitions  filled/empty changes up each column from the (filled) floor, the top cell counting against
                      the empty cell above it (as MDPTetris does)
  holes               empty cells with a filled cell above in the same column
  wells               sum over well runs (open cells above a column's top with both neighbours filled) of
                      1 + 2 + ... + depth. MDPTetris's "Dellacherie" variant also counts well cells under an
                      overhang and the empty cells below a well cell; the two differ only on fields with holes or
                      overhangs next to the well, and this one is kept (the modern weights are trained on it)
  hole_depth          for each hole, the filled cells above it in its column
  rows_with_holes     rows holding at least one hole
  bumpiness, aggregate_height, max_height    over column heights
  tsd_slots, tst_slots                       T-spin double / triple slots ready to be filled (see _t_slots)
  tslot_shapes        T-slot shapes whose rows are not both ready yet (see _t_shapes)
  well_depth          rows, from the lowest column's top up, that are full except that column (capped at 4:
                      how ready a Tetris is)
  top_half, top_quarter                      cells in rows 10+ and 15+ (danger)
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar, Protocol, runtime_checkable

import tomli_w

from ai.protocol import WEIGHTS_DIR
from game.board import Bitboard
from game.movement import Spin
from game.pieces import SHAPES, Piece, Rotation
from game.scoring import LockResult

_FIELD_ROWS = 20  # row transitions are counted over the visible field

BOARD_FEATURES = (
    "row_transitions",
    "column_transitions",
    "holes",
    "wells",
    "hole_depth",
    "rows_with_holes",
    "bumpiness",
    "aggregate_height",
    "max_height",
    "tsd_slots",
    "tst_slots",
    "tslot_shapes",
    "well_depth",
    "top_half",
    "top_quarter",
)
MOVE_FEATURES = (
    "landing_height",
    "eroded_cells",
    "lines",
    "clear1",
    "clear2",
    "clear3",
    "clear4",
    "tspin_mini",
    "tspin1",
    "tspin2",
    "tspin3",
    "perfect_clear",
    "attack",
    "b2b_chain",
    "b2b_break",
    "combo",
    "wasted_t",
)
ALL_FEATURES = BOARD_FEATURES + MOVE_FEATURES


def _t_slots(rows: list[int], top: int) -> tuple[int, int]:
    """Count T-spin double and triple slots that one T would fill, clearing 2 (resp. 3) rows.

    TSD slot at centre (x, y): row y is full except x-1..x+1, row y-1 full except x, and a roof cell at
    (x-1, y+1) or (x+1, y+1) makes the 3-corner rule hold. TST slot with the T pointing sideways at (x, y):
    rows y-1 and y+1 full except x, row y full except x and the side cell, and a roof over the side cell's
    opposite column two rows up (the usual TST overhang).
    """
    tsd = tst = 0
    for y in range(1, top + 1):
        below = rows[y - 1]
        empty_below = 1023 ^ below
        if empty_below & (empty_below - 1):
            continue  # more than one hole in the lower row
        if not empty_below:
            continue
        x = empty_below.bit_length() - 1
        row = rows[y]
        if 1 <= x <= 8 and row == 1023 ^ (0b111 << (x - 1)):
            above = rows[y + 1]
            if ((above >> (x - 1)) & 1 or (above >> (x + 1)) & 1) and not (above >> x) & 1:
                tsd += 1
        # TST: T vertical, stem into the side; rows y-1 and y+1 single hole at x, row y holes x and x+-1.
        if rows[y + 1] == below:  # rows holds 3 empty rows above the top, so y + 2 <= top + 2 exists
            for side in (-1, 1):
                sx = x + side
                if 0 <= sx <= 9 and row == 1023 ^ ((1 << x) | (1 << sx)):
                    roof = rows[y + 2]
                    if (roof >> x) & 1 == 0 and 0 <= x - side <= 9 and (roof >> (x - side)) & 1:
                        tst += 1
    return tsd, tst


def _t_shapes(rows: list[int], top: int) -> int:
    """T-slot shapes still being built: a T pointing down at (x, y) would fit, both bottom corners are filled,
    one top corner is filled (the overhang) and the cell above the centre is open, but the two rows would not both
    clear yet (complete slots count as tsd_slots instead). Found a row at a time with bit masks."""
    count = 0
    for y in range(1, top):
        row = rows[y]
        below = rows[y - 1]
        above = rows[y + 1]
        empty = 1023 ^ row
        shape = (
            empty
            & (empty << 1)
            & (empty >> 1)  # x-1, x, x+1 open
            & ~below
            & (below << 1)
            & (below >> 1)  # stem hole, both bottom corners filled
            & ((above << 1) | (above >> 1))
            & ~above  # an overhang corner, the centre column open above
            & 0x1FE
        )
        while shape:
            low = shape & -shape
            shape ^= low
            x = low.bit_length() - 1
            if not (row | (0b111 << (x - 1)) == 1023 and below | low == 1023):
                count += 1
    return count


_ALL_ROWS = sum(1023 << (10 * y) for y in range(40))
_COL_MASKS = [sum(1 << (10 * y + x) for y in range(40)) for x in range(10)]
_INNER = sum(511 << (10 * y) for y in range(40))  # bits x = 0..8: transitions between x and x + 1 in a row
_NOT_COL0 = _ALL_ROWS ^ _COL_MASKS[0]
_NOT_COL9 = _ALL_ROWS ^ _COL_MASKS[9]
_ROWS_BELOW = [(1 << (10 * n)) - 1 for n in range(41)]


def board_features(bits: Bitboard) -> dict[str, float]:
    """Every board feature of a field (see the module docstring), with whole-board integer operations.

    The field is one int, so a shift by 10 moves every cell up a row and a shift by 1 moves it sideways: column
    transitions, holes, heights and wells become a handful of big-int operations instead of a loop over rows.
    Equal to the column-by-column definitions in tests/oracle_eval.py (tested on random fields)."""
    top = (bits.bit_length() + 9) // 10
    field_rows = max(top, _FIELD_ROWS)
    field = _ROWS_BELOW[field_rows]
    # Row transitions: inside each row, plus an empty cell against either wall.
    empty = field & ~bits
    row_trans = (
        ((bits ^ (bits >> 1)) & _INNER & field).bit_count()
        + (empty & _COL_MASKS[0]).bit_count()
        + (empty & _COL_MASKS[9]).bit_count()
    )
    # Column transitions: each cell against the one below it, the floor counting as filled.
    col_trans = (bits ^ ((bits << 10) | 1023)).bit_count()
    # Cells with a filled cell somewhere above (smear the field downwards in log steps).
    cover = bits >> 10
    cover |= cover >> 10
    cover |= cover >> 20
    cover |= cover >> 40
    cover |= cover >> 80
    cover |= cover >> 160
    cover |= cover >> 320  # 63 rows in all: every row of the 40-row field
    hole_mask = cover & ~bits
    holes = hole_mask.bit_count()
    hole_depth = rows_with_holes = 0
    if holes:
        rest = hole_mask
        y = 0
        while rest:
            if rest & 1023:
                rows_with_holes += 1
            rest >>= 10
            y += 1
        m = hole_mask
        while m:  # holes are few: count the filled cells above each
            low = m & -m
            m ^= low
            y, x = divmod(low.bit_length() - 1, 10)
            hole_depth += ((bits >> (10 * (y + 1))) & _COL_MASKS[x]).bit_count()
    solid = bits | cover  # every cell at or below its column's top
    heights = [(solid & column).bit_count() for column in _COL_MASKS]
    # Wells: open cells (above the column top) with both neighbours filled, walls counting as filled; a run of k
    # such cells counts 1 + ... + k: each cell adds the length of the run from it upwards.
    open_cells = field & ~solid
    well = open_cells & (((bits << 1) & _NOT_COL0) | _COL_MASKS[0]) & (((bits >> 1) & _NOT_COL9) | _COL_MASKS[9])
    wells = 0
    while well:
        wells += well.bit_count()
        well &= well >> 10
    bump = 0
    previous = heights[0]
    for height in heights[1:]:
        bump += abs(height - previous)
        previous = height
    rows = [(bits >> (10 * y)) & 1023 for y in range(top + 3)]  # 3 empty rows on top for the slot checks
    tsd, tst = _t_slots(rows, top)
    low = min(heights)
    well_x = heights.index(low)
    want = 1023 ^ (1 << well_x)
    well_depth = 0
    y = low
    while well_depth < 4 and y < top and rows[y] == want:
        well_depth += 1
        y += 1
    return {
        "row_transitions": row_trans,
        "column_transitions": col_trans,
        "holes": holes,
        "wells": wells,
        "hole_depth": hole_depth,
        "rows_with_holes": rows_with_holes,
        "bumpiness": bump,
        "aggregate_height": sum(heights),
        "max_height": top,
        "tsd_slots": tsd,
        "tst_slots": tst,
        "tslot_shapes": _t_shapes(rows, top),
        "well_depth": well_depth,
        "top_half": (bits >> 100).bit_count(),
        "top_quarter": (bits >> 150).bit_count(),
    }


@runtime_checkable
class Evaluator(Protocol):
    """What search needs from an evaluator. Higher is better."""

    name: str

    def board(self, bits: Bitboard) -> float:
        """Value of a field by itself (search caches it per field)."""
        ...

    def move(self, piece: Piece, rotation: Rotation, x: int, y: int, result: LockResult, b2b_before: int) -> float:
        """Value of the lock that led to a field."""
        ...


@dataclass(frozen=True)
class WeightSet:
    """A named linear weight vector over ALL_FEATURES (missing features weigh 0)."""

    name: str
    weights: dict[str, float]
    description: str = ""

    @classmethod
    def load(cls, name_or_path: str | Path) -> WeightSet:
        """Load `ai/weights/<name>.toml` or a TOML path: name, description, [weights] feature = number."""
        path = Path(name_or_path)
        if not path.suffix:
            path = WEIGHTS_DIR / f"{name_or_path}.toml"
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            known = ", ".join(sorted(p.stem for p in WEIGHTS_DIR.glob("*.toml")))
            raise ValueError(f"no weight set {str(name_or_path)!r} (built in: {known})") from None
        weights = {str(k): float(v) for k, v in data.get("weights", {}).items()}
        unknown = set(weights) - set(ALL_FEATURES)
        if unknown:
            raise ValueError(f"{path}: unknown features {sorted(unknown)}; known: {', '.join(ALL_FEATURES)}")
        return cls(str(data.get("name", path.stem)), weights, str(data.get("description", "")))

    def to_toml(self) -> str:
        """The set as TOML that `load` reads back to an equal set (any name or description text)."""
        weights = {key: float(value) for key, value in self.weights.items()}
        return tomli_w.dumps({"name": self.name, "description": self.description, "weights": weights})


@dataclass
class LinearEvaluator:
    """Weighted sum of features. Only features with a non-zero weight are computed where that saves time."""

    weights: WeightSet
    name: str = field(init=False)
    # A lock that clears nothing is worth a value fixed by piece, rotation and spin plus a constant times y
    # (search tabulates it instead of calling move for every quiet lock).
    linear_moves: ClassVar[bool] = True

    def __post_init__(self) -> None:
        self.name = self.weights.name
        w = self.weights.weights
        self._board = tuple((k, w[k]) for k in BOARD_FEATURES if w.get(k))
        self._move = tuple((k, w[k]) for k in MOVE_FEATURES if w.get(k))

    def board(self, bits: Bitboard) -> float:
        features = board_features(bits)
        return sum(weight * features[key] for key, weight in self._board)

    def move(self, piece: Piece, rotation: Rotation, x: int, y: int, result: LockResult, b2b_before: int) -> float:
        """The weighted sum of the move features (tests/oracle_eval.move_features), without a dict (hot path)."""
        w = self.weights.weights
        get = w.get
        lines = result.lines
        spin = result.spin
        is_t = piece is Piece.T
        t_spin = is_t and spin is not Spin.NONE and lines > 0
        value = get("landing_height", 0.0) * (y + _MID_HEIGHT[piece, rotation])
        if lines:
            if get("eroded_cells"):
                rows = result.cleared_rows
                value += w["eroded_cells"] * lines * sum(1 for dy in _CELL_ROWS[piece, rotation] if y + dy in rows)
            value += get("lines", 0.0) * lines
            if t_spin:
                if spin is Spin.FULL:
                    value += get(_TSPIN_KEYS[min(lines, 3)], 0.0)
            else:
                value += get(_CLEAR_KEYS[min(lines, 4)], 0.0)
            value += get("perfect_clear", 0.0) * result.perfect_clear + get("attack", 0.0) * result.attack
            value += get("b2b_chain", 0.0) * result.b2b_bonus + get("combo", 0.0) * max(result.combo, 0)
        if is_t:
            if spin is Spin.MINI:
                value += get("tspin_mini", 0.0)
            if not t_spin:
                value += get("wasted_t", 0.0)
        if b2b_before >= 0 and result.b2b < 0:
            value += get("b2b_break", 0.0)
        return value


_MID_HEIGHT = {key: (min(dy for _, dy in cells) + max(dy for _, dy in cells)) / 2 for key, cells in SHAPES.items()}
_CELL_ROWS = {key: tuple(dy for _, dy in cells) for key, cells in SHAPES.items()}
_TSPIN_KEYS = ("", "tspin1", "tspin2", "tspin3")
_CLEAR_KEYS = ("", "clear1", "clear2", "clear3", "clear4")


def load_evaluator(name_or_path: str | Path = "modern") -> LinearEvaluator:
    """A linear evaluator from a built-in weight set name (dellacherie, el-tetris, bcts, modern) or a path."""
    return LinearEvaluator(WeightSet.load(name_or_path))
