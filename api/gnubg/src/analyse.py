# GNU Backgammon's analysis of a match file for Worp: run as
# `gnubg -t -q -p analyse.py` with WORP_MAT (the .mat file) and WORP_PLIES set. It
# imports the match, analyses it at that many plies (checker play and cube), and
# prints one line that starts with "@worp ": gnubg's own match record with its
# analysis and statistics, and gnubg's ratings of error rates.
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

# In a match gnubg's record gives the cube's equities as match winning chances: each
# is turned into normalised equity (EMG) for the player deciding, with the cube as it
# stood then, as gnubg's own display does.
length = m["match-info"]["match-length"]
for g in m["games"]:
    score = (g["info"]["score-X"], g["info"]["score-O"])
    cube, owner = 1, -1
    for r in g["game"]:
        player = 0 if r.get("player") == "X" else 1
        a = r.get("analysis") or {}
        for key in ("nd-cubeful-eq", "dt-cubeful-eq"):
            if key in a:
                if length > 0:
                    ci = gnubg.cubeinfo(cube, owner, player, length, score, 0, 0)
                    a[key[:3] + "emg"] = gnubg.mwc2eq(a[key], ci)
                else:
                    a[key[:3] + "emg"] = a[key]
        if r.get("action") == "take":
            cube, owner = cube * 2, player
# gnubg's rating of an error rate, by tenths of a thousandth of EMG per decision.
ladder = [gnubg.errorrating(i / 10000.0) for i in range(0, 1000)]
print("@worp " + json.dumps({"match": m, "ratings": ladder}, default=str), flush=True)
