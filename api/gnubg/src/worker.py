# A GNU Backgammon worker for Worp: run as `gnubg -t -q -p worker.py`. It reads one
# JSON request a line on stdin and answers each with one line on stdout that starts
# with "@worp " (gnubg prints its own lines beside them). A request names the state by
# its GNUBG ID (Position ID:Match ID), the dice when rolled, what is asked and how
# strongly to think:
#   {"id": 1, "gnubgid": "...", "dice": [3, 1], "ask": "move", "plies": 2, "noise": 0.0}
# ask "move": the best checker play, as gnubg's tuple of (from, to) pairs;
# ask "cube": the cubeful equities of no double, double/take and double/pass, from the
#             side of the player on roll (the doubler), and the cubeless chances;
# ask "resignation": the same, for the player on roll who offered to resign, and the
#             match winning chances of each outcome for the one who answers.
import gnubg
import json
import sys

gnubg.command("set display off")


def evalcontext(req):
    return {
        "cubeful": 1 if req.get("cubeful", True) else 0,
        "plies": int(req["plies"]),
        "deterministic": 1,
        "prune": 1,
        "noise": float(req["noise"]),
    }


def set_state(req):
    gnubg.command("set gnubgid " + req["gnubgid"])
    dice = req.get("dice") or []
    if len(dice) == 2:
        gnubg.command("set dice %d %d" % (dice[0], dice[1]))


def mwc_after(ci, player, points):
    """The match winning chance of `player` after winning `points` (negative: losing)."""
    length = ci["matchto"]
    need = [length - ci["score"][0], length - ci["score"][1]]
    other = 1 - player
    if points >= 0:
        need[player] -= points
    else:
        need[other] += points
    if need[player] <= 0:
        return 1.0
    if need[other] <= 0:
        return 0.0
    size = max(need)
    table = gnubg.met(size)
    # Post-Crawford: someone already stood one point away before this game.
    post = ci["crawford"] == 0 and 1 in (length - ci["score"][0], length - ci["score"][1])
    if post and 1 in need and need != [1, 1]:
        trailer = player if need[other] == 1 else other
        mwc = table[1 + trailer][need[trailer] - 1]
        return mwc if trailer == player else 1.0 - mwc
    return table[0][need[player] - 1][need[other] - 1]


def answer(req):
    ask = req["ask"]
    set_state(req)
    board = gnubg.board()
    ci = gnubg.cubeinfo()
    ec = evalcontext(req)
    if ask == "move":
        return {"move": list(gnubg.findbestmove(board, ci, ec))}
    if ask in ("cube", "resignation"):
        cube = gnubg.cfevaluate(board, ci, ec)
        chances = gnubg.evaluate(board, ci, ec)
        reply = {
            "no_double": cube[1],
            "take": cube[2],
            "pass": cube[3],
            "chances": list(chances[:5]),
        }
        if ask == "resignation" and ci["matchto"] > 0:
            me = ci["move"]
            reply["play_on_mwc"] = gnubg.eq2mwc(cube[0], ci)
            reply["resigned_mwc"] = [
                mwc_after(ci, me, -level * ci["cube"]) for level in (1, 2, 3)
            ]
        return reply
    raise ValueError("unknown ask: %r" % ask)


def main():
    print("@worp " + json.dumps({"ready": True, "version": 1}), flush=True)
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        try:
            req = json.loads(line)
        except ValueError as e:
            print("@worp " + json.dumps({"id": None, "error": "not JSON: %s" % e}), flush=True)
            continue
        try:
            reply = answer(req)
            reply["id"] = req.get("id")
        except Exception as e:  # noqa: BLE001 - every failure is told to the caller
            reply = {"id": req.get("id"), "error": "%s: %s" % (type(e).__name__, e)}
        print("@worp " + json.dumps(reply), flush=True)


main()
