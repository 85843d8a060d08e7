"""Every answer against the schema Google publishes for it: Google's own generated API client
(`google-api-python-client`, static discovery documents `identitytoolkit v1` and
`firebasedynamiclinks v1`, pointed at the server with `client_options`) drives each endpoint
docs/backends.md claims, and each answer is held to the method's response schema: no field outside it,
each field of its JSON type (64-bit integers as strings), enum values from their list. A
violation fails naming the method and the field's path."""

import base64
import json
import os
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid

import httplib2
import pytest
from googleapiclient.discovery import build

from conftest import Server, post_json

PROJECT = "demo-linkdomain"
API_KEY = "schema-api-key"
ADMIN_KEY = "schema-admin-key-0123456789abcdef0123456789"
LINK_KEY = "schema-short-link-key-0123456789"


class Conformance:
    """Holds answers to the discovery document's schemas."""

    def __init__(self, document):
        self.schemas = document["schemas"]

    def check(self, method, value, schema, path="$"):
        if "$ref" in schema:
            return self.check(method, value, self.schemas[schema["$ref"]], path)
        kind = schema.get("type")
        where = f"{method}: {path}"
        if kind == "object":
            assert isinstance(value, dict), f"{where} is {type(value).__name__}, not an object"
            properties = schema.get("properties", {})
            for name, member in value.items():
                if name in properties:
                    self.check(method, member, properties[name], f"{path}.{name}")
                elif "additionalProperties" in schema:
                    self.check(method, member, schema["additionalProperties"], f"{path}.{name}")
                else:
                    raise AssertionError(f"{where}.{name} is not in the schema {schema.get('id', '')}")
        elif kind == "array":
            assert isinstance(value, list), f"{where} is {type(value).__name__}, not an array"
            for index, item in enumerate(value):
                self.check(method, item, schema["items"], f"{path}[{index}]")
        elif kind == "string":
            assert isinstance(value, str), f"{where} is {type(value).__name__} {value!r}, not a string" + (
                f" (format {schema['format']})" if "format" in schema else "")
            if "enum" in schema:
                assert value in schema["enum"], f"{where} is {value!r}, not one of {schema['enum']}"
        elif kind == "integer":
            assert isinstance(value, int) and not isinstance(value, bool), f"{where} is {value!r}, not an integer"
        elif kind == "number":
            assert isinstance(value, (int, float)) and not isinstance(value, bool), f"{where} is {value!r}, not a number"
        elif kind == "boolean":
            assert isinstance(value, bool), f"{where} is {value!r}, not a boolean"
        elif kind == "any" or kind is None:
            pass
        else:
            raise AssertionError(f"{where}: unknown schema type {kind}")


class WithHeaders(httplib2.Http):
    """An HTTP transport that adds fixed headers (an admin's bearer key) to every request."""

    def __init__(self, headers):
        super().__init__(timeout=30)
        self.fixed = headers

    def request(self, uri, method="GET", body=None, headers=None, **keywords):
        return super().request(uri, method, body, {**(headers or {}), **self.fixed}, **keywords)


@pytest.fixture(scope="module", params=["development", "deployment"])
def server(request):
    directory = tempfile.mkdtemp(prefix="linkdomain-schema-")
    configuration = {
        "backend": {"kind": "embedded", "projectID": PROJECT},
        "storage": {"sqlitePath": f"{directory}/auth.sqlite"},
        "authorizedDomains": ["example.com"],
        "shortLinks": {"apiKeys": [LINK_KEY]},
        "apple": {"apps": [{"teamID": "ABCDE12345", "bundleID": "com.example.app"}]},
        "limits": {"requestsPerMinute": 1000000, "burst": 1000000},
    }
    if request.param == "deployment":
        configuration["publicBaseURL"] = "https://links.example.com"
        configuration["backend"] = {**configuration["backend"], "apiKeys": [API_KEY], "adminKeys": [ADMIN_KEY]}
    server = Server(directory, request.param, configuration)
    server.mode = request.param
    yield server
    server.stop()


def clients(server):
    admin = {"Authorization": f"Bearer {'owner' if server.mode == 'development' else ADMIN_KEY}"}
    endpoint = {"api_endpoint": server.base + "/identitytoolkit.googleapis.com/"}
    user = build("identitytoolkit", "v1", static_discovery=True, developerKey=API_KEY, client_options=endpoint, http=httplib2.Http(timeout=30))
    admin_client = build("identitytoolkit", "v1", static_discovery=True, client_options=endpoint, http=WithHeaders(admin))
    links = build("firebasedynamiclinks", "v1", static_discovery=True, developerKey=LINK_KEY,
                  client_options={"api_endpoint": server.base + "/"}, http=httplib2.Http(timeout=30))
    return user, admin_client, links


def run(conformance, document, client, path, **arguments):
    """Calls `path` (e.g. "projects.accounts.lookup") on a generated client; checks the answer
    against that method's response schema in `document`."""
    *resources, name = path.split(".")
    node, target = document, client
    for part in resources:
        node = node["resources"][part]
        target = getattr(target, part)()
    method = node["methods"][name]
    if "project" in arguments:
        # The path's one parameter names the project (`projectsId` or `targetProjectId` by method).
        parameter = method["path"].split("{+", 1)[1].split("}", 1)[0]
        arguments[parameter] = arguments.pop("project")
    answer = getattr(target, name)(**arguments).execute()
    conformance.check(path, answer, method.get("response", {"type": "object"}))
    return answer


def discovery(name):
    """A discovery document as google-api-python-client ships it."""
    import googleapiclient

    directory = os.path.join(os.path.dirname(googleapiclient.__file__), "discovery_cache", "documents")
    with open(os.path.join(directory, f"{name}.json")) as file:
        return json.load(file)


def posted(conformance, document, server, path, body, headers, schema):
    """A POST the generated client cannot make (the admin create call: `projects.accounts` is both
    a method and a resource there, and the resource wins), held to `schema` all the same."""
    status, answer = post_json(server.base + "/identitytoolkit.googleapis.com/" + path, body, headers, timeout=30)
    assert status == 200, (path, answer)
    conformance.check(path, answer, {"$ref": schema})
    return answer


def test_every_claimed_identity_toolkit_answer_matches_the_published_schema(server):
    document = discovery("identitytoolkit.v1")
    conformance = Conformance(document)
    user, admin, _ = clients(server)

    def call(client, path, **arguments):
        return run(conformance, document, client, path, **arguments)

    email = f"schema-{uuid.uuid4().hex[:8]}@example.com"
    signed_up = call(user, "accounts.signUp", body={"email": email, "password": "first password", "returnSecureToken": True})
    call(user, "accounts.signUp", body={})  # anonymous
    signed_in = call(user, "accounts.signInWithPassword", body={"email": email, "password": "first password", "returnSecureToken": True})
    call(user, "accounts.lookup", body={"idToken": signed_in["idToken"]})
    call(user, "accounts.createAuthUri", body={"identifier": email, "continueUri": "https://example.com/"})
    call(user, "accounts.update", body={"idToken": signed_in["idToken"], "displayName": "Ada", "returnSecureToken": True})
    changed = call(user, "accounts.update", body={"idToken": signed_in["idToken"], "password": "second password", "returnSecureToken": True})
    call(user, "accounts.sendOobCode", body={"requestType": "PASSWORD_RESET", "email": email})
    call(user, "accounts.sendOobCode", body={"requestType": "VERIFY_EMAIL", "idToken": changed["idToken"]})

    admin_headers = {"Authorization": f"Bearer {'owner' if server.mode == 'development' else ADMIN_KEY}"}
    created = posted(conformance, document, server, f"v1/projects/{PROJECT}/accounts",
                     {"email": f"admin-{uuid.uuid4().hex[:8]}@example.com", "password": "admin password",
                      "phoneNumber": f"+1555555{uuid.uuid4().int % 10000:04d}", "displayName": "Grace",
                      "customAttributes": json.dumps({"role": "admin"})}, admin_headers, "GoogleCloudIdentitytoolkitV1SignUpResponse")
    call(admin, "projects.accounts.lookup", project=PROJECT, body={"localId": [created["localId"], signed_up["localId"]]})
    call(admin, "projects.accounts.update", project=PROJECT, body={"localId": created["localId"], "emailVerified": True})
    reset = call(admin, "projects.accounts.sendOobCode", project=PROJECT,
                 body={"requestType": "PASSWORD_RESET", "email": email, "returnOobLink": True})
    call(user, "accounts.resetPassword", body={"oobCode": reset["oobCode"]})
    call(user, "accounts.resetPassword", body={"oobCode": reset["oobCode"], "newPassword": "third password"})
    verify = call(admin, "projects.accounts.sendOobCode", project=PROJECT,
                  body={"requestType": "VERIFY_EMAIL", "email": email, "returnOobLink": True})
    call(user, "accounts.update", body={"oobCode": verify["oobCode"]})
    link = call(admin, "projects.accounts.sendOobCode", project=PROJECT,
                body={"requestType": "EMAIL_SIGNIN", "email": email, "returnOobLink": True, "continueUrl": "https://example.com/done"})
    by_link = call(user, "accounts.signInWithEmailLink", body={"email": email, "oobCode": link["oobCode"]})
    call(admin, "projects.createSessionCookie", project=PROJECT, body={"idToken": by_link["idToken"], "validDuration": "3600"})
    call(admin, "projects.accounts.batchCreate", project=PROJECT,
         body={"users": [{"localId": f"imported-{uuid.uuid4().hex[:8]}", "email": f"imp-{uuid.uuid4().hex[:8]}@example.com",
                          "providerUserInfo": [{"providerId": "google.com", "rawId": f"g-{uuid.uuid4().hex[:8]}"}]},
                         {"localId": ""}]})
    call(admin, "projects.accounts.batchCreate", project=PROJECT, body={
        "users": [{"localId": f"hashed-{uuid.uuid4().hex[:8]}", "email": f"h-{uuid.uuid4().hex[:8]}@example.com",
                   "passwordHash": base64.b64encode(b"h" * 32).decode(), "salt": base64.b64encode(b"salt").decode()}],
        "hashAlgorithm": "HMAC_SHA256", "signerKey": base64.b64encode(b"key").decode()})
    call(admin, "projects.accounts.lookup", project=PROJECT, body={"email": [email], "federatedUserId": [{"providerId": "google.com", "rawId": "x"}]})
    call(admin, "projects.accounts.batchGet", project=PROJECT, maxResults=1000)
    # An address change confirmed by its code, then undone from the old address.
    moved = f"moved-{uuid.uuid4().hex[:8]}@example.com"
    change = call(admin, "projects.accounts.sendOobCode", project=PROJECT,
                  body={"requestType": "VERIFY_AND_CHANGE_EMAIL", "email": email, "newEmail": moved, "returnOobLink": True})
    call(user, "accounts.resetPassword", body={"oobCode": change["oobCode"]})
    call(user, "accounts.update", body={"oobCode": change["oobCode"]})
    anonymous = call(user, "accounts.signUp", body={"returnSecureToken": True})
    call(user, "accounts.signUp", body={"idToken": anonymous["idToken"], "email": f"upgraded-{uuid.uuid4().hex[:8]}@example.com",
                                        "password": "upgraded password", "returnSecureToken": True})
    throwaway = call(user, "accounts.signUp", body={"email": f"gone-{uuid.uuid4().hex[:8]}@example.com", "password": "gone password",
                                                    "returnSecureToken": True})
    call(user, "accounts.delete", body={"idToken": throwaway["idToken"]})
    call(admin, "projects.accounts.query", project=PROJECT, body={"returnUserInfo": True, "limit": "5"})
    call(admin, "projects.accounts.query", project=PROJECT, body={"returnUserInfo": False})
    call(user, "v1.getProjects")
    call(user, "v1.getSessionCookiePublicKeys")
    if server.mode == "development":
        now = int(time.time())
        custom = json.dumps({"aud": "https://identitytoolkit.googleapis.com/google.identity.identitytoolkit.v1.IdentityToolkit",
                             "iss": "firebase-adminsdk@demo-linkdomain.iam.gserviceaccount.com", "sub": "firebase-adminsdk@demo-linkdomain.iam.gserviceaccount.com",
                             "iat": now, "exp": now + 3600, "uid": f"custom-{uuid.uuid4().hex[:8]}", "claims": {"tier": "gold"}})
        token = "eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0." + base64.urlsafe_b64encode(custom.encode()).decode().rstrip("=") + "."
        call(user, "accounts.signInWithCustomToken", body={"token": token, "returnSecureToken": True})
    call(admin, "projects.accounts.batchDelete", project=PROJECT, body={"localIds": [created["localId"], "nobody"], "force": True})
    call(admin, "projects.accounts.delete", project=PROJECT, body={"localId": signed_up["localId"]})


def test_dynamic_links_answers_match_the_published_schema(server):
    document = discovery("firebasedynamiclinks.v1")
    conformance = Conformance(document)
    _, _, links = clients(server)
    domain = server.base if server.mode == "development" else "https://links.example.com"
    created = run(conformance, document, links, "shortLinks.create",
                  body={"longDynamicLink": f"{domain}/?link=https://example.com/welcome&apn=com.example.app&ibi=com.example.app"})
    short = created["shortLink"]
    run(conformance, document, links, "shortLinks.create",
        body={"dynamicLinkInfo": {"domainUriPrefix": domain, "link": "https://example.com/deep",
                                  "androidInfo": {"androidPackageName": "com.example.app"}},
              "suffix": {"option": "SHORT"}})
    # CUSTOM, as the published Suffix schema describes it: the chosen suffix, and a taken one refused.
    chosen = f"Spring{uuid.uuid4().hex[:6]}"
    custom = {"longDynamicLink": f"{domain}/?link=https://example.com/spring", "suffix": {"option": "CUSTOM", "customSuffix": chosen}}
    made = run(conformance, document, links, "shortLinks.create", body=custom)
    assert made["shortLink"] == f"{domain}/{chosen}", made
    from googleapiclient.errors import HttpError
    for body, status in [(custom, 409), ({**custom, "suffix": {"option": "CUSTOM", "customSuffix": "has space"}}, 400),
                         ({**custom, "suffix": {"option": "CUSTOM", "customSuffix": "__/auth"}}, 400),
                         ({"longDynamicLink": f"{domain}/?link=https://shop.acme.example/spring"}, 400)]:
        with pytest.raises(HttpError) as refused:
            links.shortLinks().create(body=body).execute()
        assert refused.value.resp.status == status, (body, refused.value.content)
    # Not in the discovery document, as the console's JSON API has them: PATCH, then search by what is pasted.
    request = urllib.request.Request(f"{server.base}/v1/shortLinks/{chosen}?key={LINK_KEY}", method="PATCH",
                                     data=json.dumps({"longDynamicLink": f"{domain}/?link=https://example.com/summer"}).encode(),
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        changed = json.load(response)
    assert "summer" in changed["longDynamicLink"] and changed["shortLink"] == made["shortLink"], changed
    for pasted in [made["shortLink"], f"/{chosen}", chosen.lower(), "example.com/summer"]:
        url = f"{server.base}/v1/shortLinks?key={LINK_KEY}&query={urllib.parse.quote(pasted, safe='')}"
        with urllib.request.urlopen(url, timeout=10) as response:
            found = [link["shortLink"] for link in json.load(response).get("shortLinks", [])]
        assert made["shortLink"] in found, (pasted, found)
    # Clicks of every kind, so that the statistics have events to report.
    class NoRedirects(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *arguments):
            return None

    opener = urllib.request.build_opener(NoRedirects)
    for suffix in ["", "?d=1"]:
        try:
            opener.open(urllib.request.Request(short.replace(domain, server.base) + suffix,
                                               headers={"User-Agent": "Mozilla/5.0 (X11; Linux x86_64) Firefox/125.0"}), timeout=10)
        except urllib.error.HTTPError:
            pass  # the redirect itself
    time.sleep(1.5)  # click counts are stored in batches
    stats = run(conformance, document, links, "v1.getLinkStats", dynamicLink=short, durationDays="7")
    assert stats.get("linkEventStats"), stats


def test_app_attribution_answers_match_the_published_schema(server):
    """The app half: what an app opened with a short link learns, and an install's hand-off, through
    Google's generated client with the public key an app ships (the short-link key is refused)."""
    document = discovery("firebasedynamiclinks.v1")
    conformance = Conformance(document)
    _, _, links = clients(server)
    domain = server.base if server.mode == "development" else "https://links.example.com"
    short = run(conformance, document, links, "shortLinks.create",
                body={"longDynamicLink": f"{domain}/?link=https://example.com/item/9&ibi=com.example.app&imv=1.2&utm_source=mail"})["shortLink"]
    app = build("firebasedynamiclinks", "v1", static_discovery=True, developerKey=API_KEY,
                client_options={"api_endpoint": server.base + "/"}, http=httplib2.Http(timeout=30))
    reopened = run(conformance, document, app, "v1.reopenAttribution",
                   body={"bundleId": "com.example.app", "requestedLink": short, "sdkVersion": "11.0.0"})
    assert reopened["deepLink"] == "https://example.com/item/9" and reopened["iosMinAppVersion"] == "1.2" and reopened["utmSource"] == "mail"
    installed = run(conformance, document, app, "v1.installAttribution",
                    body={"bundleId": "com.example.app", "uniqueMatchLinkToCheck": short, "iosVersion": "18.1",
                          "device": {"deviceModelName": "iPhone17,1", "screenResolutionWidth": "1206"}})
    assert installed["attributionConfidence"] == "UNIQUE" and installed["deepLink"] == "https://example.com/item/9"
    unmatched = run(conformance, document, app, "v1.installAttribution",
                    body={"bundleId": "com.example.app", "device": {"deviceModelName": "iPhone17,1"}, "appInstallationTime": "1790000000"})
    assert "deepLink" not in unmatched and unmatched["matchMessage"]
    if server.mode == "deployment":
        from googleapiclient.errors import HttpError
        with pytest.raises(HttpError) as refused:
            links.v1().reopenAttribution(body={"bundleId": "com.example.app", "requestedLink": short}).execute()
        assert refused.value.resp.status == 403


def post(server, path, body, admin=False):
    headers = {}
    if admin:
        headers["Authorization"] = f"Bearer {'owner' if server.mode == 'development' else ADMIN_KEY}"
    else:
        path += f"?key={API_KEY}"
    return post_json(server.base + "/identitytoolkit.googleapis.com/v1/" + path, body, headers, timeout=30)


def test_an_admin_delete_without_local_id_deletes_nothing(server):
    email = f"keep-{uuid.uuid4().hex[:8]}@example.com"
    status, created = post(server, f"projects/{PROJECT}/accounts", {"email": email, "password": "keep password"}, admin=True)
    assert status == 200, created
    status, signed_in = post(server, "accounts:signInWithPassword", {"email": email, "password": "keep password", "returnSecureToken": True})
    assert status == 200, signed_in
    for path in [f"projects/{PROJECT}/accounts:delete", "accounts:delete"]:
        # The emulator's "accounts:delete should error if missing localId when OAuth credentials
        # are present": an ID token beside admin credentials names no account.
        for body in [{}, {"localId": ""}, {"tenantId": ""}, {"idToken": signed_in["idToken"]}]:
            status, answer = post(server, path, body, admin=True)
            assert (status, answer["error"]["message"]) == (400, "MISSING_LOCAL_ID"), (path, body, answer)
    status, found = post(server, f"projects/{PROJECT}/accounts:lookup", {"localId": [created["localId"]]}, admin=True)
    assert status == 200 and len(found["users"]) == 1


def test_an_admin_lookup_finds_accounts_by_federated_identity_among_other_identifiers(server):
    raw = f"g-{uuid.uuid4().hex[:10]}"
    imported = {"localId": f"fed-{uuid.uuid4().hex[:8]}", "email": f"fed-{uuid.uuid4().hex[:8]}@example.com",
                "providerUserInfo": [{"providerId": "google.com", "rawId": raw, "email": "someone@gmail.com"}]}
    other = {"localId": f"other-{uuid.uuid4().hex[:8]}", "email": f"other-{uuid.uuid4().hex[:8]}@example.com",
             "phoneNumber": f"+1555444{uuid.uuid4().int % 10000:04d}"}
    status, answer = post(server, f"projects/{PROJECT}/accounts:batchCreate", {"users": [imported, other]}, admin=True)
    assert status == 200 and not answer.get("error"), answer
    status, found = post(server, f"projects/{PROJECT}/accounts:lookup", {
        "federatedUserId": [{"providerId": "google.com", "rawId": raw}, {"providerId": "facebook.com", "rawId": raw},
                            {"providerId": "google.com", "rawId": "nobody"}],
        "localId": [imported["localId"]], "email": [other["email"]], "phoneNumber": [other["phoneNumber"]]}, admin=True)
    assert status == 200, found
    assert sorted(user["localId"] for user in found["users"]) == sorted([imported["localId"], other["localId"]]), "each account once"
    status, found = post(server, f"projects/{PROJECT}/accounts:lookup", {"federatedUserId": [{"providerId": "google.com", "rawId": raw}]},
                         admin=True)
    assert [user["localId"] for user in found["users"]] == [imported["localId"]]
    assert found["users"][0]["providerUserInfo"][0]["rawId"] == raw
    status, found = post(server, f"projects/{PROJECT}/accounts:lookup", {"federatedUserId": [{"providerId": "google.com", "rawId": raw[:-1]}]},
                         admin=True)
    assert status == 200 and "users" not in found, "a prefix of a raw ID is another identity"


def test_session_cookies_verify_with_the_published_keys(server):
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import padding, rsa

    status, account = post(server, "accounts:signUp", {"email": f"cookie-{uuid.uuid4().hex[:8]}@example.com", "password": "cookie password",
                                                       "returnSecureToken": True})
    assert status == 200, account
    status, answer = post(server, f"projects/{PROJECT}:createSessionCookie", {"idToken": account["idToken"], "validDuration": 3600}, admin=True)
    assert status == 200, answer
    cookie = answer["sessionCookie"]
    with urllib.request.urlopen(server.base + "/identitytoolkit.googleapis.com/v1/sessionCookiePublicKeys", timeout=10) as response:
        keys = json.loads(response.read())["keys"]

    def number(text):
        return int.from_bytes(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)), "big")

    header_text, payload_text, signature_text = cookie.split(".")
    header = json.loads(base64.urlsafe_b64decode(header_text + "=" * (-len(header_text) % 4)))
    payload = json.loads(base64.urlsafe_b64decode(payload_text + "=" * (-len(payload_text) % 4)))
    assert header["alg"] == "RS256"
    key = next(key for key in keys if key["kid"] == header["kid"])
    assert key["kty"] == "RSA" and key["alg"] == "RS256"
    public = rsa.RSAPublicNumbers(number(key["e"]), number(key["n"])).public_key()
    public.verify(base64.urlsafe_b64decode(signature_text + "=" * (-len(signature_text) % 4)), f"{header_text}.{payload_text}".encode(),
                  padding.PKCS1v15(), hashes.SHA256())
    assert payload["iss"] == f"https://session.firebase.google.com/{PROJECT}" and payload["aud"] == PROJECT
