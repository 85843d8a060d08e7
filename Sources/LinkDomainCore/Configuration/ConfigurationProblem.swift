/// One thing wrong with a configuration, said so that the reader can fix it without guessing.
public struct ConfigurationProblem: Sendable, Equatable, CustomStringConvertible {
    /// Where the value came from: the configuration file's path, `environment`, or `command line`.
    public var source: String
    /// The key as written in that source: `apple.apps[0].teamID`, or `LINKDOMAIN_APPLE_APPS_0_TEAM_ID`.
    public var key: String
    /// What is wrong with it.
    public var problem: String
    /// What would be right.
    public var expected: String

    public init(source: String, key: String, problem: String, expected: String) {
        self.source = source
        self.key = key
        self.problem = problem
        self.expected = expected
    }

    public var description: String {
        "\(source): \(key): \(problem); expected \(expected)"
    }
}

/// The configuration could not be loaded; `problems` lists every problem found, not only the first.
public struct ConfigurationError: Error, Sendable, CustomStringConvertible {
    public var problems: [ConfigurationProblem]

    public init(problems: [ConfigurationProblem]) {
        self.problems = problems
    }

    public var description: String {
        let noun = problems.count == 1 ? "problem" : "problems"
        return (["invalid configuration (\(problems.count) \(noun)):"] + problems.map { "  - \($0)" })
            .joined(separator: "\n")
    }
}
