//! The text the search looks in: every operation's lower-cased `"{id} {name}"`, joined by
//! newlines into one string, so one substring scan finds every match.

/// All operations' search keys in one string, with where each begins.
#[derive(Debug, Clone, Default)]
pub(crate) struct SearchIndex {
    text: String,
    starts: Vec<usize>,
}

impl SearchIndex {
    /// Builds the index from `(id, name)` pairs in operation order.
    pub fn new<'a>(operations: impl Iterator<Item = (u64, &'a str)>) -> Self {
        let mut index = Self::default();
        for (id, name) in operations {
            index.starts.push(index.text.len());
            // Newlines never occur in a query, so a match never spans two operations.
            let key = format!("{id} {}\n", name.replace('\n', " "));
            index.text.push_str(&key.to_lowercase());
        }
        index
    }

    /// Indexes of the operations whose key contains `query` (case-insensitive), ascending.
    pub(crate) fn matches(&self, query: &str) -> Vec<usize> {
        let query = query.to_lowercase();
        let mut found = Vec::new();
        if query.is_empty() || query.contains('\n') {
            return found;
        }
        let mut from = 0;
        while let Some(k) = self.text[from..].find(&query) {
            let operation = self.starts.partition_point(|&s| s <= from + k) - 1;
            found.push(operation);
            match self.starts.get(operation + 1) {
                Some(&next) => from = next,
                None => break,
            }
        }
        found
    }

    /// Whether operation `index` matches `query` (lower-cased).
    pub(crate) fn is_match(&self, index: usize, query: &str) -> bool {
        let end = self.starts.get(index + 1).copied().unwrap_or(self.text.len());
        self.text[self.starts[index]..end].contains(query)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_each_operation_once_by_id_or_name_ignoring_case() {
        let index = SearchIndex::new([(1, "ttnn.MatMul"), (2, "ttnn.add"), (13, "matmul_matmul")].into_iter());
        assert_eq!(index.matches("MATMUL"), vec![0, 2]);
        assert_eq!(index.matches("1"), vec![0, 2]);
        assert_eq!(index.matches("2 ttnn"), vec![1]);
        assert_eq!(index.matches("add\n13"), Vec::<usize>::new());
        assert_eq!(index.matches("zzz"), Vec::<usize>::new());
        assert!(index.is_match(2, "matmul_m") && !index.is_match(1, "matmul"));
    }
}
