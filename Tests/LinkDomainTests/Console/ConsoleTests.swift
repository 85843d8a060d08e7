import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

@testable import LinkDomain
@testable import LinkDomainCore
@testable import LinkDomainStorage

/// The console over HTTP: who may use it in each mode, its forms' protections, and what its
/// changes do to the links people open.
@Suite("The console")
struct ConsoleTests {
    static let password = "correct horse battery staple"

    /// The fixture's deployment (an https public URL) with a console user, or in development.
    static func services(development: Bool = false, users: Bool = true, adminKeys: Bool = true) async throws -> LinkDomainServices {
        var configuration = try Fixtures.load(Fixtures.multiAppJSON)
        configuration.storage = .sqlite(path: FileManager.default.temporaryDirectory.appendingPathComponent("console-\(UUID().uuidString).sqlite").path)
        if development {
            configuration.publicBaseURL = "http://127.0.0.1:9"
        }
        // scrypt's cheapest readable cost: console sign-ins share the one hashing thread of a two-core
        // machine with every other test's passwords, and the default's 32 MiB rounds, unoptimised in a
        // debug build, kept those waiting past the test client's 20-second read timeout.
        if users { configuration.console.users = [.init(name: "ops", passwordHash: try ScryptPasswordHash.make(password, logRounds: 10).text)] }
        if !adminKeys { configuration.backend.adminKeys = [] }
        return try await LinkDomainServices.make(configuration: configuration, logger: Logger(label: "test"))
    }

    typealias Client = any TestClientProtocol

    /// A browser as far as the console cares: its cookie, and same-origin form posts.
    struct Browser {
        let client: Client
        var cookie: String?

        func get(_ uri: String) async throws -> TestResponse {
            try await client.execute(uri: uri, method: .get, headers: cookie.map { [.cookie: $0] } ?? [:], body: nil)
        }

        mutating func post(_ uri: String, _ fields: [String: String], site: String = "same-origin") async throws -> TestResponse {
            var headers: HTTPFields = [.contentType: "application/x-www-form-urlencoded", .secFetchSite: site]
            if let cookie { headers[.cookie] = cookie }
            let body = fields.map { "\($0.key)=\(ActionLinkEncoder.percentEncode($0.value))" }.joined(separator: "&")
            let response = try await client.execute(uri: uri, method: .post, headers: headers, body: ByteBuffer(string: body))
            if let set = response.headers[.setCookie], let value = set.split(separator: ";").first {
                cookie = value.hasSuffix("=") ? nil : String(value)
            }
            return response
        }

        /// The CSRF token of the form posting to `action` on page `page`.
        func token(on page: String, for action: String) async throws -> String {
            let html = String(buffer: try await get(page).body)
            let form = try #require(html.range(of: "action=\"\(action)\""))
            let rest = html[form.upperBound...]
            let value = try #require(rest.firstMatch(of: /name="csrf" value="([^"]+)"/))
            return String(value.output.1)
        }

        mutating func signIn(name: String = "ops", password: String = ConsoleTests.password) async throws -> TestResponse {
            let token = try await token(on: "/__/console/sign-in", for: "/__/console/sign-in")
            return try await post("/__/console/sign-in", ["csrf": token, "name": name, "password": password])
        }
    }

    @Test("a deployment: signed-out requests go to sign-in; a wrong password is refused alike for any name; a right one opens it")
    func signingIn() async throws {
        try await LinkDomainApplication.build(try await Self.services(), logger: Logger(label: "test")).test(.router) { client in
            var browser = Browser(client: client)
            for path in ["/__/console", "/__/console/links", "/__/console/mail", "/__/console/links/abcd"] {
                let response = try await browser.get(path)
                #expect(response.status == .seeOther && response.headers[.location] == "/__/console/sign-in", "\(path)")
            }
            let page = try await browser.get("/__/console/sign-in")
            #expect(page.status == .ok && page.headers[.cacheControl] == "no-store" && page.headers[.xRobotsTag] == "noindex, nofollow")
            let wrong = try await browser.signIn(password: "not the password")
            let unknown = try await browser.signIn(name: "nobody", password: "not the password")
            #expect(wrong.status == .unauthorized && unknown.status == .unauthorized && browser.cookie == nil)
            #expect(String(buffer: wrong.body).contains("do not match") && String(buffer: unknown.body).contains("do not match"))
            let right = try await browser.signIn()
            #expect(right.status == .seeOther && right.headers[.location] == "/__/console")
            let set = try #require(right.headers[.setCookie])
            #expect(set.hasPrefix("__Host-linkdomain-console=") && set.contains("HttpOnly") && set.contains("Secure") && set.contains("SameSite=Strict"))
            let overview = try await browser.get("/__/console")
            #expect(overview.status == .ok && String(buffer: overview.body).contains("ops"))
            // Signing out ends it in this browser.
            let token = try await browser.token(on: "/__/console", for: "/__/console/sign-out")
            _ = try await browser.post("/__/console/sign-out", ["csrf": token])
            #expect(try await browser.get("/__/console").status == .seeOther)
        }
    }

    @Test("an admin key signs in with no name; a forged or stale cookie does not")
    func adminKey() async throws {
        try await LinkDomainApplication.build(try await Self.services(users: false), logger: Logger(label: "test")).test(.router) { client in
            var browser = Browser(client: client)
            #expect(try await browser.signIn(name: "", password: Fixtures.adminKey).status == .seeOther)
            let overview = String(buffer: try await browser.get("/__/console").body)
            #expect(overview.contains("admin-key-") && !overview.contains(Fixtures.adminKey))
            var forged = browser
            forged.cookie = browser.cookie.map { String($0.dropLast(2)) + "AA" }
            #expect(try await forged.get("/__/console").status == .seeOther)
        }
    }

    @Test("a deployment with no console users and no admin keys has no console")
    func closed() async throws {
        try await LinkDomainApplication.build(try await Self.services(users: false, adminKeys: false), logger: Logger(label: "test")).test(.router) { client in
            let console = try await client.execute(uri: "/__/console", method: .get)
            let signIn = try await client.execute(uri: "/__/console/sign-in", method: .get)
            #expect(console.status == .notFound && signIn.status == .notFound)
        }
    }

    @Test("development: open without signing in, like the emulator's UI")
    func development() async throws {
        let services = try await Self.services(development: true)
        #expect(services.configuration.mode == .development)
        try await LinkDomainApplication.build(services, logger: Logger(label: "test")).test(.router) { client in
            let overview = try await client.execute(uri: "/__/console", method: .get)
            #expect(overview.status == .ok && String(buffer: overview.body).contains("development"))
        }
    }

    @Test("a form posted from another site, or without its token, changes nothing")
    func crossSite() async throws {
        let services = try await Self.services()
        try await LinkDomainApplication.build(services, logger: Logger(label: "test")).test(.router) { client in
            var browser = Browser(client: client)
            _ = try await browser.signIn()
            let token = try await browser.token(on: "/__/console/links", for: "/__/console/links")
            let crossSite = try await browser.post("/__/console/links", ["csrf": token, "link": "https://example.com/x"], site: "cross-site")
            let noToken = try await browser.post("/__/console/links", ["link": "https://example.com/x"])
            let otherForm = try await browser.post("/__/console/links", ["csrf": "1.AAAA", "link": "https://example.com/x"])
            #expect(crossSite.status == .forbidden && noToken.status == .forbidden && otherForm.status == .forbidden)
            // Without Sec-Fetch-Site, the Origin decides: another site's is refused; the public host's (behind a proxy) is this site.
            let cookie = try #require(browser.cookie)
            func post(origin: String) async throws -> TestResponse {
                try await client.execute(
                    uri: "/__/console/links", method: .post,
                    headers: [.contentType: "application/x-www-form-urlencoded", .cookie: cookie, .origin: origin],
                    body: ByteBuffer(string: "csrf=\(ActionLinkEncoder.percentEncode(token))&link=https%3A%2F%2Fexample.com%2Fx"))
            }
            #expect(try await post(origin: "https://evil.example.net").status == .forbidden)
            #expect(try await services.admin.shortLinkCount() == 0)
            #expect(try await post(origin: "https://links.example.com").status == .seeOther)
            #expect(try await services.admin.shortLinkCount() == 1)
        }
    }

    @Test("create, find, disable, enable and delete a link: what people opening it get follows at once")
    func linkLifecycle() async throws {
        let services = try await Self.services()
        try await LinkDomainApplication.build(services, logger: Logger(label: "test")).test(.router) { client in
            var browser = Browser(client: client)
            _ = try await browser.signIn()
            let token = try await browser.token(on: "/__/console/links", for: "/__/console/links")
            let created = try await browser.post(
                "/__/console/links",
                [
                    "csrf": token, "link": "https://example.com/product/42", "ibi": "com.example.mail",
                    "option": "SHORT",
                ])
            #expect(created.status == .seeOther)
            let location = try #require(created.headers[.location])
            let suffix = String(try #require(location.firstMatch(of: /\/__\/console\/links\/([A-Za-z0-9]+)\?done=created/)).output.1)
            let desktop: HTTPFields = [.userAgent: "Mozilla/5.0 (X11; Linux x86_64; rv:132.0) Gecko/20100101 Firefox/132.0"]
            #expect(try await client.execute(uri: "/\(suffix)", method: .get, headers: desktop).status == .found)
            let list = String(buffer: try await browser.get("/__/console/links?q=\(suffix)").body)
            #expect(list.contains("/__/console/links/\(suffix)") && list.contains("https://example.com/product/42"))
            let page = String(buffer: try await browser.get(location).body)
            #expect(page.contains("Created https://links.example.com/\(suffix)") && page.contains("qr.svg"))
            let qr = try await browser.get("/__/console/links/\(suffix)/qr.png")
            #expect(qr.status == .ok && qr.headers[.contentType] == "image/png")
            // Sizes for print: exactly the size asked (whole pixels a module, the rest quiet zone), never past 2048.
            func width(_ uri: String) async throws -> Int {
                let bytes = Array(buffer: try await browser.get(uri).body)
                return bytes.count > 24 ? bytes[16..<20].reduce(0) { $0 << 8 | Int($1) } : 0
            }
            #expect(try await width("/__/console/links/\(suffix)/qr.png?size=1024") == 1024)
            #expect(try await width("/__/console/links/\(suffix)/qr.png?size=256") == 256)
            #expect(try await width("/__/console/links/\(suffix)/qr.png?size=99999") == 2048)
            #expect(try await width("/__/console/links/\(suffix)/qr.png?size=0") > 0)

            let disable = try await browser.token(on: location, for: "/__/console/links/\(suffix)/disable")
            #expect(try await browser.post("/__/console/links/\(suffix)/disable", ["csrf": disable]).status == .seeOther)
            #expect(try await client.execute(uri: "/\(suffix)", method: .get, headers: desktop).status == .notFound)
            let enable = try await browser.token(on: "/__/console/links/\(suffix)", for: "/__/console/links/\(suffix)/enable")
            _ = try await browser.post("/__/console/links/\(suffix)/enable", ["csrf": enable])
            #expect(try await client.execute(uri: "/\(suffix)", method: .get, headers: desktop).status == .found)
            let delete = try await browser.token(on: "/__/console/links/\(suffix)", for: "/__/console/links/\(suffix)/delete")
            // Without the confirmation box ticked, nothing happens.
            _ = try await browser.post("/__/console/links/\(suffix)/delete", ["csrf": delete])
            #expect(try await client.execute(uri: "/\(suffix)", method: .get, headers: desktop).status == .found)
            _ = try await browser.post("/__/console/links/\(suffix)/delete", ["csrf": delete, "confirm": "yes"])
            #expect(try await client.execute(uri: "/\(suffix)", method: .get, headers: desktop).status == .notFound)
            #expect(try await browser.get("/__/console/links/\(suffix)").status == .notFound)
        }
    }

    @Test("the create form comes first and makes a link with a chosen suffix, its chat preview and its fallbacks; a taken suffix is refused")
    func chosenSuffix() async throws {
        let services = try await Self.services()
        try await LinkDomainApplication.build(services, logger: Logger(label: "test")).test(.router) { client in
            var browser = Browser(client: client)
            _ = try await browser.signIn()
            let listing = String(buffer: try await browser.get("/__/console/links").body)
            let form = try #require(listing.range(of: "action=\"/__/console/links\" class=\"narrow\""))
            // Above the search and the table: the form is the first thing under the heading.
            #expect(listing.range(of: "role=\"search\"").map { form.lowerBound < $0.lowerBound } == true)
            let fields = [
                "link": "https://example.com/spring", "suffix": "/spring-sale", "st": "Spring sale", "sd": "Half off <everything>",
                "si": "https://example.com/card.png", "afl": "https://example.com/android", "ofl": "https://example.com/desktop", "ibi": "com.example.mail",
            ]
            let token = try await browser.token(on: "/__/console/links", for: "/__/console/links")
            let created = try await browser.post("/__/console/links", fields.merging(["csrf": token]) { $1 })
            #expect(created.status == .seeOther && created.headers[.location] == "/__/console/links/spring-sale?done=created")
            let stored = try #require(try await services.linkStore.shortLink(suffix: "spring-sale"))
            for (name, value) in [
                "st": "Spring sale", "sd": "Half off <everything>", "afl": "https://example.com/android", "ofl": "https://example.com/desktop",
            ] {
                #expect(stored.longLinkQuery.contains("\(name)=\(ActionLinkEncoder.percentEncode(value))"), "\(name)")
            }
            let desktop: HTTPFields = [.userAgent: "Mozilla/5.0 (X11; Linux x86_64; rv:132.0) Gecko/20100101 Firefox/132.0"]
            #expect(try await client.execute(uri: "/spring-sale", method: .get, headers: desktop) { $0.headers[.location] } == "https://example.com/desktop")
            // Its click shows on its page, by platform.
            await services.linkEvents.flush()
            #expect(String(buffer: try await browser.get("/__/console/links/spring-sale").body).contains("class=\"by-platform\""))
            let again = try await browser.post("/__/console/links", fields.merging(["csrf": token]) { $1 })
            #expect(again.status == .conflict && String(buffer: again.body).contains("the suffix spring-sale is taken"))
            let reserved = try await browser.post("/__/console/links", fields.merging(["csrf": token, "suffix": "healthz"]) { $1 })
            #expect(reserved.status == .badRequest && String(buffer: reserved.body).contains("keeps for itself"))
            // The link's page edits where it leads, its preview and fallbacks; other parameters stay.
            let page = "/__/console/links/spring-sale"
            let editForm = String(buffer: try await browser.get(page).body)
            #expect(editForm.contains("value=\"Half off &lt;everything&gt;\"") && editForm.contains("value=\"https://example.com/desktop\""))
            let edit = try await browser.token(on: page, for: "\(page)/edit")
            let changed = try await browser.post(
                "\(page)/edit", ["csrf": edit, "link": "https://example.com/summer", "st": "Summer sale", "ofl": "", "afl": "https://example.com/android"])
            #expect(changed.status == .seeOther && changed.headers[.location] == "\(page)?done=changed")
            let edited = try #require(try await services.linkStore.shortLink(suffix: "spring-sale"))
            #expect(edited.longLinkQuery.contains("link=https%3A%2F%2Fexample.com%2Fsummer") && edited.longLinkQuery.contains("st=Summer%20sale"))
            #expect(!edited.longLinkQuery.contains("ofl=") && !edited.longLinkQuery.contains("sd=") && edited.longLinkQuery.contains("ibi=com.example.mail"))
            #expect(try await client.execute(uri: "/spring-sale", method: .get, headers: desktop) { $0.headers[.location] } == "https://example.com/summer")
            let outside = try await browser.post("\(page)/edit", ["csrf": edit, "link": "https://evil.example.net/"])
            #expect(outside.status == .badRequest && String(buffer: outside.body).contains("authorizedDomains"))
            #expect(try await services.linkStore.shortLink(suffix: "spring-sale")?.longLinkQuery == edited.longLinkQuery)
            // Search by what is pasted: the short link itself.
            let found = String(buffer: try await browser.get("/__/console/links?q=https%3A%2F%2Flinks.example.com%2Fspring-sale").body)
            #expect(found.contains("/__/console/links/spring-sale"))
        }
    }

    @Test("the mail page finds one address's mails in every state, shows them unmasked with their next attempt, and audits the search")
    func mailSearch() async throws {
        let services = try await Self.services()
        let base = Int64(7_200_000_000_000)
        for (index, recipient) in ["Dora@example.com", "dora@example.com", "eve@example.com"].enumerated() {
            try await services.admin.enqueue(
                QueuedMail(
                    id: "d\(index)", sender: "noreply@example.com", recipient: recipient, message: "Subject: x\r\n\r\nbody", kind: "sign-in",
                    queuedAt: base + Int64(index), language: "en"))
        }
        try await services.admin.markFailed(id: "d0", reason: "550 5.1.1 no such mailbox", now: base + 10)
        try await LinkDomainApplication.build(services, logger: Logger(label: "test")).test(.router) { client in
            var browser = Browser(client: client)
            _ = try await browser.signIn()
            let page = String(buffer: try await browser.get("/__/console/mail?to=DORA%40example.com").body)
            #expect(page.contains("Dora@example.com") && page.contains("dora@example.com") && !page.contains("eve@example.com"))
            #expect(page.contains("550 5.1.1 no such mailbox") && page.contains("Next attempt") && page.contains("Waiting") && page.contains("Failed"))
            #expect(page.contains("value=\"DORA@example.com\""))
            let plain = String(buffer: try await browser.get("/__/console/mail?state=failed").body)
            #expect(plain.contains("D•••@example.com") && !plain.contains("Dora@example.com"))
        }
    }

    @Test("a link the console cannot make is refused with the link API's reason")
    func refusedLink() async throws {
        try await LinkDomainApplication.build(try await Self.services(), logger: Logger(label: "test")).test(.router) { client in
            var browser = Browser(client: client)
            _ = try await browser.signIn()
            let token = try await browser.token(on: "/__/console/links", for: "/__/console/links")
            let refused = try await browser.post("/__/console/links", ["csrf": token, "link": "javascript:alert(1)"])
            #expect(refused.status == .badRequest && String(buffer: refused.body).contains("must be an http(s) URL"))
        }
    }

    @Test("find an account, disable it (its sign-in is then refused), enable it, sign it out everywhere, delete it")
    func accounts() async throws {
        let services = try await Self.services()
        try await LinkDomainApplication.build(services, logger: Logger(label: "test")).test(.router) { client in
            let api = BackendClient(client: client)
            let signUp = try await api.call("accounts:signUp", ["email": "ann@example.com", "password": "correct horse"], key: Fixtures.apiKey)
            let id = try #require(signUp.string("localId"))
            var browser = Browser(client: client)
            _ = try await browser.signIn()
            let found = String(buffer: try await browser.get("/__/console/accounts?q=Ann%40example.com").body)
            #expect(found.contains("/__/console/accounts/\(id)"))
            // The start of an address finds it too.
            #expect(String(buffer: try await browser.get("/__/console/accounts?q=An").body).contains("/__/console/accounts/\(id)"))
            let page = "/__/console/accounts/\(id)"
            let disable = try await browser.token(on: page, for: "\(page)/disable")
            #expect(try await browser.post("\(page)/disable", ["csrf": disable]).headers[.location] == "\(page)?done=disabled")
            let refused = try await api.call("accounts:signInWithPassword", ["email": "ann@example.com", "password": "correct horse"], key: Fixtures.apiKey)
            #expect(refused.errorMessage?.hasPrefix("USER_DISABLED") == true)
            let enable = try await browser.token(on: page, for: "\(page)/enable")
            _ = try await browser.post("\(page)/enable", ["csrf": enable])
            let signIn = try await api.call("accounts:signInWithPassword", ["email": "ann@example.com", "password": "correct horse"], key: Fixtures.apiKey)
            #expect(signIn.status == .ok)
            // No relay in this configuration: the console says so instead of pretending.
            let reset = try await browser.token(on: page, for: "\(page)/send-reset")
            #expect(try await browser.post("\(page)/send-reset", ["csrf": reset]).headers[.location] == "\(page)?done=no-relay")
            let revoke = try await browser.token(on: page, for: "\(page)/revoke")
            _ = try await browser.post("\(page)/revoke", ["csrf": revoke])
            let refreshed = try await api.post(
                "/securetoken.googleapis.com/v1/token?key=\(Fixtures.apiKey)",
                ["grant_type": "refresh_token", "refresh_token": try #require(signIn.string("refreshToken"))])
            #expect(refreshed.status == .badRequest)
            let delete = try await browser.token(on: page, for: "\(page)/delete")
            _ = try await browser.post("\(page)/delete", ["csrf": delete, "confirm": "yes"])
            #expect(try await browser.get(page).status == .notFound)
        }
    }

    @Test("the association page shows the files as served and what they claim")
    func association() async throws {
        let services = try await Self.services()
        try await LinkDomainApplication.build(services, logger: Logger(label: "test")).test(.router) { client in
            var browser = Browser(client: client)
            _ = try await browser.signIn()
            let page = String(buffer: try await browser.get("/__/console/association").body)
            #expect(page.contains("ABCDE12345.com.example.mail") && page.contains("/__/auth/links") && page.contains(Fixtures.fingerprintA))
            #expect(page.contains("&quot;applinks&quot;"))
        }
    }

    @Test("CSV out and in: the export is what the import reads; a suffix taken by another link is refused, not overwritten")
    func csvRoundTrip() async throws {
        let services = try await Self.services()
        try await LinkDomainApplication.build(services, logger: Logger(label: "test")).test(.router) { client in
            var browser = Browser(client: client)
            _ = try await browser.signIn()
            let csv = """
                shortLink,longLink,createdAt
                https://links.example.com/spring,https://links.example.com/?link=https%3A%2F%2Fexample.com%2Fspring,2024-03-01T10:00:00Z
                https://links.example.com/autumn,https://links.example.com/?link=https%3A%2F%2Fexample.com%2Fautumn,2024-09-01T10:00:00Z
                """
            let token = try await browser.token(on: "/__/console/links", for: "/__/console/links/import")
            // Post/Redirect/Get: the import answers with a redirect whose page says what it did, as often as it is loaded.
            let imported = try await browser.post("/__/console/links/import", ["csrf": token, "csv": csv])
            let report = try #require(imported.headers[.location])
            #expect(imported.status == .seeOther && report.hasPrefix("/__/console/links?imported="))
            for _ in 0..<2 { #expect(String(buffer: try await browser.get(report).body).contains("Imported 2, skipped 0 already there, refused 0.")) }
            // A report not signed for this session shows nothing: a link cannot put words on the page.
            let forged = report.replacing(/signature=[^#&]+/) { _ in "signature=1.AAAA" }
            #expect(!String(buffer: try await browser.get(forged).body).contains("Imported 2"))
            let exported = String(buffer: try await browser.get("/__/console/links.csv").body)
            #expect(exported.hasPrefix("shortLink,longLink,createdAt,disabled,clicks\r\n"))
            #expect(
                exported.contains(
                    "https://links.example.com/spring,https://links.example.com/?link=https%3A%2F%2Fexample.com%2Fspring,2024-03-01T10:00:00.000Z,false,0"))
            // The export read back: both already there. A suffix standing for another link: refused.
            let again = try await browser.post("/__/console/links/import", ["csrf": token, "csv": exported])
            let againPage = String(buffer: try await browser.get(try #require(again.headers[.location])).body)
            #expect(againPage.contains("Imported 0, skipped 2 already there, refused 0."))
            let clash = csv.replacingOccurrences(of: "%2Fautumn", with: "%2Fwinter")
            let refused = try await browser.post("/__/console/links/import", ["csrf": token, "csv": clash])
            let refusedPage = String(buffer: try await browser.get(try #require(refused.headers[.location])).body)
            #expect(refusedPage.contains("refused 1") && refusedPage.contains("line 3: suffix autumn already stands for another link"))
            #expect(try await services.admin.shortLinkListing(suffix: "autumn")?.record.longLinkQuery == "link=https%3A%2F%2Fexample.com%2Fautumn")
        }
    }

    @Test("doctor runs from the association page against the public address only, and its findings show on the overview")
    func doctor() async throws {
        // Development, with a public address nothing answers on: the run ends at once, with an error finding.
        let services = try await Self.services(development: true)
        try await LinkDomainApplication.build(services, logger: Logger(label: "test")).test(.router) { client in
            let browser = Browser(client: client)
            #expect(String(buffer: try await browser.get("/__/console").body).contains("Not run since start"))
            var poster = browser
            let token = try await browser.token(on: "/__/console/association", for: "/__/console/association/doctor")
            let ran = try await poster.post("/__/console/association/doctor", ["csrf": token, "base": "https://evil.example.net"])
            #expect(ran.headers[.location] == "/__/console/association?done=doctor#doctor")
            let page = String(buffer: try await browser.get("/__/console/association?done=doctor").body)
            #expect(page.contains("The checks ran") && page.contains("<strong>error</strong>") && page.contains("Last run:"))
            #expect(!page.contains("evil.example.net"))
            #expect(String(buffer: try await browser.get("/__/console").body).contains("<strong>error</strong>"))
        }
    }

    @Test("sign-in is limited per address: past the attempts allowed, 429 with Retry-After, even with the right password")
    func signInLimit() async throws {
        try await LinkDomainApplication.build(try await Self.services(), logger: Logger(label: "test")).test(.router) { client in
            var browser = Browser(client: client)
            // Five at once, refilled at 10 a minute: a debug build's scrypt takes long enough to refill one now and then.
            var refused = 0
            while try await browser.signIn(password: "wrong").status == .unauthorized {
                refused += 1
                try #require(refused < 20)
            }
            #expect(refused >= 5)
            let limited = try await browser.signIn()
            #expect(limited.status == .tooManyRequests && limited.headers[.retryAfter] != nil && browser.cookie == nil)
            #expect(String(buffer: limited.body).contains("Too many attempts"))
        }
    }
}
