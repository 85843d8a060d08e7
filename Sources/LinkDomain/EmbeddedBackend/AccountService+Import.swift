import Foundation
import LinkDomainCore
import LinkDomainStorage

/// `accounts:batchCreate`: importing accounts exported from Firebase or another system, with their
/// password hashes (checked in their own algorithm at sign-in), claims and federated identities.
extension AccountService {
    func batchCreate(_ request: BatchCreateRequest, _ context: CallContext) async throws -> UploadAccountResponse {
        guard context.isAdmin else { throw IdentityToolkitError.insufficientPermission }
        guard let entries = request.users, !entries.isEmpty else { throw IdentityToolkitError(.missingUserAccount) }
        let hasHashes = entries.contains { $0?.passwordHash != nil }
        let algorithm = hasHashes ? try PasswordFormats.algorithm(request) : nil
        let allowOverwrite = request.allowOverwrite ?? false
        let now = clock.nowMilliseconds()
        var failures: [UploadAccountResponse.Failure] = []
        for (index, entry) in entries.enumerated() {
            guard let entry else {
                failures.append(.init(index: index, message: "localId is missing"))
                continue
            }
            do {
                let user = try imported(entry, tenantID: context.tenantID, algorithm: algorithm, now: now)
                let existing = try await store.user(tenantID: user.tenantID, localID: user.localID)
                if let email = user.email, let owner = try await store.user(tenantID: user.tenantID, email: email), owner.localID != user.localID {
                    throw ImportRefusal("email exists in other account in database")
                }
                if let phone = user.phoneNumber, let owner = try await store.user(tenantID: user.tenantID, phoneNumber: phone),
                    owner.localID != user.localID
                {
                    throw ImportRefusal("phone number exists in other account in database")
                }
                switch existing {
                case nil: try await store.insertUser(user)
                case let read? where allowOverwrite: try await overwrite(read, with: user)
                case _?: throw ImportRefusal("localId belongs to an existing account - can not overwrite.")
                }
            } catch let refusal as ImportRefusal {
                failures.append(.init(index: index, message: refusal.message))
            }
        }
        return UploadAccountResponse(error: failures.isEmpty ? nil : failures)
    }

    /// Why one account of an import was left out; the others go on.
    struct ImportRefusal: Error {
        let message: String
        init(_ message: String) { self.message = message }
    }

    /// One imported account, or why it cannot be.
    /// An import over an existing account, refused (not retried) when the account changes meanwhile.
    private func overwrite(_ read: UserRecord, with user: UserRecord) async throws {
        let outcome: Result<Void, StoreError>
        do {
            try await store.updateUser(user, readAs: read)
            outcome = .success(())
        } catch {
            outcome = .failure(error)
        }
        switch outcome {
        case .success: return
        case .failure(.conflict): throw ImportRefusal("the account changed during the import; import it again")
        case .failure(let error): throw error
        }
    }

    private func imported(_ account: ImportedAccount, tenantID: String, algorithm: PasswordFormats.Algorithm?, now: Int64) throws -> UserRecord {
        guard let localID = account.localID else { throw ImportRefusal("localId is missing") }
        var user = UserRecord(tenantID: tenantID, localID: localID, email: nil, createdAt: now, validSince: now / 1000)
        if let raw = account.email {
            guard let email = try? normalizedEmail(raw) else { throw ImportRefusal("email is invalid") }
            user.email = email
        }
        if let phone = account.phoneNumber {
            guard let valid = try? AccountAttributes.phoneNumber(phone) else { throw ImportRefusal("phone number format is invalid") }
            user.phoneNumber = valid
        }
        if let claims = account.customAttributes {
            do {
                user.customAttributes = try AccountAttributes.customClaims(claims)
            } catch {
                switch error.code {
                case .forbiddenClaim: throw ImportRefusal("Custom claims provided include a reserved claim.")
                case .claimsTooLarge: throw ImportRefusal("Custom claims provided are too large.")
                default: throw ImportRefusal("Invalid custom claims provided.")
                }
            }
        }
        user.emailVerified = account.emailVerified ?? false
        user.disabled = account.disabled ?? false
        user.displayName = account.displayName
        user.photoURL = account.photoURL
        // A time that is not milliseconds up to the year 9999 is left out: the account is imported without it.
        let times: ClosedRange<Int64> = 0...253_402_300_799_999
        if let created = try? account.createdAt.within(times, else: .internalError) { user.createdAt = created }
        user.lastLoginAt = try? account.lastLoginAt.within(times, else: .internalError)
        if let hash = account.passwordHash {
            guard let algorithm, let bytes = PasswordFormats.decodeBase64(hash) else { throw ImportRefusal("passwordHash is not base64") }
            if algorithm == .bcrypt {
                // A cost past the cap would make every check of this account's password take seconds.
                guard let cost = Bcrypt.cost(of: String(decoding: bytes, as: UTF8.self)), (4...Bcrypt.maximumCost).contains(cost) else {
                    throw ImportRefusal("BCRYPT passwordHash must be a bcrypt hash of cost 4 to \(Bcrypt.maximumCost)")
                }
            }
            let salt = account.salt.flatMap(PasswordFormats.decodeBase64).map(Array.init) ?? []
            user.passwordHash = PasswordFormats.stored(algorithm, hash: Array(bytes), salt: salt)
            user.passwordUpdatedAt = now
        }
        if !account.providerUserInfo.isEmpty {
            var imported: [ProviderUserInfo] = []
            for case let info? in account.providerUserInfo {
                guard let providerID = info.providerID, let rawID = info.rawID else {
                    throw ImportRefusal("federatedId or (providerId & rawId) is required")
                }
                imported.append(
                    ProviderUserInfo(
                        providerId: providerID, email: info.email, federatedId: rawID, rawId: rawID,
                        displayName: info.displayName, photoUrl: info.photoURL))
            }
            user.providerData = ImportedProviders.encode(imported)
        }
        return user
    }
}
