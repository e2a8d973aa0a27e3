use super::{Alignment, Parting};
use proptest::prelude::*;

/// The length of a longest common subsequence, by the textbook table (small inputs only).
fn lcs_length(a: &[&str], b: &[&str]) -> usize {
    let mut table = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            table[i][j] = if a[i] == b[j] { table[i + 1][j + 1] + 1 } else { table[i + 1][j].max(table[i][j + 1]) };
        }
    }
    table[0][0]
}

/// Every pair joins equal names, in increasing order on both sides, and the two maps agree.
fn check_common_subsequence(a: &[&str], b: &[&str], alignment: &Alignment) {
    let pairs: Vec<(usize, usize)> = alignment.paired().collect();
    assert_eq!(pairs.len(), alignment.pairs());
    for w in pairs.windows(2) {
        assert!(w[0].0 < w[1].0 && w[0].1 < w[1].1, "{pairs:?}");
    }
    for &(i, j) in &pairs {
        assert_eq!(a[i], b[j]);
        assert_eq!(alignment.before_of(j), Some(i));
        assert_eq!(alignment.after_of(i), Some(j));
    }
    let paired_after = (0..b.len()).filter(|&j| alignment.before_of(j).is_some()).count();
    assert_eq!(paired_after, pairs.len());
}

#[test]
fn a_deallocate_added_parts_the_runs_there() {
    let before = ["ttnn.empty", "ttnn.empty", "ttnn.empty", "ttnn.add"];
    let after = ["ttnn.empty", "ttnn.empty", "ttnn.empty", "ttnn.deallocate", "ttnn.add"];
    let alignment = Alignment::new(&before, &after);
    assert_eq!(alignment.pairs(), 4);
    assert_eq!(alignment.paired().collect::<Vec<_>>(), [(0, 0), (1, 1), (2, 2), (3, 4)]);
    assert_eq!(alignment.parted_at(), Some(Parting { before: None, after: Some(3) }));
    assert_eq!(alignment.before_of(3), None);
}

/// `fixtures/rerun/small_model__free_late`: the fix freed a tensor right after `ttnn.relu`, where
/// the script then freed another; the re-run's truth pairs the script's own call with the second.
#[test]
fn an_inserted_deallocate_comes_before_the_scripts_own() {
    let before = ["ttnn.matmul", "ttnn.add", "ttnn.deallocate", "ttnn.relu", "ttnn.deallocate", "ttnn.softmax"];
    let after = [
        "ttnn.matmul",
        "ttnn.add",
        "ttnn.deallocate",
        "ttnn.relu",
        "ttnn.deallocate",
        "ttnn.deallocate",
        "ttnn.softmax",
    ];
    let alignment = Alignment::new(&before, &after);
    assert_eq!(alignment.paired().collect::<Vec<_>>(), [(0, 0), (1, 1), (2, 2), (3, 3), (4, 5), (5, 6)]);
    assert_eq!(alignment.parted_at(), Some(Parting { before: None, after: Some(4) }));
}

#[test]
fn identical_runs_never_part() {
    let run = ["ttnn.matmul", "ttnn.add", "ttnn.relu"];
    let alignment = Alignment::new(&run, &run);
    assert_eq!(alignment.pairs(), 3);
    assert_eq!(alignment.parted_at(), None);
    let empty: [&str; 0] = [];
    assert_eq!(Alignment::new(&empty, &empty).parted_at(), None);
    assert_eq!(Alignment::new(&empty, &run).parted_at(), Some(Parting { before: None, after: Some(0) }));
}

#[test]
fn an_operation_replaced_parts_both_sides() {
    let before = ["ttnn.matmul", "ttnn.softmax", "ttnn.add"];
    let after = ["ttnn.matmul", "ttnn.relu", "ttnn.add"];
    let alignment = Alignment::new(&before, &after);
    assert_eq!(alignment.pairs(), 2);
    assert_eq!(alignment.parted_at(), Some(Parting { before: Some(1), after: Some(1) }));
}

#[test]
fn a_run_cut_short_parts_at_its_end() {
    let before = ["ttnn.matmul", "ttnn.add", "ttnn.relu", "ttnn.softmax"];
    let after = ["ttnn.matmul", "ttnn.add"];
    let alignment = Alignment::new(&before, &after);
    assert_eq!(alignment.pairs(), 2);
    assert_eq!(alignment.parted_at(), Some(Parting { before: Some(2), after: None }));
}

#[test]
fn the_cost_bound_still_gives_a_common_subsequence() {
    // 300 operations replaced by others one by one (600 edits): past the bound of 256 edits,
    // within the budget of work.
    let names = ["ttnn.add", "ttnn.matmul", "ttnn.relu"];
    let a: Vec<&str> = (0..12_000).map(|k| names[k % 3]).collect();
    let mut b = a.clone();
    for k in (0..12_000).step_by(40) {
        b[k] = if b[k] == "ttnn.add" { "ttnn.matmul" } else { "ttnn.add" };
    }
    let alignment = Alignment::new(&a, &b);
    check_common_subsequence(&a, &b, &alignment);
    // Each replaced operation costs at most itself: the rest stays paired.
    assert!(alignment.pairs() >= 11_700, "{}", alignment.pairs());
}

#[test]
fn past_the_budget_unrelated_runs_still_give_a_common_subsequence() {
    // Names drawn at random: far more work than the budget allows, so most boxes are aligned by
    // the bounded look-ahead.
    let names = ["ttnn.add", "ttnn.matmul", "ttnn.relu", "ttnn.softmax", "ttnn.deallocate"];
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let mut draw = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        names[(state % names.len() as u64) as usize]
    };
    let a: Vec<&str> = (0..6000).map(|_| draw()).collect();
    let b: Vec<&str> = (0..6000).map(|_| draw()).collect();
    let alignment = Alignment::new(&a, &b);
    check_common_subsequence(&a, &b, &alignment);
    assert!(alignment.pairs() > 2000, "{}", alignment.pairs());
}

proptest! {
    /// Below the cost bound the alignment is a longest common subsequence.
    #[test]
    fn the_alignment_is_a_longest_common_subsequence(
        a in proptest::collection::vec(0usize..4, 0..40),
        b in proptest::collection::vec(0usize..4, 0..40),
    ) {
        let names = ["ttnn.add", "ttnn.matmul", "ttnn.deallocate", "ttnn.relu"];
        let a: Vec<&str> = a.into_iter().map(|k| names[k]).collect();
        let b: Vec<&str> = b.into_iter().map(|k| names[k]).collect();
        let alignment = Alignment::new(&a, &b);
        check_common_subsequence(&a, &b, &alignment);
        prop_assert_eq!(alignment.pairs(), lcs_length(&a, &b));
    }
}
