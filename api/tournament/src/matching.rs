//! Matchings in general graphs, for the Swiss pairings: Edmonds' blossom algorithm
//! (O(n³)) from the `integer-blossom` crate, behind two questions the pairing asks. The
//! tests below check both against brute force.

/// A minimum-cost perfect matching of the vertices `0..n` (`n` even) of the complete
/// graph with edge costs `cost(i, j)` (`i < j`, non-negative): each vertex's mate.
pub fn min_cost_perfect(n: usize, cost: impl Fn(usize, usize) -> i128) -> Vec<usize> {
    debug_assert!(n % 2 == 0);
    let mut matrix = vec![0i128; n * n];
    for i in 0..n {
        for j in i + 1..n {
            matrix[i * n + j] = cost(i, j).max(0);
        }
    }
    integer_blossom::min_weight_perfect_matching(&matrix, n)
}

/// Whether the graph on `0..n` with the edges `allowed(i, j)` (`i < j`) has a perfect
/// matching.
pub fn has_perfect_matching(n: usize, allowed: impl Fn(usize, usize) -> bool) -> bool {
    if n % 2 == 1 {
        return false;
    }
    let mut matrix = vec![0i64; n * n];
    for i in 0..n {
        for j in i + 1..n {
            if allowed(i, j) {
                matrix[i * n + j] = 1;
            }
        }
    }
    integer_blossom::max_weight_matching(&matrix, n)
        .iter()
        .all(Option::is_some)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator for the test graphs.
    struct Lcg(u64);
    impl Lcg {
        fn next(&mut self, below: u64) -> u64 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (self.0 >> 33) % below
        }
    }

    /// The least cost of a perfect matching of `free` (`None`: none exists).
    fn brute(free: &mut Vec<usize>, cost: &dyn Fn(usize, usize) -> Option<i128>) -> Option<i128> {
        let Some(a) = free.pop() else {
            return Some(0);
        };
        let mut best: Option<i128> = None;
        for k in 0..free.len() {
            let b = free.remove(k);
            if let Some(c) = cost(a.min(b), a.max(b)) {
                if let Some(rest) = brute(free, cost) {
                    best = Some(best.map_or(c + rest, |x| x.min(c + rest)));
                }
            }
            free.insert(k, b);
        }
        free.push(a);
        best
    }

    #[test]
    fn min_cost_perfect_matches_brute_force() {
        let mut rng = Lcg(7);
        for case in 0..400 {
            let n = 2 * (1 + case % 5);
            let costs: Vec<i128> = (0..n * n).map(|_| rng.next(1000) as i128).collect();
            let cost = |i: usize, j: usize| costs[i * n + j];
            let mates = min_cost_perfect(n, cost);
            let mut total = 0;
            for (i, m) in mates.iter().enumerate() {
                assert_eq!(mates[*m], i);
                if i < *m {
                    total += cost(i, *m);
                }
            }
            let best = brute(&mut (0..n).collect(), &|i, j| Some(cost(i, j)));
            assert_eq!(Some(total), best, "case {case}");
        }
    }

    #[test]
    fn lexicographic_weights_of_swiss_size_keep_their_order() {
        // Costs stacked in tiers up to 2^97, beyond the Swiss pairing's 2^77.
        let mut rng = Lcg(11);
        for case in 0..100 {
            let n = 2 * (1 + case % 4);
            let costs: Vec<i128> = (0..n * n)
                .map(|_| (rng.next(3) as i128) << 96 | (rng.next(50) as i128) << 16)
                .collect();
            let cost = |i: usize, j: usize| costs[i * n + j];
            let mates = min_cost_perfect(n, cost);
            let total: i128 = (0..n)
                .filter(|i| *i < mates[*i])
                .map(|i| cost(i, mates[i]))
                .sum();
            let best = brute(&mut (0..n).collect(), &|i, j| Some(cost(i, j)));
            assert_eq!(Some(total), best, "case {case}");
        }
    }

    #[test]
    fn perfect_matching_existence_matches_brute_force() {
        let mut rng = Lcg(3);
        for case in 0..400 {
            let n = 2 * (1 + case % 5);
            let edges: Vec<bool> = (0..n * n).map(|_| rng.next(3) == 0).collect();
            let allowed = |i: usize, j: usize| edges[i * n + j];
            let exists = brute(&mut (0..n).collect(), &|i, j| allowed(i, j).then_some(0)).is_some();
            assert_eq!(has_perfect_matching(n, allowed), exists, "case {case}");
        }
    }

    #[test]
    fn an_odd_graph_has_no_perfect_matching() {
        assert!(!has_perfect_matching(3, |_, _| true));
    }
}
