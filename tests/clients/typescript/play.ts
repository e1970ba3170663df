// A front-end's game loop, written against a client generated from openapi/openapi.json
// (openapi-typescript for the types, openapi-fetch for the calls): one game of every
// variant the server lists, to its end, one seat ours and the others bots. Each turn it
// reads the game, picks one of `legal_moves` and sends it back as listed, with If-Match.
//
//   node build/play.js http://127.0.0.1:8080
import createClient from "openapi-fetch";
import type { components, paths } from "./generated/worp.js";

type Schemas = components["schemas"];
type Game = Schemas["GameView"];

/** The longest game we wait for, in our own moves: a game longer than this is a failure. */
const MOST_MOVES = 3000;

const base = process.argv[2];
if (base === undefined) {
  throw new Error("usage: node build/play.js <server base URL>");
}
const anonymous = createClient<paths>({ baseUrl: base });

function fail(what: string, problem: Schemas["Problem"] | undefined, response: Response): never {
  throw new Error(`${what}: HTTP ${response.status} ${JSON.stringify(problem)}`);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function main(): Promise<void> {
  const listed = await anonymous.GET("/v1/variants");
  if (listed.data === undefined) {
    throw new Error(`GET /v1/variants: HTTP ${listed.response.status}`);
  }
  const variants = listed.data;

  const registered = await anonymous.POST("/v1/players", { body: { name: "typescript client" } });
  if (registered.data === undefined) {
    fail("POST /v1/players", registered.error, registered.response);
  }
  const me = registered.data;
  const api = createClient<paths>({
    baseUrl: base,
    headers: { Authorization: `Bearer ${me.token}` },
  });

  for (const variant of variants) {
    const started = Date.now();
    // Seat 0 is ours; every other seat a bot.
    const seats: Schemas["CreateGame"]["seats"] = [me.id];
    for (let seat = 1; seat < variant.min_seats; seat++) {
      seats.push({ bot: seat % 2 === 0 ? "greedy" : "random" });
    }
    const created = await api.POST("/v1/games", { body: { variant: variant.name, seats } });
    if (created.data === undefined) {
      fail(`POST /v1/games (${variant.name})`, created.error, created.response);
    }
    const id = created.data.id;
    const ours = 0;

    let game: Game = created.data;
    let moves = 0;
    for (;;) {
      const read = await api.GET("/v1/games/{id}", { params: { path: { id } } });
      if (read.data === undefined) {
        fail(`GET /v1/games/${id}`, read.error, read.response);
      }
      game = read.data;
      if (game.status === "finished") {
        break;
      }
      const awaiting = game.awaiting;
      if (awaiting.type !== "move" || awaiting.seat !== ours) {
        // Bots move as soon as it is their turn; give them a moment.
        await sleep(20);
        continue;
      }
      if (moves >= MOST_MOVES) {
        throw new Error(`${variant.name}: not finished after ${moves} moves`);
      }
      const move = game.legal_moves[Math.floor(Math.random() * game.legal_moves.length)];
      if (move === undefined) {
        throw new Error(`${variant.name}: our move is awaited but no move is legal`);
      }
      const played = await api.POST("/v1/games/{id}/moves", {
        params: { path: { id }, header: { "If-Match": `"${game.version}"` } },
        body: { move },
      });
      if (played.data === undefined) {
        fail(`POST /v1/games/${id}/moves`, played.error, played.response);
      }
      moves++;
    }
    const result = game.result;
    if (result === undefined || result === null) {
      throw new Error(`${variant.name}: finished without a result`);
    }
    console.log(
      `  ${variant.name}: finished after ${moves} moves of ours, ${game.version} events, ` +
        `${result.ending}, winners ${JSON.stringify(result.winners)} (${Date.now() - started} ms)`,
    );
  }
}

await main();
