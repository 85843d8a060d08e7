"""A local stand-in for Google's OAuth 2.0 token endpoint (`https://oauth2.googleapis.com/token`).

The server trades a service-account JWT for an access token before calling Google APIs (RFC 7523
JWT-bearer grant). Tests point the key file's `token_uri` here so that exchange runs for real on
loopback: the assertion is verified with google-auth, the library Google's own clients use, so
a token the server signs wrongly (key, `kid`, audience, scope, lifetime) is refused here as it
would be by Google, and the recorded exchanges show whether the server caches its token.
"""

import json
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from google.auth import jwt

JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"
ACCEPTED_SCOPES = frozenset({
    "https://www.googleapis.com/auth/identitytoolkit",
    "https://www.googleapis.com/auth/cloud-platform",
})
# The audiences Google's endpoint accepts. google-auth's service_account.Credentials always
# names the first one, whatever the key file's token_uri says.
GOOGLE_AUDIENCES = (
    "https://oauth2.googleapis.com/token",
    "https://www.googleapis.com/oauth2/v4/token",
    "https://accounts.google.com/o/oauth2/token",
)
MAX_LIFETIME = 3600
CLOCK_SKEW = 10


class GrantError(Exception):
    """A refused grant: `error` is the OAuth error code, `description` the human-readable part."""

    def __init__(self, error, description):
        super().__init__(description)
        self.error = error
        self.description = description


class _Handler(BaseHTTPRequestHandler):
    server_version = "LinkDomainTestTokenEndpoint/1.0"
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *arguments):
        """Quiet: pytest output should show test failures, not an access log."""

    def _reply(self, status, document):
        body = json.dumps(document).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Cache-Control", "no-cache, no-store, max-age=0, must-revalidate")
        self.send_header("Content-Length", str(len(body)))
        # One request per connection: after stop() no kept-alive connection can still be answered.
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        self._reply(404, {"error": "not_found"})

    def do_POST(self):
        endpoint = self.server.endpoint
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length)
        if urllib.parse.urlsplit(self.path).path != "/token":
            self._reply(404, {"error": "not_found"})
            return
        endpoint._count_request()
        try:
            claims = endpoint._exchange(self.headers.get("Content-Type", ""), body)
        except GrantError as error:
            endpoint._record_failure(error.description)
            self._reply(400, {"error": error.error, "error_description": error.description})
            return
        endpoint._record_assertion(claims)
        self._reply(200, {"access_token": endpoint.access_token, "expires_in": endpoint.expires_in,
                          "token_type": "Bearer"})


class TokenEndpoint:
    """Answers `POST /token` with the JWT-bearer grant like Google's token endpoint.

    `public_keys` maps a service account's `private_key_id` to its certificate (or public key)
    PEM; it is kept by reference, so a test can add or rotate keys while the endpoint runs.
    The listening port is bound in the constructor, so `url` is known before `start()` and can
    be written into the key file's `token_uri`. The JWT's `aud` must be one of `audiences`:
    by default `url` itself or one of Google's token endpoint URLs (`GOOGLE_AUDIENCES`), as
    google-auth sends `https://oauth2.googleapis.com/token` even with another `token_uri`.
    Set `endpoint.audiences = [endpoint.url]` to insist on the `token_uri` itself.

    A valid assertion gets 200 `{"access_token", "expires_in", "token_type": "Bearer"}`; anything
    else 400 `{"error": "invalid_grant", "error_description": ...}`, except where Google uses
    another code: `invalid_scope` for a missing or unaccepted scope, `unsupported_grant_type`
    for another grant_type, `invalid_request` for a missing assertion or a non-form body.

    Records: `requests` (POSTs to /token, refused ones included), `assertions` (claims of the
    accepted JWTs), `failures` (error descriptions of the refused ones).
    """

    def __init__(self, public_keys, client_email, access_token, expires_in=3600, audiences=None):
        self.public_keys = public_keys
        self.client_email = client_email
        self.access_token = access_token
        self.expires_in = expires_in
        self.requests = 0
        self.assertions = []
        self.failures = []
        self._lock = threading.Lock()
        self._thread = None
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self._server.daemon_threads = True
        self._server.endpoint = self
        self.port = self._server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}/token"
        self.audiences = list(audiences) if audiences is not None else [self.url, *GOOGLE_AUDIENCES]

    # Lifecycle

    def start(self):
        if self._server is None:
            raise RuntimeError("a stopped TokenEndpoint cannot be restarted; create a new one")
        if self._thread is None:
            self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05},
                                            name=f"token-endpoint-{self.port}", daemon=True)
            self._thread.start()
        return self

    def stop(self):
        server, self._server = self._server, None
        if server is None:
            return
        if self._thread is not None:
            server.shutdown()
            self._thread.join(timeout=5)
            self._thread = None
        server.server_close()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc_info):
        self.stop()

    # Records

    def _count_request(self):
        with self._lock:
            self.requests += 1

    def _record_assertion(self, claims):
        with self._lock:
            self.assertions.append(claims)

    def _record_failure(self, description):
        with self._lock:
            self.failures.append(description)

    def clear(self):
        with self._lock:
            self.requests = 0
            self.assertions.clear()
            self.failures.clear()

    # The grant

    def _exchange(self, content_type, body):
        if content_type.split(";")[0].strip().lower() != "application/x-www-form-urlencoded":
            raise GrantError("invalid_request", f"Unsupported content type {content_type!r}")
        try:
            form = urllib.parse.parse_qs(body.decode("utf-8"), keep_blank_values=True, strict_parsing=False)
        except UnicodeDecodeError:
            raise GrantError("invalid_request", "Body is not UTF-8")
        grant_type = form.get("grant_type", [""])[0]
        if grant_type != JWT_BEARER:
            raise GrantError("unsupported_grant_type", f"Invalid grant_type: {grant_type}")
        assertion = form.get("assertion", [""])[0]
        if not assertion:
            raise GrantError("invalid_request", "Missing required parameter: assertion")
        return self.verify(assertion)

    def verify(self, assertion):
        """Check a JWT-bearer assertion; returns its claims or raises `GrantError`."""
        try:
            header = jwt.decode_header(assertion)
        except Exception as error:
            raise GrantError("invalid_grant", f"Invalid JWT: {error}")
        if header.get("alg") != "RS256":
            raise GrantError("invalid_grant", f"Invalid JWT: alg must be RS256, not {header.get('alg')!r}")
        key_id = header.get("kid")
        # google-auth checks every key when the header has no kid, so the kid is required here.
        if not key_id or key_id not in self.public_keys:
            raise GrantError("invalid_grant", f"Invalid JWT Signature. (unknown kid {key_id!r})")
        try:
            claims = jwt.decode(assertion, certs=dict(self.public_keys), audience=list(self.audiences),
                                clock_skew_in_seconds=CLOCK_SKEW)
        except Exception as error:
            raise GrantError("invalid_grant", f"Invalid JWT: {error}")
        if claims.get("iss") != self.client_email:
            raise GrantError("invalid_grant", f"Invalid JWT: iss {claims.get('iss')!r} is not {self.client_email!r}")
        scopes = set(str(claims.get("scope") or "").split())
        if not scopes:
            raise GrantError("invalid_scope", "Invalid JWT: no scope claim")
        if not scopes & ACCEPTED_SCOPES:
            raise GrantError("invalid_scope", f"Invalid JWT: scope {claims.get('scope')!r} names none of "
                                               f"{sorted(ACCEPTED_SCOPES)}")
        issued_at, expires_at = claims.get("iat"), claims.get("exp")
        if not isinstance(issued_at, (int, float)) or not isinstance(expires_at, (int, float)):
            raise GrantError("invalid_grant", "Invalid JWT: iat and exp must be numbers")
        if expires_at <= issued_at or expires_at - issued_at > MAX_LIFETIME:
            raise GrantError("invalid_grant", f"Invalid JWT: exp - iat is {expires_at - issued_at} s, "
                                               f"must be in (0, {MAX_LIFETIME}]")
        if issued_at > time.time() + CLOCK_SKEW:
            raise GrantError("invalid_grant", "Invalid JWT: Token must be a short-lived token and in a "
                                               "reasonable timeframe. Check your iat and exp values")
        return claims
