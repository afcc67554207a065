/// The greatest total weight of a matching in a bipartite graph: rows to
/// columns, each row on at most one column and each column under at most one
/// row, by the Hungarian method (Kuhn–Munkres, with potentials: O(rows² ×
/// columns)). Weights are non-negative; a weight of 0 is no edge, so a row
/// left on such a column counts as unmatched.
///
/// Written for the small graphs of display outputs (a card's connectors and
/// CRTCs, a few dozen at most), where it is asked many times over.
enum MaximumWeightMatching {
    /// The column each row takes (nil: none) in a matching of greatest total weight.
    /// `weights[row][column]`; every row has the same number of columns.
    static func solve(_ weights: [[Int]]) -> [Int?] {
        let rows = weights.count
        guard rows > 0 else { return [] }
        let realColumns = weights[0].count
        // One unmatched column of weight 0 per row, so that there are at least
        // as many columns as rows and a row may always stay unmatched.
        let columns = realColumns + rows
        let top = (weights.joined().max() ?? 0) + 1
        // Minimum cost is maximum weight: cost = top - weight, never negative.
        func cost(_ row: Int, _ column: Int) -> Int {
            column < realColumns ? top - weights[row][column] : top
        }
        // Rows and columns are 1-based below; 0 is the sentinel of the method.
        var rowPotential = [Int](repeating: 0, count: rows + 1)
        var columnPotential = [Int](repeating: 0, count: columns + 1)
        var rowOfColumn = [Int](repeating: 0, count: columns + 1)
        var previous = [Int](repeating: 0, count: columns + 1)
        for row in 1...rows {
            rowOfColumn[0] = row
            var column = 0
            var slack = [Int](repeating: Int.max, count: columns + 1)
            var visited = [Bool](repeating: false, count: columns + 1)
            repeat {
                visited[column] = true
                let current = rowOfColumn[column]
                var delta = Int.max, next = 0
                for candidate in 1...columns where !visited[candidate] {
                    let reduced = cost(current - 1, candidate - 1) - rowPotential[current] - columnPotential[candidate]
                    if reduced < slack[candidate] {
                        slack[candidate] = reduced
                        previous[candidate] = column
                    }
                    if slack[candidate] < delta {
                        delta = slack[candidate]
                        next = candidate
                    }
                }
                for candidate in 0...columns {
                    if visited[candidate] {
                        rowPotential[rowOfColumn[candidate]] += delta
                        columnPotential[candidate] -= delta
                    } else {
                        slack[candidate] -= delta
                    }
                }
                column = next
            } while rowOfColumn[column] != 0
            // Flip the augmenting path back to the start.
            repeat {
                let before = previous[column]
                rowOfColumn[column] = rowOfColumn[before]
                column = before
            } while column != 0
        }
        var result = [Int?](repeating: nil, count: rows)
        for column in 1...columns where rowOfColumn[column] != 0 {
            let row = rowOfColumn[column] - 1
            if column - 1 < realColumns, weights[row][column - 1] > 0 { result[row] = column - 1 }
        }
        return result
    }

    /// The greatest total weight a matching reaches.
    static func bestWeight(_ weights: [[Int]]) -> Int {
        solve(weights).enumerated().reduce(0) { total, pair in
            total + (pair.element.map { weights[pair.offset][$0] } ?? 0)
        }
    }
}
