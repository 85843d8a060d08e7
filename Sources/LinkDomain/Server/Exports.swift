// `import LinkDomain` is the whole service: its pure core and its stores come with it, as
// Hummingbird's `import Hummingbird` brings `HummingbirdCore`.
@_exported import LinkDomainCore
@_exported import LinkDomainStorage
