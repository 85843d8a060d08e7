import Foundation
import LinkDomainCore
import LinkDomainStorage

/// Federated identities an import brought along (`google.com`, ...), stored as a JSON list on the account.
enum ImportedProviders {
    static func decode(_ text: String?) -> [ProviderUserInfo] {
        guard let text else { return [] }
        return (try? JSONDecoder().decode([ProviderUserInfo].self, from: Data(text.utf8))) ?? []
    }

    static func encode(_ providers: [ProviderUserInfo]) -> String? {
        guard !providers.isEmpty, let data = try? JSONEncoder().encode(providers) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }
}
