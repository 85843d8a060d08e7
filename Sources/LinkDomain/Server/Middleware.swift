import Foundation
import HTTPTypes
import Hummingbird
import Logging

/// Turns every error into a small plain-text page, so no path ever answers with another route's
/// HTML (an HTML catch-all on `assetlinks.json` silently breaks Android verification).
struct PlainErrorPageMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as any HTTPResponseError {
            let status = error.status
            let text = status == .notFound ? "Not Found: there is nothing at this address.\n" : "\(status.code) \(status.reasonPhrase)\n"
            return PlainText.response(status, text, headers: (error as? HTTPError)?.headers ?? [:])
        } catch {
            context.logger.error("unhandled error", metadata: ["error": .string(String(describing: type(of: error)))])
            return PlainText.response(.internalServerError, "500 Internal Server Error\n")
        }
    }
}
