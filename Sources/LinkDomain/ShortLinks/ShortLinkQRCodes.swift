import Hummingbird
import LinkDomainCore
import LinkDomainStorage
import Logging

/// A short link's QR code, for print and slides: `/<suffix>/qr.svg` and `/<suffix>/qr.png`, drawn by
/// the server with the encoder the pages use. It encodes the short link itself (so a scan counts a
/// click like any tap), never its target; a GET reads the store and writes nothing.
///
/// Asked by the pages' catch-all route (the router allows no parameter route beside it).
struct ShortLinkQRCodes: Sendable {
    let store: any LinkStore
    let publicBaseURL: String

    enum Format: String, CaseIterable {
        case svg = "qr.svg"
        case png = "qr.png"
    }

    func image(suffix: String, format: Format, logger: Logger) async throws -> Response {
        guard SuffixGenerator.isPlausible(Substring(suffix)) else { throw HTTPError(.notFound) }
        let record: ShortLinkRecord?
        do {
            record = try await store.shortLink(suffix: suffix)
        } catch {
            logger.error("short link lookup failed", metadata: ["error": .string("\(error)")])
            throw HTTPError(.serviceUnavailable)
        }
        let link = publicBaseURL + "/" + suffix
        guard record != nil, let code = QRCode(Array(link.utf8)) else { throw HTTPError(.notFound) }
        // A day: the code depends only on the short link's address, which never changes.
        let caching = "public, max-age=86400"
        switch format {
        case .svg:
            return Response(
                status: .ok, headers: [.contentType: "image/svg+xml", .cacheControl: caching],
                body: .init(byteBuffer: ByteBuffer(string: code.svgDocument(label: link))))
        case .png:
            return Response(
                status: .ok,
                headers: [
                    .contentType: "image/png", .cacheControl: caching,
                    .contentDisposition: "inline; filename=\"\(suffix).png\"",
                ],
                body: .init(byteBuffer: ByteBuffer(bytes: code.png())))
        }
    }
}
