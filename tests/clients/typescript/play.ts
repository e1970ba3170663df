// A front-end's game loop, written against a client generated from openapi/openapi.json
// (openapi-typescript for the types, openapi-fetch for the calls): one game of every
// variant the server lists, to its end, one seat ours and the others bots. Each turn it
// reads the game, narrows it by `variant`, checks the move it picks from `legal_moves`
// against the typed `state` (as a front-end drawing the board would read it), and sends
// the move back as listed, with If-Match. Afterwards it reads the game's event log,
// narrowed by event `type`, its record and (backgammon) its match file.
//
//   node build/play.js http://127.0.0.1:8080
import createClient from "openapi-fetch";
import type { components, paths } from "./generated/worp.js";

type Schemas = components["schemas"];
type Game = Schemas["Game"];
type Variant = Game["variant"];
type Move = Schemas["MoveRequest"]["move"];

/** Our seat in every game: we create it and the bots take the others. */
const OURS = 0;
/** The longest game we wait for, in our own moves: a game longer than this is a failure. */
const MOST_MOVES = 3000;

/** Every variant this client can play. A variant added to the document fails to compile
 * here until it is handled (`Record` over the document's `variant` union). */
const PLAYED: Record<Variant, true> = {
  mens_erger_je_niet: true,
  backgammon: true,
  ali_baba: true,
  hoofden: true,
  ludo: true,
};
function isPlayed(name: string): name is Variant {
  return Object.hasOwn(PLAYED, name);
}

const base = process.argv[2];
if (base === undefined) {
  throw new Error("usage: node build/play.js <server base URL>");
}
const anonymous = createClient<paths>({ baseUrl: base });

function fail(what: string, problem: Schemas["Problem"] | undefined, response: Response): never {
  throw new Error(`${what}: HTTP ${response.status} ${JSON.stringify(problem)}`);
}

function check(condition: boolean, what: string): asserts condition {
  if (!condition) {
    throw new Error(`check failed: ${what}`);
  }
}

function pick<T>(moves: T[]): T {
  const move = moves[Math.floor(Math.random() * moves.length)];
  check(move !== undefined, "our move is awaited, so some move is legal");
  return move;
}

function unhandled(game: never): never {
  throw new Error(`a variant this client does not know: ${JSON.stringify(game)}`);
}

// One function per variant: read the typed state a board would be drawn from, pick a
// legal move, and check that it moves something of ours from where the state has it.

/** A backgammon move other than an offer to resign: a checker move or a decision. */
type BackgammonPlay =
  | Extract<Schemas["BackgammonMove"], string>
  | Schemas["BackgammonCheckerMove"];
/** We play on: never offer to resign, accept a resignation or pass a double. */
function isBackgammonPlay(move: Schemas["BackgammonMove"]): move is BackgammonPlay {
  return typeof move === "string" ? move !== "accept" && move !== "pass" : "steps" in move;
}

function backgammon(game: Schemas["BackgammonGame"]): Move {
  const { state } = game;
  check(state.board.length === 24, "24 points");
  const side = state.to_move;
  const mine = (n: number) => (side === "white" ? n > 0 : n < 0);
  const onBoard = state.board.filter(mine).reduce((sum, n) => sum + Math.abs(n), 0);
  check(onBoard + state.bar[side] + state.off[side] === 15, `${side} has 15 checkers`);
  const move = pick(game.legal_moves.filter(isBackgammonPlay));
  const offer = state.offer?.kind;
  if (typeof move === "string") {
    // A decision, with the cube in play or an offer on the table.
    switch (move) {
      case "roll":
      case "double":
        check(state.phase === "roll_or_double", `${move} only before rolling`);
        break;
      case "take":
      case "pass":
        check(offer === "double", `${move} answers a double`);
        break;
      case "accept":
      case "decline":
        check(typeof offer === "object", `${move} answers an offer to resign`);
        break;
    }
    return move;
  }
  check(state.phase === "move", `checkers move in the move phase, not ${state.phase}`);
  check(move.steps.length <= 4, "at most four steps");
  const first = move.steps[0];
  if (first !== undefined) {
    if (first.from === "bar") {
      check(state.bar[side] > 0, `${side} enters from the bar only with checkers there`);
    } else {
      const point = state.board[first.from - 1];
      check(point !== undefined && mine(point), `${side} moves its own checker from ${first.from}`);
    }
  }
  return move;
}

function ludo(game: Schemas["LudoGame"]): Move {
  const { state } = game;
  const turn = state.turn;
  check(turn.phase === "move" && turn.seat === OURS, "ludo waits for our move");
  const me = state.seats[OURS];
  check(me !== undefined && !me.retired, "our seat plays");
  check(me.pawns.length === game.options.pawns, "as many pawns as the options say");
  const move = pick(game.legal_moves);
  const place = me.pawns[move.pawn];
  check(place !== undefined, `pawn ${move.pawn} is ours`);
  switch (move.action) {
    case "enter":
      check(place.at === "yard", "a pawn enters from the yard");
      break;
    case "move":
    case "home":
      check(place.at === "track" || place.at === "home_column", `pawn ${move.pawn} is on the board`);
      break;
  }
  return move;
}

function where(place: Schemas["MensErgerJeNietPlace"]): string {
  switch (place.at) {
    case "B":
      return "B";
    case "track":
      return `track ${place.step}`;
    case "home":
      return `home ${place.circle}`;
  }
}

function mensErgerJeNiet(game: Schemas["MensErgerJeNietGame"]): Move {
  const { state } = game;
  const stage = state.stage;
  check(stage.stage === "move", `mens-erger-je-niet waits for a move, not ${stage.stage}`);
  const colour = state.colours[stage.colour];
  check(colour !== undefined && colour.owner === OURS, `colour ${stage.colour} is ours`);
  check(colour.status === "playing", "the colour to move is in play");
  const move = pick(game.legal_moves);
  check(move.colour === stage.colour, "the colour to move moves");
  const from = colour.pawns[move.pawn];
  check(from !== undefined, `pawn ${move.pawn} exists`);
  check(where(from) !== where(move.to), `a move goes somewhere: ${where(from)}`);
  return move;
}

function aliBaba(game: Schemas["AliBabaGame"]): Move {
  const { state } = game;
  const stage = state.stage;
  check(stage.kind === "move" && stage.seat === OURS, "ali baba waits for our move");
  check(state.far_bank === game.options.planks + 1, "the far bank is beyond the last plank");
  const figures = state.figures[OURS];
  check(figures !== undefined && figures !== null, "our figures are on the board");
  const move = pick(game.legal_moves);
  check(figures[move.figure] === move.from, `our ${move.figure} stands on ${move.from}`);
  check(move.to === move.from + stage.roll, `it goes forward by the roll, ${stage.roll}`);
  check(move.to <= state.far_bank, "no further than the far bank");
  return move;
}

function hoofden(game: Schemas["HoofdenGame"]): Move {
  const { state } = game;
  check(state.turn === OURS, "hoofden waits for our move");
  check(state.plies_without_fight < 100, "not drawn yet");
  const move = pick(game.legal_moves);
  const pawn = state.board[move.from];
  check(pawn !== undefined && pawn.owner === OURS, `our pawn stands on ${move.from}`);
  const target = state.board[move.to];
  check(target === undefined || target.owner !== OURS, `${move.to} is empty or an attack`);
  return move;
}

function choose(game: Game): Move {
  switch (game.variant) {
    case "backgammon":
      return backgammon(game);
    case "ludo":
      return ludo(game);
    case "mens_erger_je_niet":
      return mensErgerJeNiet(game);
    case "ali_baba":
      return aliBaba(game);
    case "hoofden":
      return hoofden(game);
    default:
      return unhandled(game);
  }
}

type Api = ReturnType<typeof createClient<paths>>;

async function read(api: Api, id: string): Promise<Game> {
  const answer = await api.GET("/v1/games/{id}", { params: { path: { id } } });
  if (answer.data === undefined) {
    fail(`GET /v1/games/${id}`, answer.error, answer.response);
  }
  return answer.data;
}

/** The game's record (its inputs in order) and, for backgammon, its match file. */
async function checkExports(api: Api, game: Game, ourMoves: number): Promise<void> {
  const path = { id: game.id };
  const exported = await api.GET("/v1/games/{id}/export", {
    params: { path, query: { format: "record" } },
  });
  if (exported.data === undefined) {
    fail(`GET /v1/games/${game.id}/export?format=record`, exported.error, exported.response);
  }
  const record = exported.data;
  check(typeof record !== "string" && "steps" in record, "format=record answers a game record");
  check(record.variant === game.variant, "the record is of the game's variant");
  const moves = (record.steps ?? []).filter((step) => "move" in step).length;
  check(moves >= ourMoves, `the record has at least our ${ourMoves} moves (it has ${moves})`);
  if (game.variant === "backgammon") {
    const mat = await api.GET("/v1/games/{id}/export", {
      params: { path, query: { format: "mat" } },
      parseAs: "text",
    });
    if (mat.data === undefined) {
      fail(`GET /v1/games/${game.id}/export?format=mat`, mat.error, mat.response);
    }
    check(mat.data.includes("Game 1"), "format=mat answers a match file");
  }
}

/** The game's event log, every page of it, checked against the game and our moves. */
async function checkLog(api: Api, game: Game, ourMoves: number): Promise<void> {
  let after = 0;
  let moves = 0;
  let finished: Schemas["GameFinishedPayload"] | undefined;
  for (;;) {
    const page = await api.GET("/v1/games/{id}/events", {
      params: { path: { id: game.id }, query: { after, limit: 1000 } },
    });
    if (page.data === undefined) {
      fail(`GET /v1/games/${game.id}/events`, page.error, page.response);
    }
    for (const event of page.data.events) {
      switch (event.type) {
        case "move_played":
          if (event.payload.seat === OURS) {
            moves++;
          }
          break;
        case "game_finished":
          finished = event.payload;
          break;
        default:
          break;
      }
      after = event.seq;
    }
    if (page.data.next_after === undefined || page.data.next_after === null) {
      break;
    }
    after = page.data.next_after;
  }
  check(after === game.version, `the log ends at the game's version ${game.version}`);
  check(moves === ourMoves, `the log has our ${ourMoves} moves (it has ${moves})`);
  check(finished !== undefined, "the log ends with game_finished");
  check(finished.server_seed === game.server_seed, "it reveals the server seed the game shows");
}

async function play(api: Api, me: Schemas["CreatedPlayer"], variant: Variant, seats: number) {
  const started = Date.now();
  const requested: Schemas["SeatRequest"][] = [me.id];
  for (let seat = 1; seat < seats; seat++) {
    // Random bots: against a greedy one, which hits every blot it can, our random
    // backgammon moves made games of over 600 moves.
    requested.push({ bot: "random" });
  }
  // Backgammon with the doubling cube, so that decisions (roll or double, take or pass)
  // are among the legal moves too; every other game with its default options. (The
  // generated type requires every option that has a default: null and 0 are those.)
  const body: Schemas["CreateGame"] =
    variant === "backgammon"
      ? {
          variant,
          seats: requested,
          options: { cube: true, crawford: null, jacoby: null, match_length: 0 },
        }
      : { variant, seats: requested };
  const created = await api.POST("/v1/games", { body });
  if (created.data === undefined) {
    fail(`POST /v1/games (${variant})`, created.error, created.response);
  }
  const id = created.data.id;
  check(created.data.variant === variant, "the game is of the variant asked for");

  let moves = 0;
  let game = await read(api, id);
  while (game.status !== "finished") {
    // Bots move, and the server rolls, within the request that made it their turn: a
    // game that is not over awaits our move.
    check(
      game.awaiting.type === "move" && game.awaiting.seat === OURS && game.to_move === OURS,
      `${variant} awaits our move (it awaits ${JSON.stringify(game.awaiting)})`,
    );
    check(moves < MOST_MOVES, `${variant} finished within ${MOST_MOVES} moves of ours`);
    const move = choose(game);
    if (moves === 0) {
      // A client that saw an older version is told so (412), and nothing is played.
      const stale = await api.POST("/v1/games/{id}/moves", {
        params: { path: { id }, header: { "If-Match": `"${game.version - 1}"` } },
        body: { move },
      });
      check(stale.error !== undefined && stale.error.status === 412, "a stale If-Match is 412");
    }
    const played = await api.POST("/v1/games/{id}/moves", {
      params: { path: { id }, header: { "If-Match": `"${game.version}"` } },
      body: { move },
    });
    if (played.data === undefined) {
      fail(`POST /v1/games/${id}/moves`, played.error, played.response);
    }
    moves++;
    game = await read(api, id);
  }
  const result = game.result;
  check(result !== undefined && result !== null, `${variant} finished with a result`);
  check(game.awaiting.type === "finished", "a finished game awaits nothing");
  const reason = game.reason;
  check(reason !== undefined && reason !== null, `${variant} says why it ended`);
  const [mine, ...bots] = game.seats;
  check(mine !== undefined && mine.player_id === me.id && mine.name === me.name, "our seat, by name");
  check(bots.every((seat) => seat.bot === "random"), "the other seats are the bots asked for");
  await checkLog(api, game, moves);
  await checkExports(api, game, moves);
  console.log(
    `  ${variant}: finished after ${moves} moves of ours, ${game.version} events, ` +
      `${result.ending} (${reason}), winners ${JSON.stringify(result.winners)} ` +
      `(${Date.now() - started} ms)`,
  );
}

async function main(): Promise<void> {
  const listed = await anonymous.GET("/v1/variants");
  if (listed.data === undefined) {
    throw new Error(`GET /v1/variants: HTTP ${listed.response.status}`);
  }
  const registered = await anonymous.POST("/v1/players", { body: { name: "typescript client" } });
  if (registered.data === undefined) {
    fail("POST /v1/players", registered.error, registered.response);
  }
  const me = registered.data;
  const profile = await anonymous.GET("/v1/players/{id}", { params: { path: { id: me.id } } });
  if (profile.data === undefined) {
    fail(`GET /v1/players/${me.id}`, profile.error, profile.response);
  }
  check(profile.data.name === me.name, "anyone sees our name");
  // The first token may do anything: the client plays with a token of the scopes it
  // needs, made with it, and checks that the token may do no more.
  const first = createClient<paths>({
    baseUrl: base,
    headers: { Authorization: `Bearer ${me.token}` },
  });
  const made = await first.POST("/v1/players/me/tokens", {
    body: { name: "typescript client", scopes: ["game:read", "game:play", "challenge:write"], expires_in_days: 1 },
  });
  if (made.data === undefined) {
    fail("POST /v1/players/me/tokens", made.error, made.response);
  }
  const api = createClient<paths>({
    baseUrl: base,
    headers: { Authorization: `Bearer ${made.data.token}` },
  });
  const refused = await api.GET("/v1/players/me");
  check(refused.response.status === 403, "the scoped token may not read the account");

  const names = listed.data.map((variant) => variant.name);
  for (const variant of Object.keys(PLAYED)) {
    check(names.includes(variant), `GET /v1/variants lists ${variant}`);
  }
  for (const variant of listed.data) {
    check(isPlayed(variant.name), `this client plays ${variant.name}`);
    await play(api, me, variant.name, variant.min_seats);
  }
}

await main();
