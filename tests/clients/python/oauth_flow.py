"""An independent OAuth 2.0 client (authlib) against Worp, as a third-party front-end.

It reads the server's metadata (RFC 8414), sends the player's browser (Chromium, driven
by Playwright) to the authorisation page with PKCE S256, where the player signs in and
clicks "Authorise", receives the code on a loopback redirect (RFC 8252), exchanges it,
and plays a game of backgammon to its end with the access token. Then it refreshes (the
refresh token rotates), presents the old refresh token again (the whole grant is
revoked), authorises once more and revokes that token (RFC 7009): every token is then
refused.

    python oauth_flow.py <server base URL>
"""

from __future__ import annotations

import http.server
import json
import random
import sys
import threading
import urllib.parse
from typing import Any

import httpx
from authlib.common.security import generate_token
from authlib.integrations.httpx_client import OAuth2Client
from playwright.sync_api import Page, sync_playwright

PASSWORD = "gloomy otter paints the quay"
CLIENT_ID = "authlib test client"
SCOPE = "game:read game:play challenge:write"


def check(ok: bool, what: str) -> None:
    if not ok:
        raise SystemExit(f"FAILED: {what}")
    print(f"  ok: {what}")


class Callback(http.server.BaseHTTPRequestHandler):
    """The front-end's redirect URI: keeps the last redirect the browser was sent to."""

    received: list[str] = []
    ready = threading.Event()

    def do_GET(self) -> None:  # noqa: N802 (the standard library's name)
        # Only the redirect: the browser asks this server for /favicon.ico too, which
        # could otherwise be the last URL kept, without the code and state.
        if self.path.startswith("/callback"):
            Callback.received.append(self.path)
            Callback.ready.set()
        self.send_response(200)
        self.send_header("content-type", "text/plain")
        self.end_headers()
        self.wfile.write(b"You may close this window.")

    def log_message(self, *args: Any) -> None:
        pass


def consent(page: Page, url: str, name: str) -> str:
    """The player opens `url`, signs in if asked, and authorises: the callback URL."""
    Callback.ready.clear()
    page.goto(url)
    authorise = page.get_by_role("button", name="Authorise", exact=True)
    form = page.get_by_role("form", name="Sign in", exact=True)
    sign_in = form.get_by_role("button", name="Sign in", exact=True)
    authorise.or_(sign_in).first.wait_for(timeout=15000)
    if sign_in.is_visible():
        form.get_by_label("Name", exact=True).fill(name)
        form.get_by_label("Password", exact=True).fill(PASSWORD)
        sign_in.click()
    authorise.wait_for(timeout=15000)
    check(page.get_by_text(CLIENT_ID).first.is_visible(), "the consent screen names the client")
    authorise.click()
    check(Callback.ready.wait(15), "the browser came back to the redirect URI")
    return Callback.received[-1]


def play_backgammon(api: OAuth2Client, me: str) -> int:
    """A game against the random bot, to its end, with random legal moves: how many."""
    created = api.post(
        "/v1/games", json={"variant": "backgammon", "seats": [me, {"bot": "random"}]}
    )
    check(created.status_code == 201, f"the token creates a game ({created.status_code})")
    game = created.json()
    rng = random.Random(7)
    moves = 0
    while game["status"] != "finished":
        legal = game.get("legal_moves") or []
        if not legal:
            raise SystemExit(f"no legal move in an unfinished game: {json.dumps(game)[:500]}")
        played = api.post(f"/v1/games/{game['id']}/moves", json={"move": rng.choice(legal)})
        if played.status_code != 200:
            raise SystemExit(f"move refused: {played.status_code} {played.text}")
        game = played.json()
        moves += 1
        if moves > 2000:
            raise SystemExit("the game did not finish in 2,000 moves")
    return moves


def main(base: str) -> None:
    plain = httpx.Client(base_url=base, timeout=30)
    player = plain.post("/v1/players", json={"name": "authlib player"}).json()
    first = {"authorization": f"Bearer {player['token']}"}
    set_pw = plain.post("/v1/players/me/password", json={"password": PASSWORD}, headers=first)
    check(set_pw.status_code == 204, "the player sets a password")

    meta = plain.get("/.well-known/oauth-authorization-server").json()
    check(meta["code_challenge_methods_supported"] == ["S256"], "the metadata offers S256 only")

    server = http.server.HTTPServer(("127.0.0.1", 0), Callback)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    redirect_uri = f"http://127.0.0.1:{server.server_address[1]}/callback"

    def new_client() -> OAuth2Client:
        return OAuth2Client(
            client_id=CLIENT_ID,
            scope=SCOPE,
            redirect_uri=redirect_uri,
            code_challenge_method="S256",
            token_endpoint_auth_method="none",
            base_url=base,
            timeout=30,
        )

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path="/usr/bin/chromium", headless=True)
        page = browser.new_page()

        api = new_client()
        verifier = generate_token(64)
        url, state = api.create_authorization_url(
            meta["authorization_endpoint"], code_verifier=verifier
        )
        back = consent(page, url, player["name"])
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(back).query)
        check(query.get("state") == [state], "the state comes back unchanged")
        token = api.fetch_token(
            meta["token_endpoint"],
            authorization_response=f"http://127.0.0.1{back}",
            code_verifier=verifier,
            state=state,
        )
        check(token["token_type"].lower() == "bearer", "a bearer token is issued")
        check(token["scope"] == SCOPE, "with the scopes asked")
        moves = play_backgammon(api, player["id"])
        check(True, f"the token played a game of backgammon to its end ({moves} moves)")
        check(api.get("/v1/players/me").status_code == 403, "it may not read the account")

        old_refresh = token["refresh_token"]
        rotated = api.refresh_token(meta["token_endpoint"], refresh_token=old_refresh)
        check(rotated["refresh_token"] != old_refresh, "refreshing rotates the refresh token")
        check(api.get("/v1/players/me/games").status_code == 200, "the new access token works")
        reused = plain.post(
            meta["token_endpoint"],
            data={"grant_type": "refresh_token", "refresh_token": old_refresh, "client_id": CLIENT_ID},
        )
        check(
            reused.status_code == 400 and reused.json()["error"] == "invalid_grant",
            "the used refresh token is refused",
        )
        check(api.get("/v1/players/me/games").status_code == 401, "and its whole grant is revoked")
        again = plain.post(
            meta["token_endpoint"],
            data={
                "grant_type": "refresh_token",
                "refresh_token": rotated["refresh_token"],
                "client_id": CLIENT_ID,
            },
        )
        check(again.status_code == 400, "the newest refresh token with it")

        second = new_client()
        verifier = generate_token(64)
        url, state = second.create_authorization_url(
            meta["authorization_endpoint"], code_verifier=verifier
        )
        back = consent(page, url, player["name"])
        token = second.fetch_token(
            meta["token_endpoint"],
            authorization_response=f"http://127.0.0.1{back}",
            code_verifier=verifier,
            state=state,
        )
        check(second.get("/v1/players/me/games").status_code == 200, "a second grant works")
        revoked = second.revoke_token(
            meta["revocation_endpoint"], token=token["access_token"], token_type_hint="access_token"
        )
        check(revoked.status_code == 200, "revocation is answered 200")
        check(second.get("/v1/players/me/games").status_code == 401, "a revoked token is refused")
        after = plain.post(
            meta["token_endpoint"],
            data={
                "grant_type": "refresh_token",
                "refresh_token": token["refresh_token"],
                "client_id": CLIENT_ID,
            },
        )
        check(after.status_code == 400, "and so is its refresh token")
        browser.close()
    server.shutdown()
    print("the authlib client ran the whole flow")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: python oauth_flow.py <server base URL>")
    main(sys.argv[1])
