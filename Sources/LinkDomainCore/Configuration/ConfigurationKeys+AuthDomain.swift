/// The keys of the auth domain's other half (docs/design/auth-helper.md): the sign-in helper's
/// origin, the web app's `init.json` values, the passkey and password-manager files, the admin
/// listener (``ConfigurationKeys/all`` lists them in their place).
extension ConfigurationKeys {
    package static let authHandlerOrigin = ConfigurationKey(
        "authHandler.origin", .url, default: .described("`https://<backend.projectID>.firebaseapp.com` with `identityToolkit`; none (off) otherwise"),
        expected: "an https:// origin such as \"https://my-project.firebaseapp.com\" (http:// only for a loopback stand-in), with no path",
        validate: ConfigurationValidators.publicBaseURL,
        "Where Firebase's sign-in helper comes from (`signInWithRedirect`, popups): every `/__/auth/*` path LinkDomain does not serve itself and `/__/firebase/*` but `init.json` are answered from this origin, so an app's `authDomain` can be this host; `\"\"` turns it off. See [the sign-in helper](deployment.md#sign-in-with-redirect-on-this-domain)."
    )
    package static let webAppAppID = ConfigurationKey(
        "webApp.appId", .string, default: .none, expected: "the web app's ID from its Firebase config, such as \"1:1234567890:web:abc123\"",
        validate: ConfigurationValidators.webAppValue,
        "The web app's `appId`, served in `/__/firebase/init.json`.")
    package static let webAppMessagingSenderID = ConfigurationKey(
        "webApp.messagingSenderId", .string, default: .none, expected: "the project's number, such as \"1234567890\"",
        validate: ConfigurationValidators.webAppValue,
        "The web app's `messagingSenderId`, served in `/__/firebase/init.json`.")
    package static let webAppStorageBucket = ConfigurationKey(
        "webApp.storageBucket", .string, default: .none, expected: "a bucket name such as \"my-project.appspot.com\"",
        validate: ConfigurationValidators.webAppValue,
        "The web app's `storageBucket`, served in `/__/firebase/init.json`.")
    package static let webAppMeasurementID = ConfigurationKey(
        "webApp.measurementId", .string, default: .none, expected: "a measurement ID such as \"G-ABC123XYZ\"",
        validate: ConfigurationValidators.webAppValue,
        "The web app's `measurementId`, served in `/__/firebase/init.json`.")
    package static let androidWebcredentials = ConfigurationKey(
        "android.apps[i].webcredentials", .boolean, default: .boolean(false),
        "Add `delegate_permission/common.get_login_creds` to the app's statement in `assetlinks.json`: Android's Credential Manager shares this domain's passwords and passkeys with the app."
    )
    package static let passkeysRelatedOrigins = ConfigurationKey(
        "passkeys.relatedOrigins", .stringList, default: .emptyList,
        expected: "https:// origins such as \"https://example.com\", with no path", validate: ConfigurationValidators.httpsOrigin,
        "Origins that may use passkeys made for this domain, served as `/.well-known/webauthn` (`{\"origins\": [...]}`); without any, that path answers 404."
    )
    package static let passkeysEnrollURL = ConfigurationKey(
        "passkeys.enrollURL", .url, default: .none, expected: "an https:// URL such as \"https://example.com/account/passkeys/new\"",
        validate: ConfigurationValidators.httpsURL,
        "Where a person creates a passkey, served in `/.well-known/passkey-endpoints` (`enroll`), which password managers read.")
    package static let passkeysManageURL = ConfigurationKey(
        "passkeys.manageURL", .url, default: .none, expected: "an https:// URL such as \"https://example.com/account/passkeys\"",
        validate: ConfigurationValidators.httpsURL,
        "Where a person manages their passkeys, served in `/.well-known/passkey-endpoints` (`manage`).")
    package static let changePasswordURL = ConfigurationKey(
        "changePasswordURL", .url, default: .none, expected: "an https:// URL such as \"https://example.com/account/password\"",
        validate: ConfigurationValidators.httpsURL,
        "Where passwords are changed: `/.well-known/change-password` redirects there (302), as password managers expect; 404 without it.")
    package static let adminListen = ConfigurationKey(
        "admin.listen", .string, default: .none,
        expected: "a loopback address and port such as \"127.0.0.1:9099\" or \"[::1]:9099\", or \"unix:/run/linkdomain/admin.sock\"",
        validate: { AdminListenAddress($0)?.description },
        "A second listener for the admin SDKs and the Firebase CLI on this machine (`FIREBASE_AUTH_EMULATOR_HOST`): the embedded backend's API with the emulator's admin contract (`Authorization: Bearer owner`), in a deployment too. Loopback or a Unix socket only; any other address stops the start. The public port is unchanged."
    )
}
