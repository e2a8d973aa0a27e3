use super::*;
use crate::analysis::messages::failure::{BufferType, parse_allocation_failure};
use crate::analysis::perf::dram_fallback::{DramFallback, FallbackSignal};
use crate::analysis::perf::report_rows::{Analytics, SIGNPOST_OP_TYPE};

const FAILURE: &str = "Out of Memory: Not enough space to allocate 3276800 B L1 buffer across 4 banks, where each bank needs to store 819200 B, but bank size is only 1382720 B";

fn row() -> PerfRow {
    PerfRow { id: 2, raw_op_code: "MatmulDeviceOperation".into(), total_percent: Some(10.0), ..PerfRow::default() }
}

fn analysed(bound: &str, dram: Option<f64>, flops: Option<f64>) -> PerfRow {
    let analytics =
        Analytics { bound: Some(bound.into()), dram_percent: dram, flops_percent: flops, bound_analysis: None };
    PerfRow { analytics: Some(analytics), ..row() }
}

fn context<'a>() -> RowContext<'a> {
    RowContext { failure: None, fallback: None, first_hash_occurrence: true, max_cores: 64 }
}

fn kinds(flags: &[Flag]) -> Vec<FlagKind> {
    flags.iter().map(|f| f.kind).collect()
}

fn detail(flags: &[Flag], kind: FlagKind) -> Option<&str> {
    flags.iter().find(|f| f.kind == kind)?.detail.as_deref()
}

#[test]
fn op_failed_comes_first_and_passes_the_gate() {
    let failure = parse_allocation_failure(FAILURE).unwrap();
    let signpost = PerfRow { op_type: SIGNPOST_OP_TYPE.into(), cores: Some(1), ..row() };
    let flags = flags_for_row(&signpost, RowContext { failure: Some(&failure), ..context() });
    assert_eq!(kinds(&flags), [FlagKind::OpFailed]);
    assert_eq!(
        detail(&flags, FlagKind::OpFailed),
        Some("Requested 3.13 MiB L1 across 4 banks (800 KiB per bank, bank size 1.32 MiB)")
    );
    let host = PerfRow { cores: Some(1), ..analysed("HOST", None, None) };
    assert_eq!(kinds(&flags_for_row(&host, RowContext { failure: Some(&failure), ..context() })), [FlagKind::OpFailed]);
    let busy = PerfRow { cores: Some(1), ..analysed("DRAM", None, None) };
    let fallback = DramFallback { signal: FallbackSignal::RequestedL1(BufferType::L1), dram_outputs: 1, outputs: 2 };
    let flags = flags_for_row(&busy, RowContext { failure: Some(&failure), fallback: Some(&fallback), ..context() });
    assert_eq!(kinds(&flags), [FlagKind::OpFailed, FlagKind::DramFallback, FlagKind::DramBound, FlagKind::FewCores]);
    assert_eq!(detail(&flags, FlagKind::DramFallback), Some("Requested L1; 1 of 2 outputs in DRAM."));
}

#[test]
fn op_failed_marks_failures_made_beyond_the_reference_too() {
    // docs/rules/reference.md §13.3: a circular buffer larger than its L1 buffer counts as an allocation
    // failure everywhere, `Op failed` included; so does an old message without a bank size.
    let cb = parse_allocation_failure("Cannot set to globally allocated buffer. Circular buffer size 98304 B exceeds allocated L1 buffer bank size of 81920 B").unwrap();
    let flags = flags_for_row(&row(), RowContext { failure: Some(&cb), ..context() });
    assert_eq!(
        detail(&flags, FlagKind::OpFailed),
        Some("A circular buffer of 96 KiB is set on an L1 buffer of 80 KiB per bank")
    );
    let old = parse_allocation_failure("Out of Memory: Not enough space to allocate 8257536 B L1 buffer across 64 banks, where each bank needs to store 129024 B").unwrap();
    let flags = flags_for_row(&row(), RowContext { failure: Some(&old), ..context() });
    assert_eq!(detail(&flags, FlagKind::OpFailed), Some("Requested 7.88 MiB L1 across 64 banks (126 KiB per bank)"));
}

#[test]
fn dram_bound_only_from_bound_columns() {
    assert_eq!(
        detail(&flags_for_row(&analysed("DRAM", None, None), context()), FlagKind::DramBound),
        Some("Bound: DRAM")
    );
    let slow = analysed("SLOW", Some(45.678), Some(12.0));
    assert_eq!(detail(&flags_for_row(&slow, context()), FlagKind::DramBound), Some("DRAM 45.68% vs FLOPS 12%"));
    assert!(flags_for_row(&analysed("SLOW", Some(1.0), Some(12.0)), context()).is_empty());
    assert!(flags_for_row(&analysed("SLOW", Some(1.0), None), context()).is_empty());
    assert!(flags_for_row(&analysed("FLOP", None, None), context()).is_empty());
    // A raw CSV has no Bound: never DRAM bound.
    assert!(flags_for_row(&row(), context()).is_empty());
    // Below 0.5 % of the total: nothing.
    let small = PerfRow { total_percent: Some(0.4), ..analysed("DRAM", None, None) };
    assert!(flags_for_row(&small, context()).is_empty());
}

#[test]
fn low_util_from_pm_ideal() {
    // u = 12300 / (100 µs × 1000) × (64 / 64) = 0.123.
    let r = PerfRow { pm_ideal_ns: Some(12300.0), device_time_us: Some(100.0), cores: Some(64), ..row() };
    assert_eq!(detail(&flags_for_row(&r, context()), FlagKind::LowUtil), Some("Core utilisation: 12.3%"));
    let none = PerfRow {
        analytics: Some(Analytics { bound_analysis: Some("none".into()), ..Analytics::default() }),
        ..r.clone()
    };
    assert_eq!(
        detail(&flags_for_row(&none, context()), FlagKind::LowUtil),
        Some(
            "Core utilisation: 12.3%. tt-perf-report has no roofline model for this op, so the ideal time this compares against is less reliable."
        )
    );
    // Available cores replace maxCores: u = 0.123 × 200 / 64 ≥ 0.3 → no flag.
    let avail = PerfRow { available_cores: Some(200), ..r.clone() };
    assert!(detail(&flags_for_row(&avail, context()), FlagKind::LowUtil).is_none());
    let zero = PerfRow { pm_ideal_ns: Some(0.0), ..r.clone() };
    assert!(flags_for_row(&zero, context()).is_empty());
    let no_time = PerfRow { device_time_us: Some(0.0), ..r };
    assert!(flags_for_row(&no_time, context()).is_empty());
}

#[test]
fn few_cores_against_available_or_max() {
    let r = PerfRow { cores: Some(15), ..row() };
    assert_eq!(detail(&flags_for_row(&r, context()), FlagKind::FewCores), Some("Cores: 15 / 64"));
    let r = PerfRow { cores: Some(16), ..row() };
    assert!(flags_for_row(&r, context()).is_empty());
    let r = PerfRow { cores: Some(16), available_cores: Some(110), ..row() };
    assert_eq!(detail(&flags_for_row(&r, context()), FlagKind::FewCores), Some("Cores: 16 / 110"));
    let r = PerfRow { cores: Some(1), ..row() };
    assert!(flags_for_row(&r, RowContext { max_cores: 0, ..context() }).is_empty());
}

#[test]
fn recompute_on_a_repeated_hash_that_missed_the_cache() {
    let r = |id, hit| PerfRow { id, program_hash: Some("7425".into()), cache_hit: hit, total_percent: None, ..row() };
    let rows = [r(2, Some(false)), r(3, Some(false)), r(4, Some(true)), r(5, None)];
    let flags = flags_for_rows(&rows, &LinkMap::default(), &HashMap::new(), &HashMap::new(), 64);
    assert_eq!(flags.iter().map(|f| kinds(f)).collect::<Vec<_>>(), [vec![], vec![FlagKind::Recompute], vec![], vec![]]);
    assert_eq!(detail(&flags[1], FlagKind::Recompute), Some("Hash: 7425"));
}

#[test]
fn linked_rows_get_their_operations_failure() {
    let failure = parse_allocation_failure(FAILURE).unwrap();
    let mut map = LinkMap::default();
    map.insert(9, 3);
    let rows = [PerfRow { id: 2, ..row() }, PerfRow { id: 3, ..row() }];
    let failures = HashMap::from([(9, failure)]);
    let flags = flags_for_rows(&rows, &map, &failures, &HashMap::new(), 64);
    assert!(flags[0].is_empty());
    assert_eq!(kinds(&flags[1]), [FlagKind::OpFailed]);
    // Unlinked: an empty map, no failure flags.
    assert!(flags_for_rows(&rows, &LinkMap::default(), &failures, &HashMap::new(), 64).iter().all(Vec::is_empty));
}

#[test]
fn max_cores_defaults() {
    let rows = [PerfRow { cores: Some(120), ..row() }];
    assert_eq!(max_cores(Some(110), Some("blackhole"), &rows), 110);
    assert_eq!(max_cores(None, Some("wormhole_b0"), &rows), 120);
    assert_eq!(max_cores(None, Some("blackhole"), &rows), 130);
    assert_eq!(max_cores(None, Some("grayskull"), &[]), 108);
    assert_eq!(max_cores(None, Some("quasar"), &[]), 32);
    assert_eq!(max_cores(None, None, &[]), 64);
    assert_eq!(FlagKind::OpFailed.label(), "Operation failed to allocate");
    assert!(FlagKind::OpFailed.is_danger() && !FlagKind::DramFallback.is_danger());
}
