"""A loopback Web Push service, independent of Worp's implementation, for the tests.

It makes a browser's side of a push subscription: a P-256 key pair and a 16-byte auth
secret, and an endpoint URL of its own (http://127.0.0.1:PORT/push/<random>). It prints
one line of JSON to stdout:

    {"subscription": {"endpoint": ..., "keys": {"p256dh": ..., "auth": ...}},
     "control": "http://127.0.0.1:PORT/control"}

For each POST to an endpoint it checks what RFC 8030, 8291 and 8292 ask of the sender,
with `cryptography` and `http_ece` (never with Worp's code):
  - `Authorization: vapid t=<JWT>, k=<key>`: the JWT is ES256, signed by `k`, with
    `aud` = the endpoint's origin, `exp` in the future and within 24 hours, and `sub`
    a mailto: or https: URI; `k` is --vapid-key when that is given;
  - `Content-Encoding: aes128gcm` and a `TTL`;
  - the body decrypts (RFC 8291) with the subscription's private key and auth secret.
A message that passes is recorded, with its headers and claims; one that fails is
recorded with the reason and answered 400 (403 for VAPID). Then it answers 201, or what
it was told to answer next.

Control (JSON):
  GET  /control/messages        every message received, oldest first
  POST /control/answer          {"status": 410}: answer the next POST (any endpoint) so
  POST /control/subscriptions   a new subscription (another device), as printed above
"""

import argparse
import base64
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

import http_ece
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class Refused(Exception):
    def __init__(self, status: int, reason: str):
        super().__init__(reason)
        self.status = status
        self.reason = reason


class State:
    def __init__(self, base: str, vapid_key: str | None):
        self.base = base
        self.vapid_key = vapid_key
        self.lock = threading.Lock()
        self.subscriptions = {}  # path -> (private key, auth secret)
        self.messages = []
        self.answers = []  # statuses for the next POSTs

    def new_subscription(self) -> dict:
        private = ec.generate_private_key(ec.SECP256R1())
        auth = os.urandom(16)
        path = "/push/" + b64url(os.urandom(12))
        with self.lock:
            self.subscriptions[path] = (private, auth)
        point = private.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        return {
            "endpoint": self.base + path,
            "keys": {"p256dh": b64url(point), "auth": b64url(auth)},
        }


def verify_vapid(header: str, origin: str, expected_key: str | None) -> dict:
    """The JWT's claims, once the VAPID header is checked (RFC 8292)."""
    if not header.lower().startswith("vapid "):
        raise Refused(401, f"Authorization is not vapid: {header!r}")
    params = {}
    for part in header[len("vapid "):].split(","):
        name, _, value = part.strip().partition("=")
        params[name.strip()] = value.strip()
    token, key = params.get("t"), params.get("k")
    if not token or not key:
        raise Refused(401, f"vapid without t= and k=: {header!r}")
    if expected_key is not None and key != expected_key:
        raise Refused(403, f"k={key} is not the server's key {expected_key}")
    try:
        public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64url(key))
        head_b64, claims_b64, sig_b64 = token.split(".")
        head = json.loads(unb64url(head_b64))
        claims = json.loads(unb64url(claims_b64))
        sig = unb64url(sig_b64)
    except (ValueError, json.JSONDecodeError) as e:
        raise Refused(401, f"unreadable VAPID token: {e}")
    if head.get("alg") != "ES256":
        raise Refused(401, f"alg is {head.get('alg')!r}, not ES256")
    if len(sig) != 64:
        raise Refused(401, f"an ES256 signature is 64 bytes, not {len(sig)}")
    der = encode_dss_signature(int.from_bytes(sig[:32], "big"), int.from_bytes(sig[32:], "big"))
    try:
        public.verify(der, f"{head_b64}.{claims_b64}".encode(), ec.ECDSA(hashes.SHA256()))
    except InvalidSignature:
        raise Refused(403, "the VAPID signature does not verify")
    if claims.get("aud") != origin:
        raise Refused(403, f"aud is {claims.get('aud')!r}, not {origin!r}")
    exp, now = claims.get("exp"), time.time()
    if not isinstance(exp, int) or not now < exp <= now + 24 * 3600:
        raise Refused(403, f"exp {exp!r} is not within the next 24 hours (now {int(now)})")
    sub = claims.get("sub")
    if not isinstance(sub, str) or not sub.startswith(("mailto:", "https:")):
        raise Refused(403, f"sub {sub!r} is not a mailto: or https: URI")
    return claims


class Handler(BaseHTTPRequestHandler):
    state: State = None  # set in main

    def log_message(self, *args):  # quiet
        pass

    def answer(self, status: int, body=None):
        data = b"" if body is None else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def read_body(self) -> bytes:
        n = int(self.headers.get("content-length") or 0)
        return self.rfile.read(n) if n else b""

    def do_GET(self):
        if self.path == "/control/messages":
            with self.state.lock:
                self.answer(200, list(self.state.messages))
        else:
            self.answer(404, {"error": "no such page"})

    def do_POST(self):
        st = self.state
        body = self.read_body()
        if self.path == "/control/answer":
            with st.lock:
                st.answers.append(int(json.loads(body)["status"]))
            return self.answer(204)
        if self.path == "/control/subscriptions":
            return self.answer(201, st.new_subscription())
        with st.lock:
            keys = st.subscriptions.get(self.path)
        if keys is None:
            return self.answer(404, {"error": "no such subscription"})
        private, auth = keys
        record = {"endpoint": st.base + self.path, "headers": {k.lower(): v for k, v in self.headers.items()}}
        status = 201
        try:
            origin = st.base  # scheme://host:port, as RFC 6454 serialises it
            record["claims"] = verify_vapid(self.headers.get("authorization", ""), origin, st.vapid_key)
            if self.headers.get("content-encoding") != "aes128gcm":
                raise Refused(400, f"Content-Encoding is {self.headers.get('content-encoding')!r}")
            ttl = self.headers.get("ttl")
            if ttl is None or not ttl.isdigit():
                raise Refused(400, f"TTL is {ttl!r}")
            try:
                plain = http_ece.decrypt(body, private_key=private, auth_secret=auth, version="aes128gcm")
            except Exception as e:  # http_ece raises several kinds
                raise Refused(400, f"the body does not decrypt: {e!r}")
            record["payload"] = json.loads(plain)
            record["ok"] = True
        except Refused as r:
            record["ok"] = False
            record["error"] = r.reason
            status = r.status
        with st.lock:
            if st.answers:
                status = st.answers.pop(0)
            record["answered"] = status
            st.messages.append(record)
        self.answer(status, None if status < 300 else {"error": record.get("error", "told to")})


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vapid-key", help="the server's VAPID public key, base64url (k= must equal it)")
    args = parser.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    base = f"http://127.0.0.1:{server.server_address[1]}"
    Handler.state = State(base, args.vapid_key)
    first = Handler.state.new_subscription()
    print(json.dumps({"subscription": first, "control": base + "/control"}), flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    sys.exit(main())
