"""The fourth review's findings, each held by an attack on the real binary over loopback HTTP:

1. `?d=1` debug pages are bounded: a link with thousands of parameters gets a small page, and
   debug pages spend the per-client page-check budget (past it, 429 with `Retry-After`).
2. One deep-link policy for the app half: `reopenAttribution` and `installAttribution` never hand
   an app a deep link outside the redirect allow-list (another host, `javascript:`, `intent:`,
   `file:`, a custom scheme), whether it comes in a long link, a short link made over the API, or
   a short link imported with `linkdomain import` (such rows are refused, not stored).
3. The mail queue stores a relay's refusal redacted: `lastError` in `/v1/mail` and on the
   console's Mail page keeps the reply code but neither the recipient it quotes nor the mail's
   link, its code or any URL of this service.
4. Signing out of the console ends the session: a copy of the cookie taken before no longer opens
   the console (SQLite and PostgreSQL).
5. A hand-off token is claimed once for as long as it is valid, even after a restart with a
   shorter `handoff.lifetimeSeconds`, and only by the app (platform) it was made for.
6. Development mode answers only requests naming a loopback host (DNS rebinding gets 421).
7. Smaller items: `APP_RE_OPEN` counts only for a link that names the calling app; a console
   account page works for a user ID that needs percent-encoding; a closed console answers 404 to
   GET and POST of its sign-in path.
"""

import email
import email.policy
import functools
import html
import http.client
import json
import re
import socket
import subprocess
import sys
import time
import urllib.parse

import pytest

from conftest import BINARY, POSTGRES, ROOT, Server, free_port, fresh_database

sys.path.insert(0, str(ROOT / "Tests" / "Mail"))
from relay import _Controller  # noqa: E402

PROJECT = "demo-linkdomain"
API_KEY = "round-four-client-key"
ADMIN_KEY = "round-four-admin-key-0123456789abcdef0123"
LINK_KEY = "round-four-short-link-key-0123456789"
FORM_SECRET = "round four: the same form secret across restarts, 32+"
PASSWORD = "correct horse battery staple"
PUBLIC = "https://links.example.com"
FINGERPRINT = "14:6D:E9:83:C5:73:06:50:D8:EE:B9:95:2F:34:FC:64:16:A0:83:42:E6:1D:BE:A8:8A:04:96:B2:3F:CF:44:E5"
IOS_ID = "com.example.ios"
ANDROID_ID = "com.example.android"
APPS = {
    "apple": {"apps": [{"teamID": "ABCDE12345", "bundleID": IOS_ID, "appStoreID": "1234567890"}]},
    "android": {"apps": [{"packageName": ANDROID_ID, "fingerprints": [FINGERPRINT]}]},
}
DESKTOP = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36"
ANDROID = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0.0.0 Mobile Safari/537.36"
FORM = {"Content-Type": "application/x-www-form-urlencoded"}
COOKIE_NAME = "__Host-linkdomain-console"


# Plumbing: one request with full control of its head, redirects never followed.

def exchange(base, path, method="GET", body=None, headers=None):
    """(status, headers, text) of one request to `base` (an http:// origin) for `path`. A `Host` in
    `headers` replaces the one http.client would send."""
    parts = urllib.parse.urlsplit(base)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    try:
        data = body.encode() if isinstance(body, str) else body
        connection.request(method, path, body=data, headers=dict(headers or {}))
        response = connection.getresponse()
        text = response.read().decode("utf-8", "replace")
        return response.status, response.headers, text
    finally:
        connection.close()


def post_json(base, path, body, headers=None):
    """(status, decoded JSON or the text) of a JSON POST."""
    status, _, text = exchange(base, path, "POST", json.dumps(body), {"Content-Type": "application/json", **(headers or {})})
    try:
        return status, json.loads(text)
    except ValueError:
        return status, text


def get_json(base, path, headers=None):
    status, _, text = exchange(base, path, headers=headers)
    try:
        return status, json.loads(text)
    except ValueError:
        return status, text


def has_deep_link(answer):
    return isinstance(answer, dict) and "deepLink" in answer


def development(tmp_path, name, extra=None):
    """A development-mode server (loopback, any API key) with an Apple and an Android app of
    different IDs, example.com authorized, and its own SQLite file."""
    configuration = {**APPS, "authorizedDomains": ["example.com"],
                     "limits": {"requestsPerMinute": 100000, "burst": 100000},
                     "storage": {"sqlitePath": str(tmp_path / f"{name}.sqlite")}}
    for key, value in (extra or {}).items():
        configuration[key] = {**configuration.get(key, {}), **value} if isinstance(value, dict) else value
    return Server(tmp_path, name, configuration)


@functools.lru_cache(maxsize=1)
def password_hash():
    done = subprocess.run([str(BINARY), "console", "hash-password"], input=PASSWORD + "\n", capture_output=True, text=True,
                          check=True, timeout=60)
    return done.stdout.strip()


def deployment_configuration(tmp_path, name, extra=None):
    """A deployment (https public URL) with API and admin keys and a console user `ops`."""
    configuration = {
        "publicBaseURL": PUBLIC,
        "backend": {"apiKeys": [API_KEY], "adminKeys": [ADMIN_KEY]},
        "console": {"users": [{"name": "ops", "passwordHash": password_hash()}]},
        "authorizedDomains": ["example.com"],
        "limits": {"requestsPerMinute": 100000, "burst": 100000},
        "storage": {"sqlitePath": str(tmp_path / f"{name}.sqlite")},
    }
    for key, value in (extra or {}).items():
        configuration[key] = {**configuration.get(key, {}), **value} if isinstance(value, dict) else value
    return configuration


def session_cookie(headers):
    """`name=value` of the console cookie a response sets, or None."""
    for value in headers.get_all("Set-Cookie") or []:
        if value.startswith(COOKIE_NAME + "="):
            pair = value.split(";", 1)[0]
            return pair if pair != COOKIE_NAME + "=" else None
    return None


def hidden_csrf(page, action=None):
    """The csrf value of the form posting to `action` (the first form when None)."""
    if action is not None:
        start = page.index(f'action="{action}"')
        page = page[start:]
    return html.unescape(re.search(r'name="csrf" value="([^"]*)"', page).group(1))


def console_sign_in(base):
    """Signs `ops` in through the sign-in form; the session cookie (`name=value`)."""
    status, _, page = exchange(base, "/__/console/sign-in", headers={"User-Agent": DESKTOP})
    assert status == 200, page
    form = urllib.parse.urlencode({"csrf": hidden_csrf(page), "name": "ops", "password": PASSWORD})
    status, headers, page = exchange(base, "/__/console/sign-in", "POST", form, {**FORM, "User-Agent": DESKTOP})
    assert status == 303 and session_cookie(headers), (status, page)
    return session_cookie(headers)


def console_get(base, path, cookie):
    return exchange(base, path, headers={"Cookie": cookie, "User-Agent": DESKTOP})


def is_overview(status, page):
    return status == 200 and re.search(r"<h1\b[^>]*>\s*Overview\s*</h1>", page) is not None


def long_link(base, deep_link, extra=""):
    return f"{base}/?link={urllib.parse.quote(deep_link, safe='')}{extra}"


def make_short_link(base, long):
    return post_json(base, f"/v1/shortLinks?key={LINK_KEY}", {"longDynamicLink": long})


def link_stats(base, short):
    status, answer = get_json(base, f"/v1/{urllib.parse.quote(short, safe='')}/linkStats?durationDays=7&key={LINK_KEY}")
    assert status == 200, answer
    return answer.get("linkEventStats", [])


# 1. Debug pages are bounded.

def test_a_debug_page_of_a_link_with_thousands_of_parameters_stays_small(tmp_path):
    server = development(tmp_path, "debug-size")
    try:
        path = "/?link=https://example.com/x&d=1" + "&a" * 3900
        assert len(path) < 8 * 1024
        status, _, page = exchange(server.base, path, headers={"User-Agent": DESKTOP})
        assert status == 200, page[:500]
        assert len(page.encode()) < 32 * 1024, f"a debug page of {len(page.encode())} bytes for a {len(path)}-byte link"
    finally:
        server.stop()


def test_debug_pages_spend_the_page_check_budget(tmp_path):
    server = development(tmp_path, "debug-budget", {"limits": {"pageChecksPerMinute": 5, "pageChecksBurst": 5}})
    try:
        answers = [exchange(server.base, "/?link=https://example.com/x&d=1", headers={"User-Agent": DESKTOP}) for _ in range(10)]
        statuses = [status for status, _, _ in answers]
        assert statuses[:5] == [200] * 5, statuses
        limited = [headers for status, headers, _ in answers[5:] if status == 429]
        assert limited, f"ten debug pages from one client within the burst of five were never limited: {statuses}"
        assert all(headers["Retry-After"] for headers in limited), statuses
    finally:
        server.stop()


# 2. One deep-link policy for attribution.

UNSAFE_DEEP_LINKS = ["https://evil.example/login", "javascript:alert(1)", "intent://x#Intent;package=com.evil;end",
                     "file:///etc/passwd", "myapp://open"]


def test_reopen_attribution_refuses_deep_links_outside_the_allow_list(tmp_path):
    server = development(tmp_path, "reopen-policy")
    try:
        # An allowed deep link is answered, to either app: the refusals below are about the link.
        for bundle in [IOS_ID, ANDROID_ID]:
            status, answer = post_json(server.base, "/v1/reopenAttribution?key=any",
                                       {"bundleId": bundle, "requestedLink": long_link(server.base, "https://example.com/welcome")})
            assert status == 200 and answer.get("deepLink") == "https://example.com/welcome", (bundle, answer)
        handed = {}
        for deep_link in UNSAFE_DEEP_LINKS:
            status, answer = post_json(server.base, "/v1/reopenAttribution?key=any",
                                       {"bundleId": IOS_ID, "requestedLink": long_link(server.base, deep_link)})
            if status != 400 or has_deep_link(answer):
                handed[deep_link] = (status, answer)
        assert not handed, f"reopenAttribution answered links outside the allow-list: {handed}"
    finally:
        server.stop()


def test_install_attribution_gives_no_deep_link_outside_the_allow_list(tmp_path):
    server = development(tmp_path, "install-policy")
    try:
        status, answer = post_json(server.base, "/v1/installAttribution?key=any",
                                   {"bundleId": IOS_ID, "uniqueMatchLinkToCheck": f"{server.base}/?link=https%3A%2F%2Fevil.example%2Flogin"})
        assert status == 200, answer
        assert not has_deep_link(answer), answer
    finally:
        server.stop()


def test_short_links_made_over_the_api_hand_apps_no_disallowed_deep_link(tmp_path):
    """Either the API refuses to make the link, or the app gets no deep link from it: never the link."""
    server = development(tmp_path, "api-policy", {"shortLinks": {"apiKeys": [LINK_KEY]}})
    try:
        handed = {}
        for deep_link in ["https://evil.example/login", "myapp://x"]:
            status, made = make_short_link(server.base, long_link(server.base, deep_link))
            if status != 200:
                continue
            status, answer = post_json(server.base, "/v1/reopenAttribution?key=any", {"bundleId": IOS_ID, "requestedLink": made["shortLink"]})
            if has_deep_link(answer):
                handed[deep_link] = answer
        assert not handed, f"short links made over the API handed apps disallowed deep links: {handed}"
        # An allowed one still works end to end.
        status, made = make_short_link(server.base, long_link(server.base, "https://example.com/api-made"))
        assert status == 200, made
        status, answer = post_json(server.base, "/v1/reopenAttribution?key=any", {"bundleId": IOS_ID, "requestedLink": made["shortLink"]})
        assert status == 200 and answer["deepLink"] == "https://example.com/api-made", answer
    finally:
        server.stop()


def test_import_refuses_rows_whose_deep_link_is_not_allowed(tmp_path):
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    configuration = {**APPS, "publicBaseURL": base, "server": {"host": "127.0.0.1", "port": port},
                     "authorizedDomains": ["example.com"], "shortLinks": {"apiKeys": [LINK_KEY]},
                     "limits": {"requestsPerMinute": 100000, "burst": 100000},
                     "storage": {"sqlitePath": str(tmp_path / "import.sqlite")}}
    config_path = tmp_path / "import-config.json"
    config_path.write_text(json.dumps(configuration))
    csv = tmp_path / "export.csv"
    csv.write_text("shortLink,longLink\n"
                   f"{base}/JsRow1,{base}/?link=javascript%3Aalert(1)\n"
                   f"{base}/SchemeRow1,{base}/?link=myapp%3A%2F%2Fx\n"
                   f"{base}/GoodRow1,{base}/?link=https%3A%2F%2Fexample.com%2Fimported\n")
    done = subprocess.run([str(BINARY), "import", "--config", str(config_path), str(csv)], capture_output=True, text=True, timeout=60)
    server = Server(tmp_path, "import", configuration)
    try:
        for suffix in ["JsRow1", "SchemeRow1"]:
            status, _, _ = exchange(base, f"/{suffix}", headers={"User-Agent": DESKTOP})
            assert status == 404, f"/{suffix} (a refused row) answered {status}"
            status, answer = post_json(base, "/v1/reopenAttribution?key=any", {"bundleId": IOS_ID, "requestedLink": f"{base}/{suffix}"})
            assert not has_deep_link(answer), (suffix, answer)
        status, answer = post_json(base, "/v1/reopenAttribution?key=any", {"bundleId": IOS_ID, "requestedLink": f"{base}/GoodRow1"})
        assert status == 200 and answer["deepLink"] == "https://example.com/imported", answer
        assert exchange(base, "/GoodRow1", headers={"User-Agent": DESKTOP})[0] != 404
    finally:
        server.stop()
    # Refused rows are invalid rows: reported, and the command exits 1 (docs/commands.md).
    assert done.returncode == 1 and "imported 1," in done.stdout, f"exit {done.returncode}: {done.stdout}{done.stderr}"


# 3. Mail queue errors are stored redacted.

class RefusingRelay:
    """A plain SMTP relay on loopback that refuses every mail for good (550): at RCPT quoting the
    recipient, or at the end of DATA quoting the first link of the message's text."""

    def __init__(self, refuse_at):
        self.refuse_at = refuse_at
        self.recipients = []
        self.links = []
        self.port = free_port()
        self.controller = _Controller(self, on_connection=lambda: None, hostname="127.0.0.1", port=self.port,
                                      server_hostname="relay.test", decode_data=False, ready_timeout=5.0)

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        self.recipients.append(address)
        if self.refuse_at == "RCPT":
            return f"550 5.1.1 <{address}>: Recipient address rejected: User unknown in virtual mailbox table"
        envelope.rcpt_tos.append(address)
        return "250 2.1.5 OK"

    async def handle_DATA(self, server, session, envelope):
        message = email.message_from_bytes(envelope.original_content, policy=email.policy.default)
        text = message.get_body(preferencelist=("plain",)).get_content()
        link = re.search(r"https?://\S+", text).group(0)
        self.links.append(link)
        return f"550 5.7.1 Message rejected as spam: it links to {link}"

    def __enter__(self):
        self.controller.start()
        return self

    def __exit__(self, *exc_info):
        try:
            self.controller.loop.call_soon_threadsafe(self.controller.drop_connections)
        except RuntimeError:
            pass
        self.controller.stop()


def failed_mails(base, timeout=30):
    """The failed mails `/v1/mail` lists, once there is one."""
    deadline = time.monotonic() + timeout
    while True:
        status, answer = get_json(base, "/v1/mail?state=failed", {"Authorization": f"Bearer {ADMIN_KEY}"})
        assert status == 200, answer
        if answer.get("mails") or time.monotonic() > deadline:
            return answer.get("mails", [])
        time.sleep(0.25)


def refused_reset(tmp_path, refuse_at, recipient):
    """A deployment mailing through a relay that refuses at `refuse_at`, a reset mail for
    `recipient`'s account; (server, relay, the failed mails listed, the console's Mail page)."""
    relay = RefusingRelay(refuse_at).__enter__()
    server = Server(tmp_path, f"refused-{refuse_at.lower()}", deployment_configuration(tmp_path, f"refused-{refuse_at.lower()}", {
        "mail": {"smtpURL": f"smtp://127.0.0.1:{relay.port}", "from": "noreply@example.com", "timeoutSeconds": 5,
                 "retryInitialSeconds": 1},
    }))
    try:
        v1 = "/identitytoolkit.googleapis.com/v1"
        status, answer = post_json(server.base, f"{v1}/accounts:signUp?key={API_KEY}", {"email": recipient, "password": "first password"})
        assert status == 200, answer
        status, answer = post_json(server.base, f"{v1}/accounts:sendOobCode?key={API_KEY}",
                                   {"requestType": "PASSWORD_RESET", "email": recipient})
        assert status == 200, answer
        mails = failed_mails(server.base)
        assert len(mails) == 1, f"the refused mail was not recorded as failed: {mails}"
        status, _, page = console_get(server.base, "/__/console/mail?state=failed", console_sign_in(server.base))
        assert status == 200, page
        return server, relay, mails[0], page
    except BaseException:
        server.stop()
        relay.__exit__(None, None, None)
        raise


def test_a_refusal_quoting_the_recipient_is_stored_without_the_address(tmp_path):
    recipient = "victim@example.org"
    server, relay, mail, page = refused_reset(tmp_path, "RCPT", recipient)
    try:
        assert relay.recipients and relay.recipients[0].lower() == recipient  # the relay did quote it
        error = mail.get("lastError") or ""
        assert "550" in error, mail
        assert recipient not in error.lower(), f"lastError keeps the recipient: {error!r}"
        assert "550" in page
        assert recipient not in page.lower(), "the console's Mail page shows the recipient the relay quoted"
    finally:
        server.stop()
        relay.__exit__(None, None, None)


def test_a_refusal_quoting_the_reset_link_is_stored_without_the_link_or_its_code(tmp_path):
    recipient = "reader@example.org"
    server, relay, mail, page = refused_reset(tmp_path, "DATA", recipient)
    try:
        assert relay.links, "the relay saw no message"
        link = relay.links[0]
        code = urllib.parse.parse_qs(urllib.parse.urlsplit(link).query)["oobCode"][0]
        assert link.startswith(PUBLIC) and len(code) >= 16  # the relay quoted this service's link and its code
        error = mail.get("lastError") or ""
        assert "550" in error, mail
        assert code not in error, f"lastError keeps the oobCode: {error!r}"
        assert "links.example.com" not in error, f"lastError keeps a URL of this service: {error!r}"
        assert recipient not in error.lower(), error
        assert "550" in page
        assert code not in page, "the console's Mail page shows the oobCode the relay quoted"
        assert f"{PUBLIC}/__/auth" not in html.unescape(page), "the console's Mail page shows the reset link the relay quoted"
    finally:
        server.stop()
        relay.__exit__(None, None, None)


# 4. Console sign-out ends the session.

@pytest.mark.parametrize("store", ["sqlite", "postgresql"])
def test_signing_out_ends_the_session_for_every_copy_of_the_cookie(tmp_path, store):
    if store == "postgresql":
        if POSTGRES is None:
            pytest.skip("needs TEST_POSTGRES_URL (scripts/postgres)")
        storage = {"postgresURL": fresh_database()}
    else:
        storage = {"sqlitePath": str(tmp_path / "console.sqlite")}
    configuration = deployment_configuration(tmp_path, "sign-out")
    configuration["storage"] = storage
    server = Server(tmp_path, "sign-out", configuration)
    try:
        copied = console_sign_in(server.base)
        status, headers, page = console_get(server.base, "/__/console", copied)
        assert is_overview(status, page), (status, page[:300])  # the copy works while signed in
        current = session_cookie(headers) or copied
        form = urllib.parse.urlencode({"csrf": hidden_csrf(page, "/__/console/sign-out")})
        status, headers, _ = exchange(server.base, "/__/console/sign-out", "POST", form,
                                      {**FORM, "Cookie": current, "User-Agent": DESKTOP})
        assert status == 303 and "sign-in" in headers["Location"], status
        status, headers, page = console_get(server.base, "/__/console", copied)
        assert not is_overview(status, page), "the cookie copied before signing out still opens the console"
        if 300 <= status < 400:
            assert "/__/console/sign-in" in headers["Location"], headers["Location"]
        else:
            assert 400 <= status < 500, status
    finally:
        server.stop()


# 5. Hand-off claims.

def play_referrer(base, long):
    """The `referrer` of the Google Play link on the page an Android phone gets for `long`."""
    status, _, page = exchange(base, long[len(base):], headers={"User-Agent": ANDROID})
    assert status == 200, page[:300]
    start = page.index(f"https://play.google.com/store/apps/details?id={ANDROID_ID}&amp;referrer=")
    play = html.unescape(page[start:page.index('"', start)])
    referrer = urllib.parse.parse_qs(urllib.parse.urlsplit(play).query)["referrer"][0]
    assert referrer.startswith("ldh."), referrer
    return referrer


def claim(base, bundle, candidate):
    return post_json(base, "/v1/installAttribution?key=any", {"bundleId": bundle, "uniqueMatchLinkToCheck": candidate})


def accepted_lifetime(tmp_path, wanted):
    """`wanted` when `linkdomain check` takes it as `handoff.lifetimeSeconds`, else its least value (60)."""
    path = tmp_path / "lifetime-check.json"
    path.write_text(json.dumps({"handoff": {"lifetimeSeconds": wanted}, "storage": {"sqlitePath": str(tmp_path / "check.sqlite")}}))
    done = subprocess.run([str(BINARY), "check", "--config", str(path)], capture_output=True, text=True, timeout=60)
    if done.returncode == 0:
        return wanted
    assert "handoff.lifetimeSeconds" in done.stdout + done.stderr, done.stdout + done.stderr
    return 60


def test_a_claimed_hand_off_stays_claimed_after_a_restart_with_a_shorter_lifetime(tmp_path):
    port = free_port()
    common = {"server": {"port": port}, "formSecret": FORM_SECRET}
    first = development(tmp_path, "handoff-first", {**common, "handoff": {"lifetimeSeconds": 3600}})
    # The same database for both processes.
    database = tmp_path / "handoff-first.sqlite"
    try:
        referrer = play_referrer(first.base, long_link(first.base, "https://example.com/handed", f"&apn={ANDROID_ID}"))
        status, answer = claim(first.base, ANDROID_ID, referrer)
        assert status == 200 and answer.get("deepLink") == "https://example.com/handed", answer
    finally:
        first.stop()
    lifetime = accepted_lifetime(tmp_path, 1)
    second = development(tmp_path, "handoff-second", {**common, "handoff": {"lifetimeSeconds": lifetime},
                                                      "storage": {"sqlitePath": str(database)}})
    try:
        time.sleep(lifetime + 2)  # past the new, shorter lifetime; the token itself is valid for an hour
        status, answer = claim(second.base, ANDROID_ID, referrer)
        assert status == 200, answer
        assert not has_deep_link(answer), f"a claimed hand-off was claimed again after the restart: {answer}"
    finally:
        second.stop()


def test_a_hand_off_made_for_the_android_app_is_not_claimed_by_the_apple_app(tmp_path):
    server = development(tmp_path, "handoff-app", {"formSecret": FORM_SECRET})
    try:
        referrer = play_referrer(server.base, long_link(server.base, "https://example.com/for-android", f"&apn={ANDROID_ID}"))
        status, answer = claim(server.base, IOS_ID, referrer)
        assert status == 200, answer
        assert not has_deep_link(answer), f"the Apple app claimed the Android app's hand-off: {answer}"
        status, answer = claim(server.base, ANDROID_ID, referrer)
        assert status == 200 and answer.get("deepLink") == "https://example.com/for-android", answer
    finally:
        server.stop()


# 6. Development mode answers only loopback names.

REBIND_PATHS = ["/__/console", f"/emulator/v1/projects/{PROJECT}/oobCodes", "/healthz", "/.well-known/apple-app-site-association"]


def test_development_answers_only_loopback_host_names(tmp_path):
    server = development(tmp_path, "rebind")
    try:
        port = server.port
        for path in REBIND_PATHS:
            usual = exchange(server.base, path, headers={"User-Agent": DESKTOP})[0]
            assert usual < 400, (path, usual)
            for host in [f"localhost:{port}", f"127.0.0.1:{port}"]:
                status = exchange(server.base, path, headers={"Host": host, "User-Agent": DESKTOP})[0]
                assert status == usual, (path, host, status, usual)
        # [::1] is checked by the next test, on a server that listens there.
        answered = {}
        for path in REBIND_PATHS:
            status = exchange(server.base, path, headers={"Host": f"rebind.attacker.example:{port}", "User-Agent": DESKTOP})[0]
            if status != 421:
                answered[path] = status
        assert not answered, f"a development server answered a rebound host name: {answered}"
    finally:
        server.stop()


def ipv6_loopback():
    try:
        with socket.socket(socket.AF_INET6) as probe:
            probe.bind(("::1", 0))
            return True
    except OSError:
        return False


def test_development_on_ipv6_loopback_answers_its_name_and_refuses_others(tmp_path):
    if not ipv6_loopback():
        pytest.skip("no IPv6 loopback here: a server cannot listen on ::1")
    with socket.socket(socket.AF_INET6) as probe:
        probe.bind(("::1", 0))
        port = probe.getsockname()[1]
    base = f"http://[::1]:{port}"
    configuration = {**APPS, "publicBaseURL": base, "server": {"host": "::1", "port": port},
                     "storage": {"sqlitePath": str(tmp_path / "v6.sqlite")}}
    path = tmp_path / "v6.json"
    path.write_text(json.dumps(configuration))
    log = open(tmp_path / "v6.log", "w+")
    process = subprocess.Popen([str(BINARY), "serve", "--config", str(path)], stdout=log, stderr=subprocess.STDOUT)
    try:
        for _ in range(300):
            if process.poll() is not None:
                log.seek(0)
                pytest.fail(f"linkdomain exited: {log.read()}")
            try:
                exchange(base, "/healthz", headers={"Host": f"[::1]:{port}"})
                break
            except OSError:
                time.sleep(0.1)
        else:
            pytest.fail(f"linkdomain did not answer on {base}")
        for target in REBIND_PATHS:
            status = exchange(base, target, headers={"Host": f"[::1]:{port}", "User-Agent": DESKTOP})[0]
            assert status != 421 and status < 400, (target, status)
            status = exchange(base, target, headers={"Host": f"rebind.attacker.example:{port}", "User-Agent": DESKTOP})[0]
            assert status == 421, (target, status)
    finally:
        process.terminate()
        process.wait(timeout=10)
        log.close()


# 7. Info items.

def test_app_re_open_counts_only_for_a_link_that_names_the_app(tmp_path):
    server = development(tmp_path, "re-open", {"shortLinks": {"apiKeys": [LINK_KEY]}})
    try:
        status, plain = make_short_link(server.base, long_link(server.base, "https://example.com/no-app"))
        assert status == 200, plain
        status, named = make_short_link(server.base, long_link(server.base, "https://example.com/ios-app", f"&ibi={IOS_ID}"))
        assert status == 200, named
        for short, deep in [(plain["shortLink"], "https://example.com/no-app"), (named["shortLink"], "https://example.com/ios-app")]:
            status, answer = post_json(server.base, "/v1/reopenAttribution?key=any", {"bundleId": IOS_ID, "requestedLink": short})
            assert status == 200 and answer.get("deepLink") == deep, answer
        time.sleep(1.5)  # events are written in batches, once a second
        re_opens = lambda short: [row for row in link_stats(server.base, short) if row["event"] == "APP_RE_OPEN"]  # noqa: E731
        assert re_opens(named["shortLink"]) == [{"platform": "IOS", "event": "APP_RE_OPEN", "count": "1"}], link_stats(server.base, named["shortLink"])
        assert re_opens(plain["shortLink"]) == [], "APP_RE_OPEN counted for a link that names no app"
    finally:
        server.stop()


def test_a_console_account_page_works_for_a_user_id_that_needs_encoding(tmp_path):
    server = Server(tmp_path, "account-id", deployment_configuration(tmp_path, "account-id"))
    try:
        local_id = "a b/c?d"
        status, answer = post_json(server.base, f"/identitytoolkit.googleapis.com/v1/projects/{PROJECT}/accounts",
                                   {"localId": local_id, "email": "odd.id@example.com", "password": "first password"},
                                   {"Authorization": f"Bearer {ADMIN_KEY}"})
        assert status == 200 and answer.get("localId") == local_id, answer
        cookie = console_sign_in(server.base)
        path = "/__/console/accounts/" + urllib.parse.quote(local_id, safe="")
        status, _, page = console_get(server.base, path, cookie)
        assert status == 200, f"{path} answered {status}"
        assert local_id in html.unescape(page) and "odd.id@example.com" in html.unescape(page)
        # The search's own link to it leads there too (a browser encodes only what it must).
        status, _, listing = console_get(server.base, "/__/console/accounts?q=odd.id%40example.com", cookie)
        assert status == 200
        hrefs = [html.unescape(href) for href in re.findall(r'href="(/__/console/accounts/[^"]+)"', listing)]
        assert hrefs, listing
        status, _, page = console_get(server.base, urllib.parse.quote(hrefs[0], safe="/?=&%:@!$'()*+,;~"), cookie)
        assert status == 200 and "odd.id@example.com" in html.unescape(page), (hrefs[0], status)
    finally:
        server.stop()


def test_a_closed_console_answers_404_to_get_and_post_of_sign_in(tmp_path):
    server = Server(tmp_path, "closed", {
        "publicBaseURL": PUBLIC,
        "backend": {"kind": "emulator", "url": f"http://127.0.0.1:{free_port()}"},
        "storage": {"sqlitePath": str(tmp_path / "closed.sqlite")},
    })
    try:
        assert exchange(server.base, "/__/console", headers={"User-Agent": DESKTOP})[0] == 404  # closed indeed
        assert exchange(server.base, "/__/console/sign-in", headers={"User-Agent": DESKTOP})[0] == 404
        form = urllib.parse.urlencode({"csrf": "x", "name": "ops", "password": PASSWORD})
        status, headers, _ = exchange(server.base, "/__/console/sign-in", "POST", form, {**FORM, "User-Agent": DESKTOP})
        assert status == 404, f"POST of a closed console's sign-in answered {status} {headers.get('Location')}"
    finally:
        server.stop()
