"""pyrebase4's auth flows against LinkDomain at http://127.0.0.1:PORT (argv[1]).

Runs in its own virtual environment (pyrebase4 pins urllib3 below 2). pyrebase4 has no emulator
setting: it posts to https://www.googleapis.com/..., https://identitytoolkit.googleapis.com/...
and https://securetoken.googleapis.com/...; this script sends those to LinkDomain, which serves
them under /<host>/<path> as the Auth emulator does. Prints one JSON object of what it saw.
"""

import base64
import json
import sys

import requests

import pyrebase
import pyrebase.pyrebase as module

PORT = int(sys.argv[1])


class Redirected:
    """`requests` with every https://HOST/PATH sent to the local server as /HOST/PATH."""

    Session = requests.Session
    exceptions = requests.exceptions

    @staticmethod
    def post(url, **kwargs):
        return requests.post(url.replace("https://", f"http://127.0.0.1:{PORT}/", 1), **kwargs)

    @staticmethod
    def get(url, **kwargs):
        return requests.get(url.replace("https://", f"http://127.0.0.1:{PORT}/", 1), **kwargs)


module.requests = Redirected

firebase = pyrebase.initialize_app({"apiKey": "any-key", "authDomain": "links.example.com", "databaseURL": "https://db.example.com",
                                    "storageBucket": "bucket"})
auth = firebase.auth()
seen = {}

created = auth.create_user_with_email_and_password("pyre@example.com", "password1")
seen["created"] = bool(created["idToken"]) and created["email"] == "pyre@example.com"
user = auth.sign_in_with_email_and_password("pyre@example.com", "password1")
seen["signed_in"] = user["localId"] == created["localId"]
refreshed = auth.refresh(user["refreshToken"])
seen["refreshed"] = refreshed["userId"] == user["localId"] and bool(refreshed["idToken"]) and refreshed["refreshToken"] == user["refreshToken"]
info = auth.get_account_info(refreshed["idToken"])
seen["account_info"] = info["users"][0]["email"] == "pyre@example.com"
seen["verification_sent"] = auth.send_email_verification(user["idToken"])["email"] == "pyre@example.com"
seen["reset_sent"] = auth.send_password_reset_email("pyre@example.com")["email"] == "pyre@example.com"
profile = auth.update_profile(user["idToken"], display_name="Pyre")
seen["profile"] = profile["displayName"] == "Pyre"
anonymous = auth.sign_in_anonymous()
seen["anonymous"] = bool(anonymous["idToken"]) and not anonymous.get("email")
payload = {"uid": "pyre-custom", "claims": {"team": "blue"},
           "aud": "https://identitytoolkit.googleapis.com/google.identity.identitytoolkit.v1.IdentityToolkit"}
unsigned = ".".join(base64.urlsafe_b64encode(json.dumps(part).encode()).decode().rstrip("=")
                    for part in ({"alg": "none", "typ": "JWT"}, payload)) + "."
custom = auth.sign_in_with_custom_token(unsigned)
seen["custom_token"] = bool(custom["idToken"])
auth.delete_user_account(user["idToken"])
try:
    auth.sign_in_with_email_and_password("pyre@example.com", "password1")
    seen["deleted"] = False
except requests.exceptions.HTTPError as error:
    seen["deleted"] = json.loads(error.args[1])["error"]["message"] in ("EMAIL_NOT_FOUND", "INVALID_LOGIN_CREDENTIALS")
print(json.dumps(seen))
