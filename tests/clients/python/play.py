"""A front-end's game loop, written against a client generated from openapi/openapi.json
by openapi-python-client: one game of every variant the server lists, to its end, one
seat ours and the others bots. Each turn it reads the game, narrows it by its class (one
per variant), checks the move it picks from `legal_moves` against the typed `state` (as
a front-end drawing the board would read it), and sends the move back as listed, with
If-Match. Afterwards it reads the game's event log, narrowed by event class, and its
record (reading.py).

    PYTHONPATH=generated python play.py http://127.0.0.1:8080
"""

from __future__ import annotations

import random
import sys
import time
from typing import NoReturn, TypeVar, assert_never
from uuid import UUID

from worp_client import AuthenticatedClient, Client
from worp_client.api.games import create_game, list_events, play_move
from worp_client.api.accounts import create_token
from worp_client.api.players import create_player, get_me, get_player
from worp_client.api.variants import list_variants
from worp_client.models import (
    AliBabaGame,
    AliBabaMove,
    AliBabaStageMove,
    AwaitingMove,
    AwaitingFinished,
    BackgammonCheckerMove,
    BackgammonDecisionRoll,
    BackgammonDecisionDouble,
    BackgammonDecisionTake,
    BackgammonDecisionPass,
    BackgammonDecisionResign,
    BackgammonDecisionAccept,
    BackgammonDecisionDecline,
    BackgammonGame,
    BackgammonOriginBar,
    BackgammonSide,
    BotKind,
    CreateAliBabaGame,
    CreateAliBabaGameVariant,
    CreateBackgammonGame,
    CreateBackgammonGameVariant,
    CreatedPlayer,
    CreateHoofdenGame,
    CreateHoofdenGameVariant,
    CreateLudoGame,
    CreateLudoGameVariant,
    CreateMensErgerJeNietGame,
    CreateMensErgerJeNietGameVariant,
    EventPage,
    FinishReason,
    GameFinishedEvent,
    GameResult,
    HoofdenGame,
    HoofdenMove,
    LudoGame,
    LudoMoveEnter,
    LudoMoveMove,
    LudoMoveHome,
    LudoPlaceYard,
    LudoPlaceTrack,
    LudoPlaceHomeColumn,
    LudoTurnMove,
    MensErgerJeNietColourStatus,
    MensErgerJeNietGame,
    MensErgerJeNietMove,
    MensErgerJeNietPlaceB,
    MensErgerJeNietPlaceTrack,
    MensErgerJeNietPlaceHome,
    MensErgerJeNietStageMove,
    MovePlayedEvent,
    NewTokenRequest,
    NewTokenView,
    MoveRequest,
    NewPlayer,
    PlayerProfile,
    Problem,
    SeatRequestBot,
    Status,
    Scope,
)
from worp_client.types import Response, Unset

from reading import GAMES, Game, check_record, read

# Our seat in every game: we create it and the bots take the others.
OURS = 0
# The longest game we wait for, in our own moves: a game longer than this is a failure.
MOST_MOVES = 3000

Move = (
    AliBabaMove
    | BackgammonCheckerMove
    | BackgammonDecisionRoll
    | BackgammonDecisionDouble
    | BackgammonDecisionTake
    | BackgammonDecisionPass
    | BackgammonDecisionResign
    | BackgammonDecisionAccept
    | BackgammonDecisionDecline
    | HoofdenMove
    | LudoMoveEnter
    | LudoMoveMove
    | LudoMoveHome
    | MensErgerJeNietMove
)
CreateGame = (
    CreateAliBabaGame
    | CreateBackgammonGame
    | CreateHoofdenGame
    | CreateLudoGame
    | CreateMensErgerJeNietGame
)
Seats = list[None | SeatRequestBot | UUID]

T = TypeVar("T")
Parsed = TypeVar("Parsed")


def fail(what: str, response: Response[Parsed]) -> NoReturn:
    raise SystemExit(f"{what}: HTTP {response.status_code} {response.content!r}")


def expect(what: str, response: Response[Parsed], kind: type[T]) -> T:
    """The answer's body when it is a `kind`; otherwise the test fails with the answer."""
    if not isinstance(response.parsed, kind):
        fail(what, response)
    return response.parsed


def check(condition: bool, what: str) -> None:
    if not condition:
        raise SystemExit(f"check failed: {what}")


def pick(moves: list[T]) -> T:
    check(bool(moves), "our move is awaited, so some move is legal")
    return random.choice(moves)


# One function per variant: read the typed state a board would be drawn from, pick a
# legal move, and check that it moves something of ours from where the state has it.


def backgammon(game: BackgammonGame) -> Move:
    state = game.state
    check(len(state.board) == 24, "24 points")
    side = state.to_move
    white = side == BackgammonSide.WHITE

    def mine(n: int) -> bool:
        return n > 0 if white else n < 0

    on_bar = state.bar.white if white else state.bar.black
    off = state.off.white if white else state.off.black
    on_board = sum(abs(n) for n in state.board if mine(n))
    check(on_board + on_bar + off == 15, f"{side} has 15 checkers")
    move = pick(game.legal_moves)
    # A game without the cube (the default; the TypeScript client plays with it): no
    # decision is ever awaited, every legal move moves checkers.
    if not isinstance(move, BackgammonCheckerMove):
        raise SystemExit(f"a decision ({move}) in a game without the cube")
    check(state.phase.value == "move", f"checkers move in the move phase, not {state.phase}")
    check(len(move.steps) <= 4, "at most four steps")
    if move.steps:
        first = move.steps[0].from_
        if isinstance(first, BackgammonOriginBar):
            check(on_bar > 0, f"{side} enters from the bar only with checkers there")
        else:
            check(mine(state.board[first - 1]), f"{side} moves its own checker from {first}")
    return move


def ludo(game: LudoGame) -> Move:
    state = game.state
    turn = state.turn
    check(isinstance(turn, LudoTurnMove) and turn.seat == OURS, "ludo waits for our move")
    me = state.seats[OURS]
    check(not me.retired, "our seat plays")
    pawns = game.options.pawns
    check(not isinstance(pawns, Unset) and len(me.pawns) == pawns, "pawns as the options say")
    move = pick(game.legal_moves)
    place = me.pawns[move.pawn]
    if isinstance(move, LudoMoveEnter):
        check(isinstance(place, LudoPlaceYard), "a pawn enters from the yard")
    else:
        on_board = isinstance(place, (LudoPlaceTrack, LudoPlaceHomeColumn))
        check(on_board, f"pawn {move.pawn} is on the board")
    return move


def where(
    place: MensErgerJeNietPlaceB | MensErgerJeNietPlaceTrack | MensErgerJeNietPlaceHome,
) -> str:
    if isinstance(place, MensErgerJeNietPlaceB):
        return "B"
    if isinstance(place, MensErgerJeNietPlaceTrack):
        return f"track {place.step}"
    return f"home {place.circle.value}"


def mens_erger_je_niet(game: MensErgerJeNietGame) -> Move:
    state = game.state
    stage = state.stage
    if not isinstance(stage, MensErgerJeNietStageMove):
        raise SystemExit(f"mens-erger-je-niet waits for a move, not {stage}")
    colour = state.colours[stage.colour]
    check(colour.owner == OURS, f"colour {stage.colour} is ours")
    check(colour.status == MensErgerJeNietColourStatus.PLAYING, "the colour is in play")
    move = pick(game.legal_moves)
    check(move.colour == stage.colour, "the colour to move moves")
    start = where(colour.pawns[move.pawn])
    check(start != where(move.to), f"a move goes somewhere: {start}")
    return move


def ali_baba(game: AliBabaGame) -> Move:
    state = game.state
    stage = state.stage
    if not isinstance(stage, AliBabaStageMove) or stage.seat != OURS:
        raise SystemExit(f"ali baba waits for our move, not {stage}")
    planks = game.options.planks
    check(not isinstance(planks, Unset) and state.far_bank == planks + 1, "the far bank")
    figures = state.figures[OURS]
    if figures is None:
        raise SystemExit("our figures are on the board")
    move = pick(game.legal_moves)
    standing = {"robber": figures.robber, "lady": figures.lady, "officer": figures.officer}
    check(standing[move.figure.value] == move.from_, f"our {move.figure} is on {move.from_}")
    check(move.to == move.from_ + stage.roll, f"it goes forward by the roll, {stage.roll}")
    check(move.to <= state.far_bank, "no further than the far bank")
    return move


def hoofden(game: HoofdenGame) -> Move:
    state = game.state
    check(state.turn == OURS, "hoofden waits for our move")
    check(state.plies_without_fight < 100, "not drawn yet")
    move = pick(game.legal_moves)
    check(move.from_ in state.board, f"a pawn stands on {move.from_}")
    check(state.board[move.from_].owner == OURS, f"our pawn stands on {move.from_}")
    attack = move.to in state.board
    check(not attack or state.board[move.to].owner != OURS, f"{move.to} is empty or an attack")
    return move


def choose(game: Game) -> Move:
    match game:
        case BackgammonGame():
            return backgammon(game)
        case LudoGame():
            return ludo(game)
        case MensErgerJeNietGame():
            return mens_erger_je_niet(game)
        case AliBabaGame():
            return ali_baba(game)
        case HoofdenGame():
            return hoofden(game)
        case _:
            assert_never(game)


def create_request(variant: str, seats: Seats) -> CreateGame:
    match variant:
        case "backgammon":
            return CreateBackgammonGame(variant=CreateBackgammonGameVariant.BACKGAMMON, seats=seats)
        case "ludo":
            return CreateLudoGame(variant=CreateLudoGameVariant.LUDO, seats=seats)
        case "mens_erger_je_niet":
            variant_name = CreateMensErgerJeNietGameVariant.MENS_ERGER_JE_NIET
            return CreateMensErgerJeNietGame(variant=variant_name, seats=seats)
        case "ali_baba":
            return CreateAliBabaGame(variant=CreateAliBabaGameVariant.ALI_BABA, seats=seats)
        case "hoofden":
            return CreateHoofdenGame(variant=CreateHoofdenGameVariant.HOOFDEN, seats=seats)
    raise SystemExit(f"this client does not play {variant}")


def check_log(api: AuthenticatedClient, game: Game, our_moves: int) -> None:
    """The game's event log, every page of it, checked against the game and our moves."""
    after = 0
    moves = 0
    finished: GameFinishedEvent | None = None
    while True:
        page = expect(
            f"GET /v1/games/{game.id}/events",
            list_events.sync_detailed(game.id, client=api, after=after, limit=1000),
            EventPage,
        )
        for event in page.events:
            if isinstance(event, MovePlayedEvent) and event.payload.seat == OURS:
                moves += 1
            elif isinstance(event, GameFinishedEvent):
                finished = event
            after = event.seq
        if not isinstance(page.next_after, int):
            break
        after = page.next_after
    check(after == game.version, f"the log ends at the game's version {game.version}")
    check(moves == our_moves, f"the log has our {our_moves} moves (it has {moves})")
    if finished is None:
        raise SystemExit("the log ends with game_finished")
    check(finished.payload.server_seed == game.server_seed, "it reveals the server seed")


def play(api: AuthenticatedClient, me: CreatedPlayer, variant: str, seats: int) -> None:
    started = time.monotonic()
    requested: Seats = [me.id]
    # Random bots: against a greedy one, which hits every blot it can, our random
    # backgammon moves made games of over 600 moves.
    requested += [SeatRequestBot(bot=BotKind.RANDOM) for _ in range(1, seats)]
    created = create_game.sync_detailed(client=api, body=create_request(variant, requested))
    if not isinstance(created.parsed, GAMES):
        fail(f"POST /v1/games ({variant})", created)
    game_id = created.parsed.id
    check(created.parsed.variant.value == variant, "the game is of the variant asked for")

    moves = 0
    game = read(api, game_id)
    while game.status != Status.FINISHED:
        # Bots move, and the server rolls, within the request that made it their turn: a
        # game that is not over awaits our move.
        awaiting = game.awaiting
        check(
            isinstance(awaiting, AwaitingMove) and awaiting.seat == OURS and game.to_move == OURS,
            f"{variant} awaits our move (it awaits {awaiting})",
        )
        check(moves < MOST_MOVES, f"{variant} finished within {MOST_MOVES} moves of ours")
        move = choose(game)
        if moves == 0:
            # A client that saw an older version is told so (412), and nothing is played.
            stale = play_move.sync_detailed(
                game_id, client=api, body=MoveRequest(move=move), if_match=f'"{game.version - 1}"'
            )
            problem = stale.parsed
            check(isinstance(problem, Problem) and problem.status == 412, "stale If-Match: 412")
        played = play_move.sync_detailed(
            game_id, client=api, body=MoveRequest(move=move), if_match=f'"{game.version}"'
        )
        if not isinstance(played.parsed, GAMES):
            fail(f"POST /v1/games/{game_id}/moves", played)
        moves += 1
        game = read(api, game_id)
    result = game.result
    if not isinstance(result, GameResult):
        raise SystemExit(f"{variant} finished without a result")
    check(isinstance(game.awaiting, AwaitingFinished), "a finished game awaits nothing")
    reason = game.reason
    if not isinstance(reason, FinishReason):
        raise SystemExit(f"{variant} does not say why it ended")
    mine, *bots = game.seats
    check(mine.player_id == me.id and mine.name == me.name, "our seat, by name")
    check(all(seat.bot == BotKind.RANDOM for seat in bots), "the other seats: the bots asked for")
    check_log(api, game, moves)
    check_record(api, game, moves)
    elapsed = int((time.monotonic() - started) * 1000)
    print(
        f"  {variant}: finished after {moves} moves of ours, {game.version} events, "
        f"{result.ending.value} ({reason.value}), winners {result.winners} ({elapsed} ms)"
    )


def main(base: str) -> None:
    # Listing the games, registering and reading a profile need no token, so a generated
    # client must let them be called without one. A document that makes the generator
    # demand an AuthenticatedClient for them fails the type check here: e.g. operations
    # marked `security: [{}]`, which openapi-python-client reads as needing a token
    # (`security: []` says "none" in a way it understands).
    anonymous = Client(base_url=base, raise_on_unexpected_status=True)
    listed = list_variants.sync_detailed(client=anonymous)
    if not isinstance(listed.parsed, list):
        fail("GET /v1/variants", listed)
    me = expect(
        "POST /v1/players",
        create_player.sync_detailed(client=anonymous, body=NewPlayer(name="python client")),
        CreatedPlayer,
    )
    profile = expect(
        f"GET /v1/players/{me.id}", get_player.sync_detailed(me.id, client=anonymous), PlayerProfile
    )
    check(profile.name == me.name, "anyone sees our name")
    # The first token may do anything: the client plays with a token of the scopes it
    # needs, made with it, and checks that the token may do no more.
    first = AuthenticatedClient(base_url=base, token=me.token, raise_on_unexpected_status=True)
    scoped = expect(
        "POST /v1/players/me/tokens",
        create_token.sync_detailed(
            client=first,
            body=NewTokenRequest(
                name="python client",
                scopes=[Scope("game:read"), Scope("game:play"), Scope("challenge:write")],
                expires_in_days=1,
            ),
        ),
        NewTokenView,
    )
    api = AuthenticatedClient(base_url=base, token=scoped.token, raise_on_unexpected_status=False)
    refused = get_me.sync_detailed(client=api)
    check(refused.status_code == 403, "the scoped token may not read the account")
    api = AuthenticatedClient(base_url=base, token=scoped.token, raise_on_unexpected_status=True)
    names = [variant.name for variant in listed.parsed]
    for variant in ["mens_erger_je_niet", "backgammon", "ali_baba", "hoofden", "ludo"]:
        check(variant in names, f"GET /v1/variants lists {variant}")
    for info in listed.parsed:
        play(api, me, info.name, info.min_seats)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: python play.py <server base URL>")
    main(sys.argv[1])
