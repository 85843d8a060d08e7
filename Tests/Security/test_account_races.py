"""Accounts under concurrent attack, on both stores (a SQLite file and PostgreSQL): a sign-in that
read the account before a password reset or an email-link sign-in cannot write the old account
back; sessions begun before a revocation (even earlier in the same second), or of a disabled
account, are refused everywhere a token is taken; and a session cookie is not an ID token."""

import tempfile
import threading
import time
import uuid

import pytest

from conftest import POSTGRES, Server, fresh_database, post_json

PROJECT = "demo-linkdomain"
V1 = "/identitytoolkit.googleapis.com/v1"
OWNER = {"Authorization": "Bearer owner"}


def call(server, path, body, headers=None):
    """(status, JSON answer) of a POST; client calls carry any API key (development)."""
    return post_json(server.base + path + ("&" if "?" in path else "?") + "key=any", body, headers)


def message(answer):
    return answer[1].get("error", {}).get("message", "") if isinstance(answer[1], dict) else ""


def sign_in(server, email, password):
    return call(server, f"{V1}/accounts:signInWithPassword", {"email": email, "password": password, "returnSecureToken": True})


def refresh(server, token):
    return call(server, "/securetoken.googleapis.com/v1/token", {"grant_type": "refresh_token", "refresh_token": token})


def admin_code(server, request_type, email, **extra):
    status, answer = call(server, f"{V1}/accounts:sendOobCode",
                          {"requestType": request_type, "email": email, "returnOobLink": True, **extra}, OWNER)
    assert status == 200, answer
    return answer["oobCode"]


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def server(request):
    directory = tempfile.mkdtemp(prefix="linkdomain-races-")
    if request.param == "sqlite":
        storage = {"sqlitePath": f"{directory}/auth.sqlite"}
    else:
        if not POSTGRES:
            pytest.fail("TEST_POSTGRES_URL is not set: scripts/test starts PostgreSQL")
        storage = {"postgresURL": fresh_database()}
    server = Server(directory, request.param, {
        "backend": {"kind": "embedded", "projectID": PROJECT},
        "storage": storage,
        "authorizedDomains": ["example.com"],
        "limits": {"requestsPerMinute": 1000000, "burst": 1000000},
    })
    yield server
    server.stop()


class Attacker:
    """Threads signing in with `password` as fast as the server answers, keeping every session won."""

    def __init__(self, server, email, password, threads=5):
        self.server, self.email, self.password = server, email, password
        self.refresh_tokens = []
        self.stop = threading.Event()
        self.threads = [threading.Thread(target=self.run) for _ in range(threads)]

    def run(self):
        while not self.stop.is_set():
            status, answer = sign_in(self.server, self.email, self.password)
            if status == 200:
                self.refresh_tokens.append(answer["refreshToken"])

    def __enter__(self):
        for thread in self.threads:
            thread.start()
        return self

    def wait_for_a_session(self, timeout=20):
        """Until the attacker holds a session (a busy machine hashes slowly), so that the race is run."""
        deadline = time.monotonic() + timeout
        while not self.refresh_tokens and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.1)  # and more sign-ins in flight

    def __exit__(self, *exc_info):
        self.stop.set()
        for thread in self.threads:
            thread.join()


def assert_no_session_survives(server, refresh_tokens):
    survivors = [token for token in refresh_tokens if refresh(server, token)[0] == 200]
    assert not survivors, f"{len(survivors)} of {len(refresh_tokens)} sessions begun before the change still refresh"


@pytest.mark.parametrize("trial", range(6))
def test_a_reset_during_sign_ins_with_the_old_password_holds(server, trial):
    email = f"reset-{trial}-{uuid.uuid4().hex[:8]}@example.com"
    assert call(server, f"{V1}/accounts:signUp", {"email": email, "password": "old password"})[0] == 200
    code = admin_code(server, "PASSWORD_RESET", email)
    with Attacker(server, email, "old password") as attacker:
        attacker.wait_for_a_session()
        status, answer = call(server, f"{V1}/accounts:resetPassword", {"oobCode": code, "newPassword": "new password"})
        assert status == 200, answer
        time.sleep(0.5)
    assert attacker.refresh_tokens, "the attacker never signed in: the race was not run"
    assert message(sign_in(server, email, "old password")) == "INVALID_LOGIN_CREDENTIALS"
    assert sign_in(server, email, "new password")[0] == 200
    assert_no_session_survives(server, attacker.refresh_tokens)


@pytest.mark.parametrize("trial", range(4))
def test_an_email_link_sign_in_ends_a_squatters_password_however_they_race_it(server, trial):
    email = f"owner-{trial}-{uuid.uuid4().hex[:8]}@example.com"
    # Someone who does not own the address registers it first, with a password of their own.
    assert call(server, f"{V1}/accounts:signUp", {"email": email, "password": "squatter password"})[0] == 200
    code = admin_code(server, "EMAIL_SIGNIN", email, continueUrl="https://example.com/done")
    with Attacker(server, email, "squatter password") as squatter:
        squatter.wait_for_a_session()
        status, answer = call(server, f"{V1}/accounts:signInWithEmailLink", {"oobCode": code, "email": email})
        assert status == 200, answer
        time.sleep(0.5)
    assert squatter.refresh_tokens, "the squatter never signed in: the race was not run"
    assert message(sign_in(server, email, "squatter password")) == "INVALID_LOGIN_CREDENTIALS"
    assert_no_session_survives(server, squatter.refresh_tokens)


def new_account(server):
    email = f"tokens-{uuid.uuid4().hex[:10]}@example.com"
    status, answer = call(server, f"{V1}/accounts:signUp", {"email": email, "password": "first password", "returnSecureToken": True})
    assert status == 200, answer
    return email, answer


def refusals(server, id_token, refresh_token):
    """What each place that takes a token answers for these."""
    return {
        "lookup": message(call(server, f"{V1}/accounts:lookup", {"idToken": id_token})),
        "update": message(call(server, f"{V1}/accounts:update", {"idToken": id_token, "displayName": "Mallory"})),
        "createSessionCookie": message(call(server, f"{V1}/projects/{PROJECT}:createSessionCookie", {"idToken": id_token}, OWNER)),
        "sendOobCode": message(call(server, f"{V1}/accounts:sendOobCode", {"requestType": "VERIFY_EMAIL", "idToken": id_token})),
        "refresh": message(refresh(server, refresh_token)),
        "delete": message(call(server, f"{V1}/accounts:delete", {"idToken": id_token})),
    }


@pytest.mark.parametrize("trial", range(6))
def test_a_password_change_ends_sessions_begun_earlier_in_the_same_second(server, trial):
    email, first = new_account(server)
    _, session = sign_in(server, email, "first password")
    status, changed = call(server, f"{V1}/accounts:update", {"idToken": first["idToken"], "password": "second password",
                                                             "returnSecureToken": True})
    assert status == 200, changed
    assert all(answer.startswith("TOKEN_EXPIRED") for answer in refusals(server, session["idToken"], session["refreshToken"]).values())
    # The session the change itself started works at once.
    assert call(server, f"{V1}/accounts:lookup", {"idToken": changed["idToken"]})[0] == 200
    assert refresh(server, changed["refreshToken"])[0] == 200


def test_valid_since_set_by_an_admin_ends_every_earlier_session(server):
    email, account = new_account(server)
    status, answer = call(server, f"{V1}/accounts:update", {"localId": account["localId"], "validSince": str(int(time.time()) + 1)}, OWNER)
    assert status == 200, answer
    assert all(answer.startswith("TOKEN_EXPIRED") for answer in refusals(server, account["idToken"], account["refreshToken"]).values())


def test_a_user_sending_valid_since_ends_their_earlier_sessions(server):
    """The Firebase Auth emulator's own case: the field's presence revokes, whatever its value."""
    email, first = new_account(server)
    _, second = sign_in(server, email, "first password")
    status, answer = call(server, f"{V1}/accounts:update", {"idToken": second["idToken"], "validSince": "0", "returnSecureToken": True})
    assert status == 200, answer
    for session in [first, second]:
        assert all(answer.startswith("TOKEN_EXPIRED") for answer in refusals(server, session["idToken"], session["refreshToken"]).values())
    assert call(server, f"{V1}/accounts:lookup", {"idToken": answer["idToken"]})[0] == 200


def test_a_disabled_account_is_refused_everywhere(server):
    email, account = new_account(server)
    assert call(server, f"{V1}/accounts:update", {"localId": account["localId"], "disableUser": True}, OWNER)[0] == 200
    assert all(answer.startswith("USER_DISABLED") for answer in refusals(server, account["idToken"], account["refreshToken"]).values())
    assert message(sign_in(server, email, "first password")).startswith("USER_DISABLED")


def test_a_session_cookie_is_not_an_id_token(server):
    _, account = new_account(server)
    status, answer = call(server, f"{V1}/projects/{PROJECT}:createSessionCookie", {"idToken": account["idToken"], "validDuration": 1209600},
                          OWNER)
    assert status == 200, answer
    cookie = answer["sessionCookie"]
    assert message(call(server, f"{V1}/accounts:lookup", {"idToken": cookie})).startswith("INVALID_ID_TOKEN")
    assert message(call(server, f"{V1}/accounts:update", {"idToken": cookie, "password": "taken over"})).startswith("INVALID_ID_TOKEN")
    assert message(call(server, f"{V1}/projects/{PROJECT}:createSessionCookie", {"idToken": cookie}, OWNER)).startswith("INVALID_ID_TOKEN")
    # The ID token it was made from still works.
    assert call(server, f"{V1}/accounts:lookup", {"idToken": account["idToken"]})[0] == 200
