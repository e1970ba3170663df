"""Reading a game: `GET /v1/games/{id}`, the one call of play.py whose declared answers
include an untyped one (304, without a body, which the generated client leaves untyped).
Kept apart so that play.py can be checked with `disallow_any_expr` (no expression of the
game code is untyped), and this module with the rest of `--strict`.
"""

from __future__ import annotations

from uuid import UUID

from worp_client import AuthenticatedClient
from worp_client.api.games import get_game
from worp_client.models import (
    AliBabaGame,
    BackgammonGame,
    HoofdenGame,
    LudoGame,
    MensErgerJeNietGame,
)

Game = AliBabaGame | BackgammonGame | HoofdenGame | LudoGame | MensErgerJeNietGame
GAMES = (AliBabaGame, BackgammonGame, HoofdenGame, LudoGame, MensErgerJeNietGame)


def read(api: AuthenticatedClient, game_id: UUID) -> Game:
    """The game, one of the per-variant classes; anything else fails the test."""
    response = get_game.sync_detailed(game_id, client=api)
    parsed = response.parsed
    if not isinstance(parsed, GAMES):
        raise SystemExit(f"GET /v1/games/{game_id}: HTTP {response.status_code}")
    return parsed
