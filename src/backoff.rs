//! Exponential back-off from a fast path whose check keeps failing.
//!
//! Every loop that tries a fast path and falls back to the divider when a check fails (the
//! kernel's mixed schedules, the `Divisor`'s lane-checked loop and its flag-checked chunks)
//! would, on special-rich data (random bit patterns), pay the attempt, the mispredicted
//! branch and the fallback over and over. After a failure the next `FIRST` units (a mixed
//! step, a block, a chunk's elements: each loop has its own) go straight to the divider;
//! each further failure without a pass in between doubles that, up to `MAX`; a pass starts
//! again at `FIRST`. So data full of specials costs one failed attempt per `MAX` units, and
//! data that turns clean loses at most `MAX` units of the fast path.
//!
//! Each loop keeps its state in a thread-local between calls ([`Backoff::load`] and
//! [`Backoff::store`] around the loop): a stream of short slices of such data does not
//! restart from `FIRST` on every call.

use core::cell::Cell;
use std::thread::LocalKey;

/// The back-off state of one loop on one thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Backoff<const FIRST: u32, const MAX: u32> {
    /// Units left to send straight to the divider.
    skip: u32,
    /// What the next failure sets `skip` to.
    next: u32,
}

/// A thread's back-off state for one loop.
pub(crate) type Slot<const FIRST: u32, const MAX: u32> = LocalKey<Cell<Backoff<FIRST, MAX>>>;

impl<const FIRST: u32, const MAX: u32> Backoff<FIRST, MAX> {
    /// No failure seen: the fast path runs.
    pub(crate) const CLEAR: Self = Backoff {
        skip: 0,
        next: FIRST,
    };

    /// `(FIRST, MAX)`: the units sent to the divider after a first failure, and the most
    /// after several (for the tests that hold a loop to its rule).
    #[cfg(feature = "verify")]
    pub(crate) const RULE: (u32, u32) = (FIRST, MAX);

    /// This thread's state from `slot`.
    #[inline]
    pub(crate) fn load(slot: &'static Slot<FIRST, MAX>) -> Self {
        slot.get()
    }

    /// Keeps the state in `slot` for this thread's next call.
    #[inline]
    pub(crate) fn store(self, slot: &'static Slot<FIRST, MAX>) {
        slot.set(self);
    }

    /// Units still to send straight to the divider.
    #[inline]
    pub(crate) fn skip(&self) -> u32 {
        self.skip
    }

    /// Whether the last attempt failed (the next failure would skip more than `FIRST`).
    #[inline]
    pub(crate) fn after_failure(&self) -> bool {
        self.next > FIRST
    }

    /// The check failed: skip the next `next` units, and twice that (at most `MAX`) after
    /// the next failure.
    #[inline]
    pub(crate) fn failed(&mut self) {
        self.skip = self.next;
        self.next = self.next.saturating_mul(2).min(MAX);
    }

    /// A failure the loop can afford once (a lone special cost its own vector, not its
    /// unit): it skips nothing, but a second failure before a pass skips, twice as many
    /// units as it would have.
    #[inline]
    pub(crate) fn failed_sparsely(&mut self) {
        if self.after_failure() {
            self.failed();
        } else {
            self.next = self.next.saturating_mul(2).min(MAX);
        }
    }

    /// The check passed: the next failure skips `FIRST` units again.
    #[inline]
    pub(crate) fn passed(&mut self) {
        self.next = FIRST;
    }

    /// `n` units (at most [`Backoff::skip`]) went to the divider.
    #[inline]
    pub(crate) fn skipped(&mut self, n: u32) {
        self.skip = self.skip.saturating_sub(n);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type B = Backoff<2, 16>;

    #[test]
    fn failures_double_the_skip_up_to_the_cap_and_a_pass_resets_it() {
        let mut b = B::CLEAR;
        assert_eq!((b.skip(), b.after_failure()), (0, false));
        let mut skips = Vec::new();
        for _ in 0..5 {
            b.failed();
            skips.push(b.skip());
            b.skipped(b.skip());
            assert_eq!(b.skip(), 0);
        }
        assert_eq!(skips, [2, 4, 8, 16, 16]);
        assert!(b.after_failure());
        b.passed();
        assert!(!b.after_failure());
        b.failed();
        assert_eq!(b.skip(), 2);
        b.skipped(5);
        assert_eq!(b.skip(), 0, "skipping more than is left saturates");
    }

    #[test]
    fn a_sparse_failure_skips_nothing_until_a_second_failure_before_a_pass() {
        let mut b = B::CLEAR;
        b.failed_sparsely();
        assert_eq!((b.skip(), b.after_failure()), (0, true));
        b.failed_sparsely();
        assert_eq!(
            b.skip(),
            4,
            "the second skips twice the first failure's units"
        );
        b.skipped(4);
        b.passed();
        b.failed_sparsely();
        b.passed();
        b.failed_sparsely();
        assert_eq!(b.skip(), 0, "a pass between two sparse failures");
        b.failed();
        assert_eq!(b.skip(), 4, "a dense failure after a sparse one");
    }

    std::thread_local! {
        static SLOT: Cell<B> = const { Cell::new(B::CLEAR) };
    }

    #[test]
    fn the_state_is_kept_per_thread() {
        let mut b = B::load(&SLOT);
        b.failed();
        b.store(&SLOT);
        assert_eq!(B::load(&SLOT).skip(), 2);
        let other = std::thread::spawn(|| B::load(&SLOT).skip()).join().unwrap();
        assert_eq!(other, 0, "a new thread starts clear");
    }
}
