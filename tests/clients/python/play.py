"""A front-end's game loop, written against a client generated from openapi/openapi.json
by openapi-python-client: one game of every variant the server lists, to its end, one
seat ours and the others bots. Each turn it reads the game, picks one of `legal_moves`
and sends it back as listed, with If-Match.

    PYTHONPATH=generated python play.py http://127.0.0.1:8080
"""

from __future__ import annotations

import random
import sys
import time
from typing import NoReturn, TypeVar
from uuid import UUID

from worp_client import AuthenticatedClient, Client
from worp_client.api.games import create_game, get_game, play_move
from worp_client.api.players import create_player
from worp_client.api.variants import list_variants
from worp_client.models import (
    BotKind,
    CreatedPlayer,
    CreateGame,
    GameResult,
    GameView,
    MoveRequest,
    NewPlayer,
    SeatRequestType1,
    Status,
    VariantInfo,
)
from worp_client.types import Response

# The longest game we wait for, in our own moves: a game longer than this is a failure.
MOST_MOVES = 3000

T = TypeVar("T")
Parsed = TypeVar("Parsed")


def fail(what: str, response: Response[Parsed]) -> NoReturn:
    raise SystemExit(f"{what}: HTTP {response.status_code} {response.content!r}")


def expect(what: str, response: Response[Parsed], kind: type[T]) -> T:
    """The answer's body when it is a `kind`; otherwise the test fails with the answer."""
    if not isinstance(response.parsed, kind):
        fail(what, response)
    return response.parsed


def play(api: AuthenticatedClient, me: CreatedPlayer, variant: VariantInfo) -> None:
    started = time.monotonic()
    # Seat 0 is ours; every other seat a bot.
    seats: list[None | SeatRequestType1 | UUID] = [me.id]
    for seat in range(1, variant.min_seats):
        kind = BotKind.GREEDY if seat % 2 == 0 else BotKind.RANDOM
        seats.append(SeatRequestType1(bot=kind))
    created = expect(
        f"POST /v1/games ({variant.name})",
        create_game.sync_detailed(
            client=api, body=CreateGame(variant=variant.name, seats=seats)
        ),
        GameView,
    )
    ours = 0
    moves = 0
    while True:
        game = expect(
            f"GET /v1/games/{created.id}",
            get_game.sync_detailed(created.id, client=api),
            GameView,
        )
        if game.status == Status.FINISHED:
            break
        if game.to_move != ours or not game.legal_moves:
            # Bots move as soon as it is their turn; give them a moment.
            time.sleep(0.02)
            continue
        if moves >= MOST_MOVES:
            raise SystemExit(f"{variant.name}: not finished after {moves} moves")
        move = random.choice(game.legal_moves)
        expect(
            f"POST /v1/games/{game.id}/moves",
            play_move.sync_detailed(
                game.id,
                client=api,
                body=MoveRequest(move=move),
                if_match=f'"{game.version}"',
            ),
            GameView,
        )
        moves += 1
    result = game.result
    if not isinstance(result, GameResult):
        raise SystemExit(f"{variant.name}: finished without a result")
    elapsed = int((time.monotonic() - started) * 1000)
    print(
        f"  {variant.name}: finished after {moves} moves of ours, {game.version} events, "
        f"{result.ending.value}, winners {result.winners} ({elapsed} ms)"
    )


def main(base: str) -> None:
    anonymous = Client(base_url=base, raise_on_unexpected_status=True)
    listed = list_variants.sync_detailed(client=anonymous)
    if not isinstance(listed.parsed, list):
        fail("GET /v1/variants", listed)
    variants: list[VariantInfo] = listed.parsed
    me = expect(
        "POST /v1/players",
        create_player.sync_detailed(
            client=anonymous, body=NewPlayer(name="python client")
        ),
        CreatedPlayer,
    )
    api = AuthenticatedClient(
        base_url=base, token=me.token, raise_on_unexpected_status=True
    )
    for variant in variants:
        play(api, me, variant)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: python play.py <server base URL>")
    main(sys.argv[1])
