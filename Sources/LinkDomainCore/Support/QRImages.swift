import Foundation
/// A QR code as files of its own: an SVG document and a PNG, for print and slides.
extension QRCode {
    /// Black modules on a white square with a four-module quiet zone, in both colour schemes (a
    /// camera reads dark on light); `scale` pixels a module as its intrinsic size.
    package func svgDocument(scale: Int = 8, label: String) -> String {
        let side = size + 8
        return "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(side) \(side)\" width=\"\(side * scale)\" height=\"\(side * scale)\" "
            + "role=\"img\" aria-label=\"\(Self.escapedAttribute(label))\" shape-rendering=\"crispEdges\">"
            + "<rect width=\"\(side)\" height=\"\(side)\" fill=\"#fff\"/><path fill=\"#000\" d=\"\(svgPath())\"/></svg>\n"
    }

    /// The same as a one-bit PNG, `scale` pixels a module.
    /// The largest PNG side drawn: a print-shop size, and a bound on the work a request can ask for.
    package static let largestPNGSide = 2048

    /// A PNG exactly `side` pixels square (clamped to 1 ... ``largestPNGSide``; larger only when
    /// even one pixel a module does not fit): the largest whole number of pixels a module, so edges
    /// stay sharp, centred, the pixels left over widening the quiet zone.
    package func png(fitting side: Int) -> [UInt8] {
        let modules = size + 8
        let requested = min(max(side, 1), Self.largestPNGSide)
        let scale = max(1, requested / modules)
        return png(scale: scale, canvas: max(requested, modules * scale))
    }

    package func png(scale: Int = 8) -> [UInt8] { png(scale: scale, canvas: (size + 8) * scale) }

    private func png(scale: Int, canvas: Int) -> [UInt8] {
        let offset = (canvas - (size + 8) * scale) / 2
        return PNGImage.blackAndWhite(width: canvas, height: canvas) { x, y in
            guard x >= offset, y >= offset else { return false }
            let moduleX = (x - offset) / scale - 4, moduleY = (y - offset) / scale - 4
            return (0..<size).contains(moduleX) && (0..<size).contains(moduleY) && isDark(x: moduleX, y: moduleY)
        }
    }

    private static func escapedAttribute(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "\"", with: "&quot;")
            .replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }
}
