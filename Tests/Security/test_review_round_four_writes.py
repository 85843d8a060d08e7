"""Review round four, against the real binary on loopback:

A. One action, one transaction: a fault injected at any one write of a password reset, an address
   change's confirmation or an email-link sign-in (a database trigger installed from here, after
   the server migrated its schema) leaves nothing written: the code is still live, the account as
   it was, no recover code or mail; the same code then succeeds once the fault is gone. On SQLite
   (the server's file, WAL) and PostgreSQL.
B. Per-client budgets key IPv6 clients by their /64 (after the trusted proxy's X-Forwarded-For),
   IPv4 clients by their address.
C. Password checks are bounded in all: console sign-ins across every client (at most 60 a minute),
   and the queue of waiting checks (150 at once get 429/503 with Retry-After, never a dropped
   connection).
D. Budgets are shared by replicas on one PostgreSQL: a mailbox's 5 mails an hour, a client
   address's 10 console sign-ins a minute.
"""

import concurrent.futures
import glob
import html
import http.client
import json
import re
import shutil
import sqlite3
import subprocess
import sys
import threading
import time
import urllib.parse
import uuid
from pathlib import Path

import pytest

from conftest import BINARY, POSTGRES, Server, fresh_database

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "Mail"))
from mailtest import link_in, parse  # noqa: E402
from relay import Relay  # noqa: E402

PROJECT = "demo-linkdomain"
V1 = "/identitytoolkit.googleapis.com/v1"
OWNER = {"Authorization": "Bearer owner"}
NO_LIMITS = {"requestsPerMinute": 1000000, "burst": 1000000}

API_KEY = "round-four-client-key"
ADMIN_KEY = "round-four-admin-key-0123456789abcdef0123"
CONSOLE_PASSWORD = "correct horse battery staple"
SHARED_FORM_SECRET = "the same secret on every replica, 32+ characters"


# --- HTTP -------------------------------------------------------------------------------------

class Answer:
    """One HTTP answer: status, headers, body (redirects are not followed)."""

    def __init__(self, status, headers, body):
        self.status, self.headers, self.body = status, headers, body

    def json(self):
        try:
            return json.loads(self.body or b"{}")
        except ValueError:
            return {}

    @property
    def message(self):
        answer = self.json()
        return answer.get("error", {}).get("message", "") if isinstance(answer, dict) else ""

    @property
    def retry_after(self):
        return self.headers.get("Retry-After")

    def __repr__(self):
        return f"<{self.status} Retry-After={self.retry_after} {self.body[:200]!r}>"


def send(base, method, path, body=None, headers=None, timeout=120):
    parts = urllib.parse.urlsplit(base)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        return Answer(response.status, response.headers, response.read())
    finally:
        connection.close()


def post(base, path, body, headers=None, key="any", timeout=120):
    """A JSON POST; client calls carry an API key (any in development)."""
    if key:
        path += ("&" if "?" in path else "?") + "key=" + urllib.parse.quote(key)
    return send(base, "POST", path, json.dumps(body).encode(), {"Content-Type": "application/json", **(headers or {})}, timeout)


def sign_up(server, email, password):
    answer = post(server.base, f"{V1}/accounts:signUp", {"email": email, "password": password, "returnSecureToken": True})
    assert answer.status == 200, answer
    return answer.json()


def sign_in(server, email, password):
    return post(server.base, f"{V1}/accounts:signInWithPassword", {"email": email, "password": password, "returnSecureToken": True})


def check_code(server, code):
    """`accounts:resetPassword` with only the code: checks it without spending it."""
    return post(server.base, f"{V1}/accounts:resetPassword", {"oobCode": code})


def admin_code(server, request_type, **fields):
    answer = post(server.base, f"{V1}/accounts:sendOobCode", {"requestType": request_type, "returnOobLink": True, **fields}, OWNER)
    assert answer.status == 200, answer
    return answer.json()["oobCode"]


def admin_lookup(server, **fields):
    answer = post(server.base, f"{V1}/accounts:lookup", fields, OWNER)
    assert answer.status == 200, answer
    return answer.json().get("users", [])


def unique(prefix):
    return f"{prefix}-{uuid.uuid4().hex[:10]}@example.com"


def slash64(index):
    """An address in the index-th /64 of the documentation prefix (a new client each, with /64 keys)."""
    return f"2001:db8:{index // 65536:x}:{index % 65536:x}::1"


# --- Databases and faults ---------------------------------------------------------------------

TABLES = {
    "sqlite": {"users": "users", "codes": "oobCodes", "refresh tokens": "refreshTokens", "mail": "mailQueue"},
    "postgresql": {"users": "users", "codes": "oob_codes", "refresh tokens": "refresh_tokens", "mail": "mail_queue"},
}


def psql_binary():
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/psql")) or [shutil.which("psql")]
    assert found[-1], "psql is not installed"
    return found[-1]


class Database:
    """The server's own database, reached from the test: SQLite's file or PostgreSQL's database."""

    def __init__(self, kind, location):
        self.kind, self.location = kind, location

    def table(self, name):
        return TABLES[self.kind][name]

    def run(self, sql):
        """Runs `sql`; the rows, as lists of strings (SQLite: values)."""
        if self.kind == "sqlite":
            connection = sqlite3.connect(self.location, timeout=30, isolation_level=None)
            try:
                return [list(row) for row in connection.execute(sql).fetchall()]
            finally:
                connection.close()
        done = subprocess.run([psql_binary(), self.location, "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-c", sql],
                              capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        return [line.split("|") for line in done.stdout.splitlines() if line]

    def count(self, table, where):
        return int(self.run(f"SELECT COUNT(*) FROM {self.table(table)} WHERE {where}")[0][0])

    def inject_fault(self, table, operation):
        """Every `operation` (INSERT, UPDATE, DELETE) on `table` fails from now on, until `clear_fault`."""
        name = self.table(table)
        if self.kind == "sqlite":
            self.run(f"CREATE TRIGGER fault BEFORE {operation} ON {name} BEGIN SELECT RAISE(ABORT, 'injected fault'); END;")
        else:
            self.run("CREATE OR REPLACE FUNCTION injected_fault() RETURNS trigger LANGUAGE plpgsql AS "
                     "$$ BEGIN RAISE EXCEPTION 'injected fault'; END $$;")
            self.run(f"CREATE TRIGGER fault BEFORE {operation} ON {name} FOR EACH ROW EXECUTE FUNCTION injected_fault();")
        self.fault = name

    def clear_fault(self):
        if self.kind == "sqlite":
            self.run("DROP TRIGGER fault;")
        else:
            self.run(f"DROP TRIGGER fault ON {self.fault};")


@pytest.fixture
def launch(tmp_path):
    """Starts servers for the test; stops them after it."""
    started = []

    def launch(name, configuration):
        server = Server(tmp_path, name, configuration)
        started.append(server)
        return server

    yield launch
    for server in started:
        server.stop()


@pytest.fixture
def relay():
    """A plain SMTP relay on loopback (the server sends in plain text to a relay on this machine)."""
    with Relay() as relay:
        yield relay


def relay_mail(relay):
    return {"smtpURL": f"smtp://127.0.0.1:{relay.port}", "from": "noreply@example.com", "retryInitialSeconds": 1, "timeoutSeconds": 5,
            "perClientPerHour": 100000}


def embedded_server(launch, tmp_path, store, extra=None):
    """A development-mode embedded backend on `store`, and that store as the test reaches it."""
    if store == "sqlite":
        path = str(tmp_path / "auth.sqlite")
        storage, database = {"sqlitePath": path}, Database("sqlite", path)
    else:
        if not POSTGRES:
            pytest.skip("needs TEST_POSTGRES_URL (scripts/test starts PostgreSQL)")
        url = fresh_database()
        storage, database = {"postgresURL": url}, Database("postgresql", url)
    server = launch(store, {"backend": {"kind": "embedded", "projectID": PROJECT}, "storage": storage,
                            "authorizedDomains": ["example.com"], "limits": NO_LIMITS, **(extra or {})})
    return server, database


STORES = ["sqlite", "postgresql"]


def cases(faults):
    return [pytest.param(store, table, operation, id=f"{store}-{operation.lower()} {table}") for store in STORES for table, operation in faults]


# --- A. One action, one transaction -----------------------------------------------------------

@pytest.mark.parametrize("store, table, operation", cases([("codes", "DELETE"), ("users", "UPDATE")]))
def test_a_password_reset_that_fails_at_any_write_leaves_the_code_and_the_old_password(launch, tmp_path, store, table, operation):
    server, database = embedded_server(launch, tmp_path, store)
    email = unique("reset")
    sign_up(server, email, "old password")
    code = admin_code(server, "PASSWORD_RESET", email=email)

    database.inject_fault(table, operation)
    faulted = post(server.base, f"{V1}/accounts:resetPassword", {"oobCode": code, "newPassword": "new password"})
    database.clear_fault()
    assert faulted.status != 200, faulted

    # Nothing of the reset was made: the code is still live and the old password still signs in.
    assert check_code(server, code).status == 200, "the failed reset spent the code"
    assert sign_in(server, email, "old password").status == 200, "the failed reset changed the password"
    # The same code now resets the password.
    done = post(server.base, f"{V1}/accounts:resetPassword", {"oobCode": code, "newPassword": "new password"})
    assert done.status == 200, done
    assert sign_in(server, email, "new password").status == 200
    assert sign_in(server, email, "old password").message == "INVALID_LOGIN_CREDENTIALS"


@pytest.mark.parametrize("store, table, operation",
                         cases([("codes", "DELETE"), ("users", "UPDATE"), ("codes", "INSERT"), ("mail", "INSERT")]))
def test_an_address_change_that_fails_at_any_write_leaves_the_address_the_code_and_no_notice(launch, tmp_path, relay, store, table,
                                                                                             operation):
    server, database = embedded_server(launch, tmp_path, store, {"mail": relay_mail(relay), "branding": {"appName": "Example App"}})
    old, new = unique("old"), unique("new")
    account = sign_up(server, old, "first password")
    code = admin_code(server, "VERIFY_AND_CHANGE_EMAIL", idToken=account["idToken"], newEmail=new)

    database.inject_fault(table, operation)
    faulted = post(server.base, f"{V1}/accounts:update", {"oobCode": code})
    database.clear_fault()
    assert faulted.status != 200, faulted

    # Nothing of the change was made: the address, the code, no recover code, no notice.
    assert [user["email"] for user in admin_lookup(server, localId=[account["localId"]])] == [old], "the failed change changed the address"
    assert check_code(server, code).status == 200, "the failed change spent the code"
    assert database.count("codes", f"email = '{old}'") == 0, "the failed change left a recover code"
    assert database.count("mail", f"recipient LIKE '%{old}%'") == 0, "the failed change queued a notice"

    # The same code now makes the change, and the old address is told, with a link to undo it.
    done = post(server.base, f"{V1}/accounts:update", {"oobCode": code})
    assert done.status == 200, done
    assert [user["email"] for user in admin_lookup(server, localId=[account["localId"]])] == [new]
    relay.wait_for(1, timeout=30)
    time.sleep(1)  # room for a second notice to show
    notices = [message for message in relay.messages if old in message.rcpt_tos]
    assert len(notices) == 1 and len(relay.messages) == 1, [message.rcpt_tos for message in relay.messages]
    link = link_in(parse(notices[0]))
    query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(link).query))
    if "link" in query:  # an app link wraps the action URL
        query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(query["link"]).query))
    assert query.get("mode") == "recoverEmail", link
    recover = check_code(server, query["oobCode"])
    assert recover.status == 200 and recover.json().get("requestType") == "RECOVER_EMAIL", recover


@pytest.mark.parametrize("store, table, operation", cases([("codes", "DELETE"), ("users", "INSERT"), ("refresh tokens", "INSERT")]))
def test_an_email_link_sign_in_that_fails_at_any_write_leaves_the_code_and_no_account(launch, tmp_path, store, table, operation):
    server, database = embedded_server(launch, tmp_path, store)
    email = unique("link")
    code = admin_code(server, "EMAIL_SIGNIN", email=email, continueUrl="https://example.com/done")

    database.inject_fault(table, operation)
    faulted = post(server.base, f"{V1}/accounts:signInWithEmailLink", {"oobCode": code, "email": email})
    database.clear_fault()
    assert faulted.status != 200, faulted

    assert check_code(server, code).status == 200, "the failed sign-in spent the code"
    assert admin_lookup(server, email=[email]) == [], "the failed sign-in left an account"
    # The same code now signs in, to a new account.
    done = post(server.base, f"{V1}/accounts:signInWithEmailLink", {"oobCode": code, "email": email})
    assert done.status == 200, done
    assert done.json().get("email") == email and done.json().get("refreshToken")
    assert [user["email"] for user in admin_lookup(server, email=[email])] == [email]


# --- B. IPv6 clients by /64 -------------------------------------------------------------------

def limited_server(launch):
    return launch("limited", {"backend": {"kind": "embedded", "projectID": PROJECT},
                              "limits": {"trustedProxies": ["127.0.0.1"], "requestsPerMinute": 5, "burst": 5}})


def cheap_post(server, client):
    """An Identity Toolkit POST that costs the server nothing (an ID token that is not one), as `client`."""
    return post(server.base, f"{V1}/accounts:lookup", {"idToken": "not-a-token"}, {"X-Forwarded-For": client})


def test_ipv6_clients_share_a_budget_per_64(launch):
    server = limited_server(launch)
    first = [cheap_post(server, f"2001:db8:1:2::{n}") for n in range(1, 6)]
    assert all(answer.status != 429 for answer in first), first
    sixth = cheap_post(server, "2001:db8:1:2::ffff")
    assert sixth.status == 429 and sixth.retry_after, f"a sixth address in the same /64 was not refused: {sixth}"
    neighbour = cheap_post(server, "2001:db8:1:3::1")
    assert neighbour.status != 429, f"the next /64 was refused: {neighbour}"


def test_ipv4_clients_keep_a_budget_per_address(launch):
    server = limited_server(launch)
    answers = [cheap_post(server, address) for address in ["198.51.100.7", "198.51.100.8"] for _ in range(5)]
    assert all(answer.status != 429 for answer in answers), answers
    sixth = cheap_post(server, "198.51.100.7")
    assert sixth.status == 429 and sixth.retry_after, sixth


# --- C. Bounded password checks ---------------------------------------------------------------

def console_password_hash():
    done = subprocess.run([str(BINARY), "console", "hash-password"], input=CONSOLE_PASSWORD + "\n", capture_output=True, text=True, check=True)
    return done.stdout.strip()


def console_configuration(extra=None):
    """A deployment (an https public URL) with a console user and every other limit out of the way."""
    return {"publicBaseURL": "https://links.example.com",
            "backend": {"apiKeys": [API_KEY], "adminKeys": [ADMIN_KEY]},
            "console": {"users": [{"name": "ops", "passwordHash": console_password_hash()}]},
            "authorizedDomains": ["example.com"],
            "limits": {**NO_LIMITS, "trustedProxies": ["127.0.0.1"]},
            **(extra or {})}


def console_form_token(server):
    page = send(server.base, "GET", "/__/console/sign-in")
    assert page.status == 200, page
    match = re.search(rb'name="csrf" value="([^"]*)"', page.body)
    assert match, page.body
    return html.unescape(match.group(1).decode())


def console_sign_in(server, token, name, password, client=None, timeout=120):
    form = urllib.parse.urlencode({"csrf": token, "name": name, "password": password}).encode()
    headers = {"Content-Type": "application/x-www-form-urlencoded"}
    if client:
        headers["X-Forwarded-For"] = client
    return send(server.base, "POST", "/__/console/sign-in", form, headers, timeout)


def refused_for_load(answer):
    return answer.status in (429, 503) and bool(answer.retry_after)


def test_console_sign_ins_from_every_client_together_are_bounded(launch):
    server = launch("console", console_configuration())
    token = console_form_token(server)
    answers = []
    for index in range(80):
        name, password = ("ops", f"wrong password {index}") if index % 2 else (f"nobody-{index}", "any password at all")
        answers.append(console_sign_in(server, token, name, password, client=slash64(index + 1)))
    assert all(answer.status in (401, 429) for answer in answers), answers
    late = answers[60:]
    assert any(answer.status == 429 and answer.retry_after for answer in late), \
        f"80 sign-ins from 80 clients, none of those past the 60th refused: {[answer.status for answer in answers]}"


def all_at_once(count, attempt):
    """Runs attempt(i) for i in range(count) on as many threads, released together; the answers (or errors)."""
    barrier = threading.Barrier(count)

    def run(index):
        barrier.wait()
        try:
            return attempt(index)
        except Exception as error:  # a dropped or refused connection is a finding, not a crash of the test
            return error

    with concurrent.futures.ThreadPoolExecutor(count) as pool:
        return list(pool.map(run, range(count)))


def test_concurrent_password_sign_ins_meet_a_bounded_queue_of_checks(launch, tmp_path):
    server = launch("passwords", {"backend": {"kind": "embedded", "projectID": PROJECT}, "storage": {"sqlitePath": str(tmp_path / "auth.sqlite")},
                                  "limits": {**NO_LIMITS, "trustedProxies": ["127.0.0.1"]}})
    email = unique("hashed")
    sign_up(server, email, "the real password")
    answers = all_at_once(150, lambda index: post(server.base, f"{V1}/accounts:signInWithPassword",
                                                  {"email": email, "password": f"wrong {index}", "returnSecureToken": True},
                                                  {"X-Forwarded-For": slash64(index + 1)}, timeout=600))
    errors = [answer for answer in answers if not isinstance(answer, Answer)]
    assert not errors, f"{len(errors)} of 150 requests got no answer: {errors[:3]}"
    unexpected = [answer for answer in answers if not (answer.status in (200, 400) or refused_for_load(answer))]
    assert not unexpected, unexpected[:5]
    assert any(refused_for_load(answer) for answer in answers), \
        f"150 password checks at once, none refused: {sorted({answer.status for answer in answers})}"


def test_concurrent_console_sign_ins_meet_a_bounded_queue_of_checks(launch):
    server = launch("console", console_configuration())
    token = console_form_token(server)
    answers = all_at_once(150, lambda index: console_sign_in(server, token, "ops", f"wrong {index}", client=slash64(index + 1), timeout=600))
    errors = [answer for answer in answers if not isinstance(answer, Answer)]
    assert not errors, f"{len(errors)} of 150 sign-ins got no answer: {errors[:3]}"
    assert all(answer.status == 401 or refused_for_load(answer) for answer in answers), answers
    assert any(refused_for_load(answer) for answer in answers), \
        f"150 console sign-ins at once, none refused: {sorted({answer.status for answer in answers})}"


# --- D. Budgets shared by replicas ------------------------------------------------------------

def two_replicas(launch, configuration):
    if not POSTGRES:
        pytest.skip("needs TEST_POSTGRES_URL (scripts/test starts PostgreSQL)")
    url = fresh_database()
    configuration = {**configuration, "storage": {"postgresURL": url}, "formSecret": SHARED_FORM_SECRET}
    return [launch(name, configuration) for name in ["a", "b"]], Database("postgresql", url)


def test_a_mailbox_budget_is_shared_by_replicas(launch, relay):
    (a, b), database = two_replicas(launch, {"publicBaseURL": "http://localhost:9999", "authorizedDomains": ["example.com"],
                                             "limits": NO_LIMITS, "mail": relay_mail(relay), "branding": {"appName": "Example App"}})
    email = unique("victim")
    sign_up(a, email, "first password")
    answers = []
    for index in range(12):
        replica = (a, b)[index % 2]
        # The email action API: it says when a mailbox's budget refuses (TOO_MANY_ATTEMPTS_TRY_LATER).
        answers.append(post(replica.base, "/v1/accounts:sendOobCode", {"requestType": "PASSWORD_RESET", "email": email}, key="demo-api-key"))
    accepted = sum(answer.status == 200 for answer in answers)
    assert all(answer.status == 200 or answer.message.startswith("TOO_MANY_ATTEMPTS_TRY_LATER") for answer in answers), answers
    # A reset's mail is written after the answer: wait until every accepted one is queued, or (should
    # a budget refuse after the answer) until the count has stopped growing.
    where = f"recipient LIKE '%{email}%'"
    deadline = time.monotonic() + 30
    queued, steady_since = database.count("mail", where), time.monotonic()
    while queued < accepted and time.monotonic() - steady_since < 3 and time.monotonic() < deadline:
        time.sleep(0.2)
        now_queued = database.count("mail", where)
        if now_queued != queued:
            queued, steady_since = now_queued, time.monotonic()
    time.sleep(1)  # room for one more to show
    queued = database.count("mail", where)
    assert 1 <= queued <= 5, f"{queued} mails queued to one mailbox by two replicas ({accepted} of 12 requests accepted); the budget is 5 an hour"
    delivered = [message for message in relay.wait_for(queued, timeout=60) if email in message.rcpt_tos]
    assert len(delivered) <= 5, len(delivered)


def test_console_sign_in_budget_per_address_is_shared_by_replicas(launch):
    (a, b), _ = two_replicas(launch, console_configuration())
    token = console_form_token(a)  # both replicas seal forms with the same secret
    answers = []
    started = time.monotonic()
    for index in range(11):
        # Paced, so that each replica alone would have let every attempt through (its own 10 a minute,
        # 5 at once); all 11 fall within one minute.
        time.sleep(max(0.0, started + 1.2 * index - time.monotonic()))
        answers.append(console_sign_in((a, b)[index % 2], token, "ops", f"wrong password {index}"))
    assert all(answer.status in (401, 429) for answer in answers), answers
    assert any(answer.status == 429 and answer.retry_after for answer in answers), \
        f"11 wrong passwords in a minute from one address across two replicas, none refused: {[answer.status for answer in answers]}"
