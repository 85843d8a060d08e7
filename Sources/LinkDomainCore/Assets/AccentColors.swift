import Foundation

/// `branding.accentColor` in both colour schemes, each checked for contrast (WCAG 2: 4.5:1, what
/// text needs): the accent is both the buttons' colour and the links' text colour. In the light
/// scheme, the configured colour, shaded toward black only as far as white cards and white button
/// text need; in the dark scheme, the same colour tinted toward white as far as the dark cards
/// need, with dark text on its buttons. See docs/pages.md, "Branding".
public struct AccentColors: Sendable, Equatable {
    public var light: String
    public var dark: String

    /// The built-in sheet's dark card, and the dark scheme's button text (Public/static/styles.css).
    static let darkCard = RGB(0x1e, 0x1e, 0x24)
    static let darkButtonText = "#121216"
    static let white = RGB(0xff, 0xff, 0xff)
    static let black = RGB(0, 0, 0)
    /// WCAG 2's ratio for normal text.
    static let readable = 4.5

    /// The schemes for a `#rrggbb` colour; nil for anything else.
    public init?(_ hex: String) {
        guard let color = RGB(hex: hex) else { return nil }
        light = Self.nearest(color, toward: Self.black, readableOn: Self.white).hex
        dark = Self.nearest(color, toward: Self.white, readableOn: Self.darkCard).hex
    }

    /// `color` mixed toward `target` in 5% steps until it reads on `background` (the target itself reads on it).
    static func nearest(_ color: RGB, toward target: RGB, readableOn background: RGB) -> RGB {
        var mixed = color
        var step = 0
        while mixed.contrast(with: background) < readable && step < 20 {
            step += 1
            mixed = color.mixed(with: target, fraction: Double(step) / 20)
        }
        return mixed
    }

    /// The rules that put these colours over the built-in sheet's.
    public var stylesheet: String {
        """
        @media (prefers-color-scheme: light) { :root { --accent: \(light); --accent-fg: #ffffff; } }
        @media (prefers-color-scheme: dark) { :root { --accent: \(dark); --accent-fg: \(Self.darkButtonText); } }

        """
    }

    struct RGB: Equatable {
        var red: Double, green: Double, blue: Double

        init(_ red: Int, _ green: Int, _ blue: Int) {
            (self.red, self.green, self.blue) = (Double(red), Double(green), Double(blue))
        }

        init?(hex: String) {
            let digits = hex.utf8.dropFirst()
            guard hex.hasPrefix("#"), digits.count == 6, let value = Int(String(hex.dropFirst()), radix: 16) else { return nil }
            self.init(value >> 16 & 0xff, value >> 8 & 0xff, value & 0xff)
        }

        var hex: String {
            "#" + [red, green, blue].map { String(format: "%02x", Int($0.rounded())) }.joined()
        }

        func mixed(with other: RGB, fraction: Double) -> RGB {
            var mixed = self
            mixed.red += (other.red - red) * fraction
            mixed.green += (other.green - green) * fraction
            mixed.blue += (other.blue - blue) * fraction
            return mixed
        }

        /// WCAG 2's relative luminance.
        var luminance: Double {
            func linear(_ channel: Double) -> Double {
                let value = channel / 255
                return value <= 0.03928 ? value / 12.92 : pow((value + 0.055) / 1.055, 2.4)
            }
            return 0.2126 * linear(red) + 0.7152 * linear(green) + 0.0722 * linear(blue)
        }

        func contrast(with other: RGB) -> Double {
            let (lighter, darker) = (max(luminance, other.luminance), min(luminance, other.luminance))
            return (lighter + 0.05) / (darker + 0.05)
        }
    }
}
