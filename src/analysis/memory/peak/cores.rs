//! Core ranges as captured graphs and tensors print them (docs/true-peak.md "Cores"): the
//! `CoreRangeSet` print `{[0-0 - 7-6]}`, the JSON of a shard spec's grid
//! `[{"start":{"x":0,"y":0},"end":{"x":7,"y":7}}]`, and the older `[(x=0,y=0) - (x=7,y=7)]`.

/// A set of worker cores: inclusive rectangles `(x0, y0, x1, y1)`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CoreSet {
    /// The rectangles, as written.
    pub ranges: Vec<(u32, u32, u32, u32)>,
}

impl CoreSet {
    /// Reads any of the three forms; none when the text holds no range.
    pub fn parse(text: &str) -> Option<Self> {
        let numbers = numbers(text);
        let ranges: Vec<(u32, u32, u32, u32)> = if text.contains("\"start\"") || text.contains("x=") {
            pairs_in_order(text, &numbers)
        } else {
            numbers.chunks_exact(4).map(|c| (c[0], c[1], c[2], c[3])).collect()
        };
        let ranges: Vec<_> = ranges.into_iter().map(|(a, b, c, d)| (a.min(c), b.min(d), a.max(c), b.max(d))).collect();
        (!ranges.is_empty()).then_some(Self { ranges })
    }

    /// True when core `(x, y)` is in the set.
    pub fn contains(&self, (x, y): (u32, u32)) -> bool {
        self.ranges.iter().any(|&(x0, y0, x1, y1)| (x0..=x1).contains(&x) && (y0..=y1).contains(&y))
    }

    /// True when the set covers every core of a `grid` (x cores × y cores).
    pub fn covers(&self, (gx, gy): (u32, u32)) -> bool {
        (0..gy).all(|y| (0..gx).all(|x| self.contains((x, y))))
    }
}

/// Every unsigned number in `text`, in order.
fn numbers(text: &str) -> Vec<u32> {
    let mut out = Vec::new();
    let mut current: Option<u32> = None;
    for c in text.chars() {
        match c.to_digit(10) {
            Some(d) => current = Some(current.unwrap_or(0).saturating_mul(10).saturating_add(d)),
            None => out.extend(current.take()),
        }
    }
    out.extend(current);
    out
}

/// Rectangles of the JSON and `(x=…,y=…)` forms: each start and end names x before y, as
/// both writers print them; the numbers come in fours.
fn pairs_in_order(text: &str, numbers: &[u32]) -> Vec<(u32, u32, u32, u32)> {
    let x_first = text.find('x').zip(text.find('y')).is_none_or(|(x, y)| x < y);
    numbers.chunks_exact(4).map(|c| if x_first { (c[0], c[1], c[2], c[3]) } else { (c[1], c[0], c[3], c[2]) }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_three_forms_read_alike() {
        let printed = CoreSet::parse("{[0-0 - 7-6]}").unwrap();
        assert_eq!(printed.ranges, vec![(0, 0, 7, 6)]);
        let json = CoreSet::parse(r#"[{"start":{"x":0,"y":0},"end":{"x":7,"y":7}}]"#).unwrap();
        assert_eq!(json.ranges, vec![(0, 0, 7, 7)]);
        let older = CoreSet::parse("[(x=0,y=0) - (x=7,y=7)]").unwrap();
        assert_eq!(older.ranges, vec![(0, 0, 7, 7)]);
        let two = CoreSet::parse("{[0-0 - 3-1], [4-0 - 4-0]}").unwrap();
        assert_eq!(two.ranges, vec![(0, 0, 3, 1), (4, 0, 4, 0)]);
        assert!(two.contains((4, 0)) && two.contains((2, 1)) && !two.contains((4, 1)));
        assert!(json.covers((8, 8)) && !printed.covers((8, 8)) && printed.covers((8, 7)));
        assert_eq!(CoreSet::parse("{}"), None);
        assert_eq!(CoreSet::parse("garbage"), None);
    }
}
