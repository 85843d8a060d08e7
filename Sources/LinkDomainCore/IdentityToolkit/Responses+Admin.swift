// The answers of the admin calls on many accounts, field for field as Google spells them.
// Optional fields that are nil are left out, as Google leaves them out.

/// `accounts:query`.
package struct QueryUserInfoResponse: Codable, Sendable {
    /// A decimal string (int64 in JSON).
    package var recordsCount: String
    package var userInfo: [UserInfo]?

    package init(recordsCount: String, userInfo: [UserInfo]? = nil) {
        self.recordsCount = recordsCount
        self.userInfo = userInfo
    }
}

/// `accounts:batchGet`: a page of accounts in ID order; `nextPageToken` while more may follow.
package struct DownloadAccountResponse: Codable, Sendable {
    package var kind = "identitytoolkit#DownloadAccountResponse"
    package var users: [UserInfo]?
    package var nextPageToken: String?

    package init(kind: String = "identitytoolkit#DownloadAccountResponse", users: [UserInfo]? = nil, nextPageToken: String? = nil) {
        self.kind = kind
        self.users = users
        self.nextPageToken = nextPageToken
    }
}

/// `accounts:batchDelete`: one entry per account not deleted.
package struct BatchDeleteResponse: Codable, Sendable {
    package struct Failure: Codable, Sendable {
        package var index: Int
        package var localId: String
        package var message: String

        package init(index: Int, localId: String, message: String) {
            self.index = index
            self.localId = localId
            self.message = message
        }
    }

    package var errors: [Failure]?

    package init(errors: [Failure]? = nil) {
        self.errors = errors
    }
}

/// `accounts:batchCreate`: one entry per account not imported (note Google's singular `error`).
package struct UploadAccountResponse: Codable, Sendable {
    package struct Failure: Codable, Sendable {
        package var index: Int
        package var message: String

        package init(index: Int, message: String) {
            self.index = index
            self.message = message
        }
    }

    package var kind = "identitytoolkit#UploadAccountResponse"
    package var error: [Failure]?

    package init(kind: String = "identitytoolkit#UploadAccountResponse", error: [Failure]? = nil) {
        self.kind = kind
        self.error = error
    }
}
