"""firebase-admin's user management as its own integration suite drives it against an emulator:
custom claims, phone numbers, get_users, listing, batch delete, revocation, custom tokens,
session cookies and user import with each password hash algorithm."""

import hashlib
import hmac
import json
import os
import tempfile
import time
import urllib.error
import urllib.request

import pytest

from conftest import Server

PROJECT = "demo-compat"


@pytest.fixture(scope="module")
def server():
    server = Server(tempfile.mkdtemp(prefix="linkdomain-compat-"), "compat", {
        "publicBaseURL": "https://links.example.com",
        "server": {"forceDevelopmentMode": True},
        "authorizedDomains": ["app.example.com"],
        "backend": {"kind": "embedded", "projectID": PROJECT},
        "storage": {"sqlitePath": "auth.sqlite"},
        # Every call here comes from 127.0.0.1.
        "limits": {"requestsPerMinute": 1000000, "burst": 1000000},
    })
    yield server
    server.stop()


@pytest.fixture(scope="module")
def auth(server):
    import firebase_admin
    from firebase_admin import auth as admin_auth

    os.environ["FIREBASE_AUTH_EMULATOR_HOST"] = f"127.0.0.1:{server.port}"
    app = firebase_admin.initialize_app(options={"projectId": PROJECT}, name="linkdomain-compat")
    yield app, admin_auth
    firebase_admin.delete_app(app)


def call(server, path, body, admin=False, method="POST"):
    """One Identity Toolkit call as a client (any API key) or an admin (`Bearer owner`); (status, JSON)."""
    headers = {"Content-Type": "application/json"}
    if admin:
        headers["Authorization"] = "Bearer owner"
    separator = "&" if "?" in path else "?"
    request = urllib.request.Request(f"{server.base}/{path}{separator}key=any-key", method=method,
                                     data=None if body is None else json.dumps(body).encode(), headers=headers)
    try:
        with urllib.request.urlopen(request) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as error:
        return error.code, json.load(error)


def v1(operation):
    return f"identitytoolkit.googleapis.com/v1/{operation}"


def sign_in_with_custom_token(server, token):
    status, body = call(server, v1("accounts:signInWithCustomToken"), {"token": token, "returnSecureToken": True})
    assert status == 200, body
    return body


def test_custom_claims_stored_returned_and_in_tokens(auth, server):
    app, admin_auth = auth
    user = admin_auth.create_user(email="claims@example.com", password="password1", app=app)
    admin_auth.set_custom_user_claims(user.uid, {"admin": True, "level": 3}, app=app)
    assert admin_auth.get_user(user.uid, app=app).custom_claims == {"admin": True, "level": 3}
    status, signed_in = call(server, v1("accounts:signInWithPassword"), {"email": "claims@example.com", "password": "password1",
                                                                          "returnSecureToken": True})
    assert status == 200
    claims = admin_auth.verify_id_token(signed_in["idToken"], app=app)
    assert claims["admin"] is True and claims["level"] == 3
    admin_auth.set_custom_user_claims(user.uid, None, app=app)
    assert admin_auth.get_user(user.uid, app=app).custom_claims is None
    with pytest.raises(ValueError):
        admin_auth.set_custom_user_claims(user.uid, {"sub": "x"}, app=app)  # refused by the SDK itself
    status, body = call(server, v1(f"projects/{PROJECT}/accounts:update"),
                        {"localId": user.uid, "customAttributes": json.dumps({"firebase": 1})}, admin=True)
    assert status == 400 and body["error"]["message"] == "FORBIDDEN_CLAIM : firebase"


def test_phone_numbers(auth):
    app, admin_auth = auth
    user = admin_auth.create_user(phone_number="+15555550100", app=app)
    assert admin_auth.get_user_by_phone_number("+15555550100", app=app).uid == user.uid
    assert [p.provider_id for p in admin_auth.get_user(user.uid, app=app).provider_data] == ["phone"]
    with pytest.raises(admin_auth.PhoneNumberAlreadyExistsError):
        admin_auth.create_user(phone_number="+15555550100", app=app)
    with pytest.raises(ValueError):
        admin_auth.create_user(phone_number="5555550100", app=app)  # the SDK refuses it before sending
    updated = admin_auth.update_user(user.uid, phone_number=admin_auth.DELETE_ATTRIBUTE, app=app)
    assert updated.phone_number is None and updated.provider_data == []


def test_get_users_deduplicates_and_drops_missing(auth):
    app, admin_auth = auth
    user = admin_auth.create_user(email="many@example.com", app=app)
    result = admin_auth.get_users([admin_auth.UidIdentifier(user.uid), admin_auth.EmailIdentifier("many@example.com"),
                                   admin_auth.UidIdentifier("nobody")], app=app)
    assert [u.uid for u in result.users] == [user.uid]
    assert len(result.not_found) == 1
    with pytest.raises(admin_auth.UserNotFoundError):
        admin_auth.get_user("non.existing", app=app)


def test_last_refresh_and_revocation(auth, server):
    app, admin_auth = auth
    user = admin_auth.create_user(email="revoke@example.com", password="password1", app=app)
    assert admin_auth.get_user(user.uid, app=app).user_metadata.last_refresh_timestamp is None
    _, signed_in = call(server, v1("accounts:signInWithPassword"), {"email": "revoke@example.com", "password": "password1"})
    assert admin_auth.get_user(user.uid, app=app).user_metadata.last_refresh_timestamp
    assert admin_auth.verify_id_token(signed_in["idToken"], check_revoked=True, app=app)["uid"] == user.uid
    time.sleep(1)
    admin_auth.revoke_refresh_tokens(user.uid, app=app)
    with pytest.raises(admin_auth.RevokedIdTokenError):
        admin_auth.verify_id_token(signed_in["idToken"], check_revoked=True, app=app)
    status, body = call(server, "securetoken.googleapis.com/v1/token", {"grant_type": "refresh_token",
                                                                        "refresh_token": signed_in["refreshToken"]})
    assert status == 400 and body["error"]["message"] == "TOKEN_EXPIRED"


def test_list_users_pages_and_batch_delete(auth):
    app, admin_auth = auth
    uids = [admin_auth.create_user(uid=f"list-{index:02}", password="password1", app=app).uid for index in range(5)]
    listed = []
    page = admin_auth.list_users(max_results=2, app=app)
    while page:
        listed += [u.uid for u in page.users]
        page = page.get_next_page()
    assert set(uids) <= set(listed) and len(listed) == len(set(listed))
    assert all(u.password_hash for u in admin_auth.list_users(app=app).iterate_all() if u.uid in uids)
    result = admin_auth.delete_users(uids + ["never-existed"], app=app)
    assert result.success_count == 6 and result.failure_count == 0
    assert admin_auth.get_users([admin_auth.UidIdentifier(uid) for uid in uids], app=app).users == []


def test_custom_tokens_and_session_cookies(auth, server):
    app, admin_auth = auth
    token = admin_auth.create_custom_token("custom-user", {"premium": True}, app=app).decode()
    signed_in = sign_in_with_custom_token(server, token)
    claims = admin_auth.verify_id_token(signed_in["idToken"], app=app)
    assert claims["uid"] == "custom-user" and claims["premium"] is True
    assert claims["firebase"]["sign_in_provider"] == "custom"
    cookie = admin_auth.create_session_cookie(signed_in["idToken"], expires_in=86400, app=app)
    verified = admin_auth.verify_session_cookie(cookie, check_revoked=True, app=app)
    assert verified["uid"] == "custom-user" and verified["premium"] is True
    assert verified["iss"] == f"https://session.firebase.google.com/{PROJECT}"
    assert abs(verified["exp"] - (time.time() + 86400)) < 5
    with pytest.raises(admin_auth.InvalidIdTokenError):
        admin_auth.create_session_cookie("not.a.token", expires_in=86400, app=app)


@pytest.mark.parametrize("algorithm", ["SCRYPT", "STANDARD_SCRYPT", "PBKDF2_SHA256", "HMAC_SHA256", "BCRYPT"])
def test_import_users_with_each_hash(auth, server, algorithm):
    app, admin_auth = auth
    password = "correct horse"
    salt = b"NaClNaCl"
    email = f"import-{algorithm.lower()}@example.com"
    if algorithm == "SCRYPT":
        import firebase_scrypt  # Firebase's modified scrypt, as the PyPI reference implements it
        signer_key = os.urandom(64)
        derived = firebase_scrypt.generate_derived_key(password, salt, b"\x07", 8, 14)
        password_hash = firebase_scrypt.encrypt(signer_key, derived)
        options = admin_auth.UserImportHash.scrypt(key=signer_key, rounds=8, memory_cost=14, salt_separator=b"\x07")
    elif algorithm == "STANDARD_SCRYPT":
        password_hash = hashlib.scrypt(password.encode(), salt=salt, n=16384, r=8, p=1, dklen=64)
        options = admin_auth.UserImportHash.standard_scrypt(memory_cost=16384, parallelization=1, block_size=8, derived_key_length=64)
    elif algorithm == "PBKDF2_SHA256":
        password_hash = hashlib.pbkdf2_hmac("sha256", password.encode(), salt, 10000)
        options = admin_auth.UserImportHash.pbkdf2_sha256(rounds=10000)
    elif algorithm == "HMAC_SHA256":
        key = b"the signer key"
        password_hash = hmac.new(key, password.encode() + salt, hashlib.sha256).digest()
        options = admin_auth.UserImportHash.hmac_sha256(key=key)
    else:
        bcrypt = pytest.importorskip("bcrypt")
        password_hash = bcrypt.hashpw(password.encode(), bcrypt.gensalt(rounds=6))
        salt = None
        options = admin_auth.UserImportHash.bcrypt()
    record = admin_auth.ImportUserRecord(uid=f"imported-{algorithm.lower()}", email=email, password_hash=password_hash,
                                         password_salt=salt, custom_claims={"imported": True})
    result = admin_auth.import_users([record], hash_alg=options, app=app)
    assert result.success_count == 1, [error.reason for error in result.errors]
    status, signed_in = call(server, v1("accounts:signInWithPassword"), {"email": email, "password": password})
    assert status == 200, signed_in
    status, wrong = call(server, v1("accounts:signInWithPassword"), {"email": email, "password": "wrong password"})
    assert status == 400
    assert admin_auth.verify_id_token(signed_in["idToken"], app=app)["imported"] is True
