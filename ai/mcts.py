"""Monte Carlo tree search behind the same `Engine` interface as the beam search.

Each iteration: select down the tree with UCB1 (values normalised by the spread seen so far, so the constant
does not depend on the evaluator's scale) among the statically best ~2*sqrt(visits) children (progressive
widening; unvisited ones are tried in order of their static evaluation),
expand one node (all placements of its piece, with and without hold, as in the beam search), run an
evaluation-guided rollout (greedy on the static evaluation over a few more pieces, with a seeded epsilon of
random top-3 choices), and back the path value up (sum of move values + the final field's value, the same
objective the beam search maximises). Pieces past the previews are sampled from the randomizer model (exact bag
state): once when a node is expanded (that node's children then share the sample) and afresh in every rollout.
The answer is the most visited root move. Anytime: iterations stop at the budget's time, node count or `should_stop`.
"""

from __future__ import annotations

import math
import time
from collections.abc import Hashable
from dataclasses import dataclass

from ai.search import DEAD, BeamEngine, Budget, SearchState, Suggestion, _Node, _OutOfTime, deadline_for
from game.pieces import Piece
from game.randomizer import RANDOMIZERS


@dataclass
class _Tree:
    node: _Node
    seq: tuple[Piece, ...]  # known pieces (current + queue) plus any sampled ones on this path
    bag_state: Hashable  # randomizer state after the last piece of seq
    children: list[_Tree] | None = None  # None: not expanded yet
    visits: int = 0
    total: float = 0.0


class MctsEngine(BeamEngine):
    """UCB1 tree search with evaluation-guided rollouts; constructor as BeamEngine plus the MCTS knobs."""

    name = "mcts"

    def __init__(
        self, *args, exploration: float = 0.7, rollout_depth: int = 2, rollout_epsilon: float = 0.1, **kwargs
    ) -> None:
        super().__init__(*args, **kwargs)
        self.exploration = exploration
        self.rollout_depth = rollout_depth
        self.rollout_epsilon = rollout_epsilon
        self._low = math.inf
        self._high = -math.inf

    def suggest(self, state: SearchState, budget: Budget | None = None) -> Suggestion | None:
        budget = budget or self.default_budget
        panic = self._use_evaluator(state)
        self._stop_at = None
        started = time.perf_counter()
        deadline = deadline_for(budget, started)
        seq = (state.current,) + tuple(state.queue)
        root_node = _Node(0.0, 0.0, state.board.bits, state.hold, 0, state.b2b, state.combo, None)
        kids = self._expand(root_node, seq, allow_hold=state.hold_available)
        if not kids:
            return None
        children = [_Tree(kid, seq, state.bag_state) for kid in kids]
        children.sort(key=lambda t: t.node.value, reverse=True)
        root = _Tree(root_node, seq, state.bag_state, children)
        self._low, self._high = math.inf, -math.inf
        for child in children:
            self._note(child.node.value)
        # Unknown randomizer names (e.g. TBP's "unknown") fall back to uniform pieces.
        model = self._model(state.randomizer if state.randomizer in RANDOMIZERS else "random")
        iterations = 0
        max_iterations = budget.max_nodes
        if deadline is None and max_iterations is None and budget.should_stop is None:
            max_iterations = 4 * len(children)  # no limit given: a fixed, reproducible amount of work
        stopped = False
        self._stop_at = deadline
        try:
            while True:
                if max_iterations is not None and iterations >= max_iterations:
                    break
                if self._out_of_budget(Budget(max_nodes=None, should_stop=budget.should_stop), deadline, 0):
                    stopped = True
                    break
                self._iterate(root, model)
                iterations += 1
        except _OutOfTime:
            stopped = True
        finally:
            self._stop_at = None
        best_visits = max(child.visits for child in children)
        if best_visits == 0:
            best_tree = max(children, key=lambda t: t.node.value)
        else:
            contenders = [c for c in children if c.visits == best_visits]
            top = max(c.total / c.visits for c in contenders)
            ties = [c for c in contenders if c.total / c.visits == top]
            best_tree = ties[0] if len(ties) == 1 else self.rng.choice(ties)
        raw, hold_used, piece = best_tree.node.root_move()
        move = self._move_of(state.board.bits, piece, raw, hold_used)
        score = best_tree.total / best_tree.visits if best_tree.visits else best_tree.node.value
        return Suggestion(
            move=move,
            score=score,
            info={
                "iterations": iterations,
                "visits": best_tree.visits,
                "stopped": stopped,
                "ms": (time.perf_counter() - started) * 1000,
                "engine": self.name,
                "panic": panic,
            },
        )

    # --- one iteration ------------------------------------------------------------------------------------------
    def _note(self, value: float) -> None:
        if value > DEAD / 2:
            self._low = min(self._low, value)
            self._high = max(self._high, value)

    def _iterate(self, root: _Tree, model) -> None:
        path = [root]
        tree = root
        while tree.children:
            tree = self._select(tree)
            path.append(tree)
            if tree.node.dead:
                break
            if tree.children is None:
                break
        if not tree.node.dead:
            if tree.children is None:
                self._expand_tree(tree, model)
            value = self._rollout(tree, model)
        else:
            value = tree.node.value
        self._note(value)
        for visited in path:
            visited.visits += 1
            visited.total += value

    def _select(self, tree: _Tree) -> _Tree:
        # Progressive widening: only the statically best ~2*sqrt(n) children compete, so with ~70 placements per
        # piece the search deepens instead of visiting every placement once first.
        assert tree.children is not None  # only an expanded tree is selected from
        children = tree.children[: max(2, int(2 * math.sqrt(tree.visits + 1)))]
        for child in children:  # sorted by static value: the best unvisited child first
            if child.visits == 0:
                return child
        spread = self._high - self._low if self._high > self._low else 1.0
        log_n = math.log(tree.visits + 1)
        c = self.exploration
        return max(
            children,
            key=lambda t: (t.total / t.visits - self._low) / spread + c * math.sqrt(log_n / t.visits),
        )

    def _resolve(self, tree: _Tree, model) -> tuple[_Node, tuple[Piece, ...], Hashable]:
        """The node's sequence extended with sampled pieces until its next piece (and hold option) is known."""
        seq, bag_state = tree.seq, tree.bag_state
        need = tree.node.index + (2 if tree.node.hold is None and self.use_hold else 1)
        while len(seq) < need:
            outcomes = model.outcomes(bag_state)
            roll = self.rng.random()
            chosen = outcomes[-1]  # the last one if rounding leaves `roll` a hair above 0
            for outcome in outcomes:
                roll -= outcome[1]
                if roll <= 0:
                    chosen = outcome
                    break
            piece, _, after = chosen
            seq, bag_state = seq + (piece,), after
        return tree.node, seq, bag_state

    def _expand_tree(self, tree: _Tree, model) -> None:
        node, seq, bag_state = self._resolve(tree, model)
        kids = self._expand(node, seq)
        if not kids:
            tree.node.dead = True
            tree.node.value = DEAD + node.acc
            tree.children = []
            return
        tree.children = sorted((_Tree(kid, seq, bag_state) for kid in kids), key=lambda t: t.node.value, reverse=True)

    def _rollout(self, tree: _Tree, model) -> float:
        """Greedy play on the static evaluation (epsilon: a random one of the top 3) for a few pieces."""
        node = tree.node
        seq, bag_state = tree.seq, tree.bag_state
        for _ in range(self.rollout_depth):
            scratch = _Tree(node, seq, bag_state)
            node, seq, bag_state = self._resolve(scratch, model)
            kids = self._expand(node, seq)
            if not kids:
                return DEAD + node.acc
            kids.sort(key=lambda kid: kid.value, reverse=True)
            if self.rollout_epsilon and self.rng.random() < self.rollout_epsilon:
                node = self.rng.choice(kids[:3])
            else:
                node = kids[0]
            if node.dead:
                return node.value
        return node.value
