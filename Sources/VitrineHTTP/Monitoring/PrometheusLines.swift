/// Metric families in the Prometheus text format (version 0.0.4): each family's
/// HELP and TYPE lines, then its samples. Every part of `/metrics` writes through this.
struct PrometheusLines {
    private(set) var lines: [String] = []

    /// A family with labelled samples; a sample whose labels are empty is written bare.
    mutating func metric(_ name: String, _ type: String, _ help: String, _ samples: [(labels: String, value: String)]) {
        lines.append("# HELP \(name) \(help)")
        lines.append("# TYPE \(name) \(type)")
        for sample in samples { lines.append(sample.labels.isEmpty ? "\(name) \(sample.value)" : "\(name){\(sample.labels)} \(sample.value)") }
    }

    /// A family with one unlabelled sample.
    mutating func metric(_ name: String, _ type: String, _ help: String, _ value: String) {
        metric(name, type, help, [("", value)])
    }

    mutating func append(_ line: String) { lines.append(line) }

    var text: String { lines.joined(separator: "\n") + "\n" }
}
