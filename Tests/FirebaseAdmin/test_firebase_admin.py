"""The real firebase-admin SDK, as an outside client, against a running LinkDomain (embedded backend)."""

import json
import os
import tempfile
import urllib.parse
import urllib.request

import pytest

from conftest import Server

PROJECT = "demo-linkdomain"


@pytest.fixture(scope="module")
def server():
    """`linkdomain serve` on a free port with a fresh database; FIREBASE_AUTH_EMULATOR_HOST points at it."""
    server = Server(tempfile.mkdtemp(prefix="linkdomain-admin-"), "admin", {
        "publicBaseURL": "https://links.example.com",
        # firebase-admin speaks to an emulator with `Bearer owner`: development, forced because the
        # links name a public host.
        "server": {"forceDevelopmentMode": True},
        "apple": {"apps": [{"teamID": "ABCDE12345", "bundleID": "com.example.app"}]},
        "android": {"apps": [{"packageName": "com.example.app", "fingerprints": ["AB" * 32]}]},
        "authorizedDomains": ["app.example.com"],
        "backend": {"kind": "embedded", "projectID": PROJECT},
        "storage": {"sqlitePath": "auth.sqlite"},
    })
    os.environ["FIREBASE_AUTH_EMULATOR_HOST"] = f"127.0.0.1:{server.port}"
    yield server.base
    server.stop()


@pytest.fixture(scope="module")
def auth(server):
    import firebase_admin
    from firebase_admin import auth as admin_auth

    app = firebase_admin.initialize_app(options={"projectId": PROJECT}, name="linkdomain-test")
    yield lambda: app, admin_auth
    firebase_admin.delete_app(app)


def client_call(server, operation, body):
    request = urllib.request.Request(f"{server}/identitytoolkit.googleapis.com/v1/{operation}?key=any-key",
                                     data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request) as response:
        return json.load(response)


def action_parameters(link):
    """Unwraps /__/auth/links?link=... as the JS SDK does and returns the action URL's parameters."""
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(link).query)
    if "link" in query:
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(query["link"][0]).query)
    return {key: values[0] for key, values in query.items()}


def test_create_read_update_delete(auth):
    get_app, admin_auth = auth
    user = admin_auth.create_user(email="ada@example.com", password="correct horse", display_name="Ada", app=get_app())
    assert user.email == "ada@example.com"
    assert user.display_name == "Ada"
    assert admin_auth.get_user(user.uid, app=get_app()).email == "ada@example.com"
    assert admin_auth.get_user_by_email("ada@example.com", app=get_app()).uid == user.uid
    updated = admin_auth.update_user(user.uid, display_name="Ada L.", email_verified=True, app=get_app())
    assert updated.display_name == "Ada L."
    assert updated.email_verified is True
    admin_auth.delete_user(user.uid, app=get_app())
    with pytest.raises(admin_auth.UserNotFoundError):
        admin_auth.get_user(user.uid, app=get_app())


def test_password_reset_link(auth, server):
    get_app, admin_auth = auth
    admin_auth.create_user(email="reset@example.com", password="old password", app=get_app())
    settings = admin_auth.ActionCodeSettings(url="https://app.example.com/done?a=1&b=2")
    link = admin_auth.generate_password_reset_link("reset@example.com", settings, app=get_app())
    assert link.startswith("https://links.example.com/__/auth/action?apiKey=")
    parameters = action_parameters(link)
    assert parameters["mode"] == "resetPassword"
    assert parameters["continueUrl"] == "https://app.example.com/done?a=1&b=2"
    check = client_call(server, "accounts:resetPassword", {"oobCode": parameters["oobCode"]})
    assert check["email"] == "reset@example.com"
    client_call(server, "accounts:resetPassword", {"oobCode": parameters["oobCode"], "newPassword": "new password"})
    signed_in = client_call(server, "accounts:signInWithPassword", {"email": "reset@example.com", "password": "new password"})
    assert signed_in["idToken"]


def test_verify_email_link(auth, server):
    get_app, admin_auth = auth
    user = admin_auth.create_user(email="verify@example.com", password="password1", app=get_app())
    link = admin_auth.generate_email_verification_link("verify@example.com", app=get_app())
    parameters = action_parameters(link)
    assert parameters["mode"] == "verifyEmail"
    client_call(server, "accounts:update", {"oobCode": parameters["oobCode"]})
    assert admin_auth.get_user(user.uid, app=get_app()).email_verified is True


def test_sign_in_with_email_link(auth, server):
    get_app, admin_auth = auth
    settings = admin_auth.ActionCodeSettings(url="https://app.example.com/finish", handle_code_in_app=True,
                                             ios_bundle_id="com.example.app", android_package_name="com.example.app",
                                             android_install_app=True, android_minimum_version="12")
    link = admin_auth.generate_sign_in_with_email_link("new@example.com", settings, app=get_app())
    assert link.startswith("https://links.example.com/__/auth/links?link=")
    parameters = action_parameters(link)
    assert parameters["mode"] == "signIn"
    assert parameters["continueUrl"] == "https://app.example.com/finish"
    signed_in = client_call(server, "accounts:signInWithEmailLink", {"email": "new@example.com", "oobCode": parameters["oobCode"]})
    assert signed_in["isNewUser"] is True
    user = admin_auth.get_user_by_email("new@example.com", app=get_app())
    assert user.uid == signed_in["localId"]
    assert user.email_verified is True
