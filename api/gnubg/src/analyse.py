# GNU Backgammon's analysis of a match file for Worp: run as
# `gnubg -t -q -p analyse.py` with WORP_MAT (the .mat file) and WORP_PLIES set. It
# imports the match, analyses it at that many plies (checker play and cube), and
# prints one line that starts with "@worp ": gnubg's own match record with its
# analysis and statistics, and gnubg's rating of each player's error rate.
import gnubg
import json
import os

gnubg.command("set display off")
plies = int(os.environ["WORP_PLIES"])
gnubg.command("import mat " + os.environ["WORP_MAT"])
for part in ("chequerplay", "cubedecision"):
    gnubg.command("set analysis %s evaluation plies %d" % (part, plies))
gnubg.command("analyse match")
m = gnubg.match(1, 0, 1, 0)
ratings = {}
for player, s in (m.get("stats") or {}).items():
    decisions = s["moves"]["unforced-moves"] + s["cube"]["close-cube"]
    error = s["moves"]["error-skill"] + s["cube"]["error-skill"]
    ratings[player] = gnubg.errorrating(error / decisions) if decisions else 7
print("@worp " + json.dumps({"match": m, "ratings": ratings}, default=str), flush=True)
