"""Mail in a deployment: links on the public https host, the relay's password and the mails'
addresses, links and codes never in a log or in `check`'s output; without a relay, the API says
mail is off instead of pretending."""

import json
import subprocess

import pytest

from conftest import BINARY, Server
from mailtest import running_relay, call, link_in, mail_configuration, parse, send_action

API_KEY = "deployment-client-key"
ADMIN_KEY = "deployment-admin-key-0123456789abcdef0123"
DEPLOYMENT = {"publicBaseURL": "https://links.example.com",
              "backend": {"apiKeys": [API_KEY], "adminKeys": [ADMIN_KEY]}}


@pytest.fixture(scope="module")
def relay(tmp_path_factory):
    with running_relay(tmp_path_factory.mktemp("ca")) as relay:
        yield relay


def test_deployment_mails_without_telling_the_logs(tmp_path, relay, monkeypatch):
    import mailtest
    monkeypatch.setattr(mailtest, "API_KEY", API_KEY)
    configuration = mail_configuration(relay, relay.ca, DEPLOYMENT)
    server = Server(tmp_path, "deployment", configuration)
    try:
        assert "mode:              deployment" in server.output()
        status, _ = call(server.base, "/identitytoolkit.googleapis.com/v1/accounts:signUp",
                         {"email": "private@example.com", "password": "secret-1", "returnSecureToken": True})
        assert status == 200
        status, answer = send_action(server.base, {"requestType": "PASSWORD_RESET", "email": "private@example.com"})
        assert status == 200, answer
        # The embedded backend's own client API mails too (what the Firebase SDKs call).
        status, answer = call(server.base, "/identitytoolkit.googleapis.com/v1/accounts:sendOobCode",
                              {"requestType": "PASSWORD_RESET", "email": "private@example.com"})
        assert status == 200, answer
        messages = relay.wait_for(2, timeout=15)[-2:]
        links = [link_in(parse(message)) for message in messages]
        assert all(link.startswith("https://links.example.com/__/auth/action?") for link in links)
        output = server.output()
        codes = [link.split("oobCode=")[1].split("&")[0] for link in links]
        for secret in ["relay-secret", "private@example.com", *codes]:
            assert secret not in output
        path = tmp_path / "check.json"
        path.write_text(json.dumps(configuration))
        checked = subprocess.run([str(BINARY), "check", "--config", str(path)], capture_output=True, text=True, timeout=60)
        assert checked.returncode == 0, checked.stderr
        assert "mail: from noreply@example.com through smtp://linkdomain:***@127.0.0.1" in checked.stdout
        assert "relay-secret" not in checked.stdout + checked.stderr
    finally:
        server.stop()


def test_deployment_without_a_relay_says_mail_is_off(tmp_path, monkeypatch):
    import mailtest
    monkeypatch.setattr(mailtest, "API_KEY", API_KEY)
    server = Server(tmp_path, "no-relay", {**DEPLOYMENT, "limits": {"requestsPerMinute": 100000, "burst": 100000}})
    try:
        status, answer = send_action(server.base, {"requestType": "PASSWORD_RESET", "email": "a@example.com"})
        assert status == 400 and answer["error"]["message"] == "OPERATION_NOT_ALLOWED : this link domain sends no mail: set mail.smtpURL"
    finally:
        server.stop()
