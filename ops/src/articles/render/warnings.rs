//! The `warnings` list of a render (spec 4.15): one line per kind of change
//! or drop, in the order first met, with a count when it happened more than
//! once (`… (38 times)`).

use std::collections::HashMap;

/// Distinct messages kept; beyond this a last line says how many more kinds
/// there were, so a pathological document cannot grow the response.
const MAX_DISTINCT: usize = 200;

/// Collects warnings, merging repeats.
#[derive(Debug, Default)]
pub struct Warnings {
    entries: Vec<(String, usize)>,
    index: HashMap<String, usize>,
    overflow: usize,
}

impl Warnings {
    /// Records one occurrence of `message`.
    pub fn add(&mut self, message: impl Into<String>) {
        let message = message.into();
        if let Some(&i) = self.index.get(&message) {
            self.entries[i].1 += 1;
        } else if self.entries.len() < MAX_DISTINCT {
            self.index.insert(message.clone(), self.entries.len());
            self.entries.push((message, 1));
        } else {
            self.overflow += 1;
        }
    }

    /// Adds every occurrence recorded in `other`.
    pub fn merge(&mut self, other: Warnings) {
        for (message, count) in other.entries {
            for _ in 0..count {
                self.add(message.clone());
            }
        }
        self.overflow += other.overflow;
    }

    /// Whether no warning was recorded.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The lines of the response: `message` or `message (N times)`.
    pub fn into_messages(self) -> Vec<String> {
        let mut lines: Vec<String> = self
            .entries
            .into_iter()
            .map(|(message, count)| if count == 1 { message } else { format!("{message} ({count} times)") })
            .collect();
        if self.overflow > 0 {
            lines.push(format!("{} more warnings of other kinds were left out", self.overflow));
        }
        lines
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeats_merge_with_a_count_in_first_seen_order() {
        let mut warnings = Warnings::default();
        warnings.add("b");
        warnings.add("a");
        warnings.add("b");
        let mut other = Warnings::default();
        other.add("a");
        other.add("c");
        warnings.merge(other);
        assert_eq!(warnings.into_messages(), ["b (2 times)", "a (2 times)", "c"]);
    }

    #[test]
    fn distinct_messages_are_capped() {
        let mut warnings = Warnings::default();
        for i in 0..MAX_DISTINCT + 5 {
            warnings.add(format!("w{i}"));
        }
        let lines = warnings.into_messages();
        assert_eq!(lines.len(), MAX_DISTINCT + 1);
        assert_eq!(lines.last().unwrap(), "5 more warnings of other kinds were left out");
    }
}
