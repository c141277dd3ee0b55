//! The side-effect recorder: `void batchify_record(i64 tag, i64 value)`,
//! an external function the oracle's JIT resolves to [`batchify_record`]
//! (see [`crate::jit::Jit::new`] and [`overrides`]), which appends
//! `(tag, value)` to a log while one is open on the calling thread.
//!
//! Code under test calls it to make side effects the oracle can see: the
//! random programs of [`crate::gen`] record values under divergent control
//! flow, in loops and in callees. The oracle opens a log for each scalar
//! call (one per active lane) and one for the clone's call, and checks the
//! clone's log with [`check_log`] under the semantics contract's rule
//! (`SPEC.md` §3, "calls that cannot be vectorized run once per active
//! lane, in lane order"): see [`check_log`].

use std::cell::RefCell;
use std::collections::HashSet;

/// The recorder's symbol name.
pub const SYMBOL: &str = "batchify_record";

/// One entry of a log: `(tag, value)`.
pub type Entry = (i64, i64);

thread_local! {
    static LOG: RefCell<Option<Vec<Entry>>> = const { RefCell::new(None) };
}

/// The recorder JIT code calls: appends to the open log, if any.
pub extern "C" fn batchify_record(tag: i64, value: i64) {
    LOG.with(|l| {
        if let Some(v) = l.borrow_mut().as_mut() {
            v.push((tag, value));
        }
    });
}

/// Opens an empty log on this thread (dropping one still open).
pub fn open() {
    LOG.with(|l| *l.borrow_mut() = Some(Vec::new()));
}

/// Closes this thread's log and returns what was recorded (empty if none
/// was open).
pub fn close() -> Vec<Entry> {
    LOG.with(|l| l.borrow_mut().take().unwrap_or_default())
}

/// The names the JIT resolves to this module's functions, with addresses.
pub fn overrides() -> Vec<(&'static str, u64)> {
    vec![(SYMBOL, batchify_record as *const () as u64)]
}

/// Where a clone's log breaks the rule of [`check_log`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogMismatch {
    /// Index of the first clone entry no assignment to lanes accounts for
    /// (the clone log's length if the clone recorded too little).
    pub position: usize,
    /// That clone entry, if any.
    pub got: Option<Entry>,
    /// Entries the clone recorded.
    pub clone_entries: usize,
    /// Entries the scalar calls recorded, over all active lanes.
    pub scalar_entries: usize,
}

/// States a check may visit before it settles for the weaker multiset rule.
const SEARCH_LIMIT: usize = 200_000;

/// Checks the clone's log against the active lanes' scalar logs (`lanes`:
/// one log per active lane, in lane order).
///
/// The rule: the clone's log is an *interleaving* of the lanes' logs —
/// its entries can be assigned to lanes so that each lane's entries, in
/// clone order, are exactly that lane's scalar log (same tags, same values,
/// same order, nothing missing, nothing extra). This is what lanes running
/// in lock step, with every call of the recorder made once per active lane
/// in lane order, produce; a per-lane fallback (the lanes one after the
/// other) produces the plain concatenation, which is one interleaving too.
/// Inactive lanes record nothing. The log does not say which lane made an
/// entry, so the order of lanes within one call site's run is not checked
/// beyond this rule.
///
/// The assignment is searched depth first (lowest lane first), with
/// memoised states; should the search exceed `SEARCH_LIMIT` states
/// (many lanes recording identical entries), the weaker rule that the
/// clone's log and the lanes' logs together hold the same entries, as a
/// multiset, decides.
pub fn check_log(lanes: &[Vec<Entry>], clone: &[Entry]) -> Result<(), LogMismatch> {
    let scalar_entries: usize = lanes.iter().map(Vec::len).sum();
    let fail = |position: usize| LogMismatch {
        position,
        got: clone.get(position).copied(),
        clone_entries: clone.len(),
        scalar_entries,
    };
    if scalar_entries != clone.len() {
        // Find where it first goes wrong for the report: the longest prefix
        // that is a partial interleaving.
        return Err(fail(longest_prefix(lanes, clone)));
    }
    match search(lanes, clone) {
        Some(true) => Ok(()),
        Some(false) => Err(fail(longest_prefix(lanes, clone))),
        None => {
            let mut a: Vec<Entry> = lanes.iter().flatten().copied().collect();
            let mut b = clone.to_vec();
            a.sort_unstable();
            b.sort_unstable();
            if a == b {
                Ok(())
            } else {
                Err(fail(clone.len()))
            }
        }
    }
}

/// Depth-first search for an assignment of the whole clone log, lowest
/// lane first, with an explicit stack (a log of thousands of entries with
/// a choice at each would otherwise recurse as deep); `None` when
/// [`SEARCH_LIMIT`] branch states have been visited.
fn search(lanes: &[Vec<Entry>], clone: &[Entry]) -> Option<bool> {
    let mut seen: HashSet<Vec<u32>> = HashSet::new();
    let mut budget = SEARCH_LIMIT;
    let mut stack: Vec<(Vec<u32>, usize)> = vec![(vec![0; lanes.len()], 0)];
    while let Some((mut pos, mut t)) = stack.pop() {
        // Follow forced moves; stop at a dead end or a branch.
        loop {
            if t == clone.len() {
                if lanes.iter().zip(&pos).all(|(l, &p)| p as usize == l.len()) {
                    return Some(true);
                }
                break;
            }
            let cands: Vec<usize> =
                (0..lanes.len()).filter(|&k| lanes[k].get(pos[k] as usize) == Some(&clone[t])).collect();
            match cands.len() {
                0 => break,
                1 => {
                    pos[cands[0]] += 1;
                    t += 1;
                }
                _ => {
                    if !seen.insert(pos.clone()) {
                        break;
                    }
                    if budget == 0 {
                        return None;
                    }
                    budget -= 1;
                    // Lowest lane on top, so it is tried first.
                    for &k in cands.iter().rev() {
                        let mut next = pos.clone();
                        next[k] += 1;
                        stack.push((next, t + 1));
                    }
                    break;
                }
            }
        }
    }
    Some(false)
}

/// Length of the longest prefix of `clone` that lowest-lane-first greedy
/// matching accounts for (for reports only).
fn longest_prefix(lanes: &[Vec<Entry>], clone: &[Entry]) -> usize {
    let mut pos = vec![0usize; lanes.len()];
    for (t, e) in clone.iter().enumerate() {
        match (0..lanes.len()).find(|&k| lanes[k].get(pos[k]) == Some(e)) {
            Some(k) => pos[k] += 1,
            None => return t,
        }
    }
    clone.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Thousands of entries with a choice of lane at each: the search must
    /// not recurse per entry (a 2 MiB test thread overflowed on a fuzzer
    /// program's log of 7,000 entries).
    #[test]
    fn long_logs_with_a_choice_at_every_entry_are_checked() {
        // Both lanes record the same entries, so either may take each one.
        let lanes: Vec<Vec<Entry>> = (0..2).map(|_| (0..20_000).map(|i| (i % 3, 0)).collect()).collect();
        let interleaved: Vec<Entry> = (0..20_000).flat_map(|i| [(i % 3, 0), (i % 3, 0)]).collect();
        assert_eq!(check_log(&lanes, &interleaved), Ok(()));
        let mut wrong = interleaved.clone();
        wrong.swap(39_998, 39_999);
        wrong[39_999] = (9, 9);
        assert!(check_log(&lanes, &wrong).is_err());
    }

    #[test]
    fn lock_step_and_sequential_orders_pass() {
        let lanes = vec![vec![(1, 10), (2, 11)], vec![(1, 20), (2, 21)]];
        // Lock step: each call site for every lane, in lane order.
        assert_eq!(check_log(&lanes, &[(1, 10), (1, 20), (2, 11), (2, 21)]), Ok(()));
        // Per-lane fallback: lane after lane.
        assert_eq!(check_log(&lanes, &[(1, 10), (2, 11), (1, 20), (2, 21)]), Ok(()));
    }

    #[test]
    fn wrong_missing_extra_and_reordered_entries_fail() {
        let lanes = vec![vec![(1, 10), (2, 11)], vec![(1, 20)]];
        let wrong = check_log(&lanes, &[(1, 10), (1, 21), (2, 11)]).unwrap_err();
        assert_eq!((wrong.position, wrong.got), (1, Some((1, 21))));
        assert!(check_log(&lanes, &[(1, 10), (1, 20)]).is_err());
        assert!(check_log(&lanes, &[(1, 10), (1, 20), (2, 11), (2, 11)]).is_err());
        // A lane's own entries out of order.
        assert!(check_log(&lanes, &[(2, 11), (1, 10), (1, 20)]).is_err());
        // An inactive lane (no log) must record nothing.
        assert!(check_log(&[vec![(1, 10)]], &[(1, 10), (1, 30)]).is_err());
    }

    #[test]
    fn identical_entries_need_backtracking() {
        // Lane 0: X Y, lane 1: X Z. Clone: lane 1's X, Z, then lane 0's X, Y.
        // Lowest-lane-first takes the first X for lane 0 and must undo it.
        let lanes = vec![vec![(1, 5), (2, 6)], vec![(1, 5), (3, 7)]];
        assert_eq!(check_log(&lanes, &[(1, 5), (3, 7), (1, 5), (2, 6)]), Ok(()));
        assert!(check_log(&lanes, &[(1, 5), (3, 7), (2, 6), (1, 5)]).is_err());
    }

    #[test]
    fn the_hook_appends_only_while_a_log_is_open() {
        batchify_record(1, 1);
        open();
        batchify_record(7, -3);
        batchify_record(8, 4);
        assert_eq!(close(), vec![(7, -3), (8, 4)]);
        batchify_record(9, 9);
        assert!(close().is_empty());
    }
}
