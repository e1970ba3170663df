#!/usr/bin/env python3
"""Checks the JSON Schemas Worp publishes for each game (GET /v1/variants) against what
the engine really produces, with an independent validator (Python's jsonschema, draft
2020-12): the options, and the state and every legal move after each step of the golden
game of every variant, replayed by `worp replay`, and of the extra records in this folder
(`<variant>.*.record.json`: e.g. a backgammon match with the doubling cube). Checks the
same against the typed schemas of the committed OpenAPI document (`BackgammonState`,
`BackgammonMove`, ...), and the golden export, events included, against its `Export` and
`StoredEvent` schemas.

Usage: variant_schemas.py PATH/TO/worp   (exits non-zero on the first mismatch)
"""
import json
import pathlib
import subprocess
import sys

import jsonschema

worp = sys.argv[1]
golden = pathlib.Path(__file__).resolve().parent.parent / "golden"
document = json.loads((golden.parent.parent / "openapi" / "openapi.json").read_text())


def in_document(name):
    """A validator of the document's schema `name`, its references resolved in the document."""
    schema = {"$ref": f"#/components/schemas/{name}", "components": document["components"]}
    return jsonschema.Draft202012Validator(schema)


def pascal(name):
    return "".join(w[:1].upper() + w[1:] for w in name.replace("-", "_").split("_") if w)


variants = json.loads(subprocess.run([worp, "variants"], capture_output=True, text=True, check=True).stdout)
failures = 0
for v in variants:
    name = v["name"]
    export = json.loads((golden / f"{name}.json").read_text())
    steps = []
    for e in export["events"]:
        p = e["payload"]
        if e["type"] == "dice_rolled":
            steps.append({"dice": p["values"]})
        elif e["type"] == "move_played":
            steps.append({"move": p["move"]})
        elif e["type"] == "seat_retired":
            steps.append({"retire": p["seat"]})
    records = [{"variant": name, "options": export["options"], "seats": len(export["seats"]), "steps": steps}]
    records += [json.loads(f.read_text()) for f in sorted(pathlib.Path(__file__).resolve().parent.glob(f"{name}.*.record.json"))]
    validators = {k: jsonschema.Draft202012Validator(v[k]) for k in ("options_schema", "state_schema", "move_schema")}
    typed = {k: in_document(pascal(name) + k) for k in ("Options", "State", "Move")}
    for k in validators:
        jsonschema.Draft202012Validator.check_schema(v[k])
    checked = 0
    errors = list(validators["options_schema"].iter_errors(v["default_options"]))
    errors += list(typed["Options"].iter_errors(v["default_options"]))
    errors += list(in_document("Export").iter_errors(export))
    for record in records:
        errors += list(validators["options_schema"].iter_errors(record["options"]))
        errors += list(typed["Options"].iter_errors(record["options"]))
        out = subprocess.run([worp, "replay"], input=json.dumps(record), capture_output=True, text=True, check=True)
        for line in out.stdout.splitlines():
            report = json.loads(line)
            errors += list(validators["state_schema"].iter_errors(report["state"]))
            errors += list(typed["State"].iter_errors(report["state"]))
            checked += 1
            for mv in report["legal_moves"]:
                errors += list(validators["move_schema"].iter_errors(mv))
                errors += list(typed["Move"].iter_errors(mv))
                checked += 1
    if errors:
        failures += 1
        print(f"{name}: {len(errors)} schema errors, first: {errors[0].message} at {list(errors[0].absolute_path)}")
    else:
        print(f"{name}: {checked} states and moves match the published schemas")
print(f"{len(variants) - failures} passed, {failures} failed")
sys.exit(1 if failures else 0)
