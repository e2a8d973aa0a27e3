//! The peak of a usage series with buffers taken out over spans of operations: one tensor's
//! saving by range maxima (a sparse table, so thousands of tensors cost little), all of them by
//! one sweep.

/// One line's usage series, `(operation id, bytes per bank)` ascending by id, indexed for range
/// maxima.
pub(super) struct SeriesPeaks<'a> {
    series: &'a [(u64, u64)],
    /// `table[k][i]`: the maximum of the 2^k values from i.
    table: Vec<Vec<u64>>,
}

impl<'a> SeriesPeaks<'a> {
    /// Indexes a series.
    pub(super) fn new(series: &'a [(u64, u64)]) -> Self {
        let mut table = vec![series.iter().map(|p| p.1).collect::<Vec<u64>>()];
        let mut width = 1;
        while width * 2 <= series.len() {
            let last = &table[table.len() - 1];
            let next = (0..=series.len() - width * 2).map(|i| last[i].max(last[i + width])).collect();
            table.push(next);
            width *= 2;
        }
        Self { series, table }
    }

    /// The maximum of the values at indexes `[from, to)`; 0 when empty.
    fn max(&self, from: usize, to: usize) -> u64 {
        if from >= to {
            return 0;
        }
        let k = (usize::BITS - 1 - (to - from).leading_zeros()) as usize;
        self.table[k][from].max(self.table[k][to - (1 << k)])
    }

    /// The indexes of the points whose operation is in `[first, last]`.
    fn indexes(&self, (first, last): (u64, u64)) -> (usize, usize) {
        let from = self.series.partition_point(|p| p.0 < first);
        let to = self.series.partition_point(|p| p.0 <= last);
        (from, to.max(from))
    }

    /// The series' peak.
    pub(super) fn peak(&self) -> u64 {
        self.max(0, self.series.len())
    }

    /// How much lower the peak is with `size` taken out over the operations `span` (inclusive).
    pub(super) fn saving(&self, span: (u64, u64), size: u64) -> u64 {
        let (from, to) = self.indexes(span);
        let outside = self.max(0, from).max(self.max(to, self.series.len()));
        let inside = self.max(from, to).saturating_sub(size);
        self.peak().saturating_sub(outside.max(inside))
    }

    /// The peak with every `(span, size)` taken out over its span.
    pub(super) fn peak_without(&self, freed: &[((u64, u64), u64)]) -> u64 {
        let mut change = vec![0i128; self.series.len() + 1];
        for &(span, size) in freed {
            let (from, to) = self.indexes(span);
            change[from] += i128::from(size);
            change[to] -= i128::from(size);
        }
        let mut taken = 0i128;
        let mut peak = 0;
        for (i, p) in self.series.iter().enumerate() {
            taken += change[i];
            let left = (i128::from(p.1) - taken).max(0);
            peak = peak.max(u64::try_from(left).unwrap_or(0));
        }
        peak
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn savings_take_the_size_out_over_the_span_only() {
        let series = [(1, 100), (2, 300), (3, 250), (4, 120), (6, 290)];
        let p = SeriesPeaks::new(&series);
        assert_eq!(p.peak(), 300);
        // Out of 2..=3: 300 → max(100, 200, 150, 120, 290) = 290.
        assert_eq!(p.saving((2, 3), 100), 10);
        // Out of 2..=6 entirely: 200, 150, 20, 190 → 200.
        assert_eq!(p.saving((2, 6), 100), 100);
        // A span with no point changes nothing.
        assert_eq!(p.saving((5, 5), 100), 0);
        assert_eq!(p.peak_without(&[((2, 3), 100), ((5, 6), 200)]), 200);
        assert_eq!(p.peak_without(&[]), 300);
    }

    #[test]
    fn range_maxima_agree_with_a_scan_on_every_range() {
        let series: Vec<(u64, u64)> = (0..37u64).map(|i| (i * 2, (i * 7919) % 101)).collect();
        let p = SeriesPeaks::new(&series);
        for from in 0..=series.len() {
            for to in from..=series.len() {
                let scan = series[from..to].iter().map(|x| x.1).max().unwrap_or(0);
                assert_eq!(p.max(from, to), scan, "{from}..{to}");
            }
        }
    }

    #[test]
    fn an_empty_series_has_no_peak() {
        let p = SeriesPeaks::new(&[]);
        assert_eq!((p.peak(), p.saving((1, 9), 5), p.peak_without(&[((1, 2), 3)])), (0, 0, 0));
    }
}
