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

    /// The PNG whose side is the largest whole number of pixels per module that fits `side`
    /// (clamped to 1 ... ``largestPNGSide``; at least one pixel a module).
    package func png(fitting side: Int) -> [UInt8] {
        png(scale: max(1, min(max(side, 1), Self.largestPNGSide) / (size + 8)))
    }

    package func png(scale: Int = 8) -> [UInt8] {
        let side = (size + 8) * scale
        return PNGImage.blackAndWhite(width: side, height: side) { x, y in
            let moduleX = x / scale - 4, moduleY = y / scale - 4
            return (0..<size).contains(moduleX) && (0..<size).contains(moduleY) && isDark(x: moduleX, y: moduleY)
        }
    }

    private static func escapedAttribute(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "\"", with: "&quot;")
            .replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }
}
