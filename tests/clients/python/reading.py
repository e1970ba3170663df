"""The calls of play.py whose declared answers are not wholly typed: reading a game
(`GET /v1/games/{id}`: its 304 has no body, which the generated client leaves untyped)
and the game record (`GameRecord`: its `options` and the `move` of its steps are not
typed per variant). Kept apart so that play.py can be checked with `disallow_any_expr`
(no expression of the game code is untyped), and this module with the rest of `--strict`.
"""

from __future__ import annotations

from uuid import UUID

from worp_client import AuthenticatedClient
from worp_client.api.audit import export_game
from worp_client.api.games import get_game
from worp_client.models import (
    AliBabaGame,
    BackgammonGame,
    ExportFormat,
    GameRecord,
    HoofdenGame,
    LudoGame,
    MensErgerJeNietGame,
    StepMove,
)
from worp_client.types import Unset

Game = AliBabaGame | BackgammonGame | HoofdenGame | LudoGame | MensErgerJeNietGame
GAMES = (AliBabaGame, BackgammonGame, HoofdenGame, LudoGame, MensErgerJeNietGame)


def read(api: AuthenticatedClient, game_id: UUID) -> Game:
    """The game, one of the per-variant classes; anything else fails the test."""
    response = get_game.sync_detailed(game_id, client=api)
    parsed = response.parsed
    if not isinstance(parsed, GAMES):
        raise SystemExit(f"GET /v1/games/{game_id}: HTTP {response.status_code}")
    return parsed


def check_record(api: AuthenticatedClient, game: Game, our_moves: int) -> None:
    """The game's record: its inputs in order. (The backgammon match file, format=mat, is
    declared as text/plain beside the JSON answers; this generator parses only JSON.)"""
    response = export_game.sync_detailed(game.id, client=api, format_=ExportFormat.RECORD)
    record = response.parsed
    if not isinstance(record, GameRecord):
        raise SystemExit(f"GET /v1/games/{game.id}/export?format=record: {response.status_code}")
    if record.variant != game.variant.value:
        raise SystemExit(f"the record is of {record.variant}, not {game.variant.value}")
    steps = [] if isinstance(record.steps, Unset) else record.steps
    moves = len([step for step in steps if isinstance(step, StepMove)])
    if moves < our_moves:
        raise SystemExit(f"the record has {moves} moves, fewer than our {our_moves}")
