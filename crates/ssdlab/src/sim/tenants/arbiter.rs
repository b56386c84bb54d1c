//! The arbiter: which tenant's submission queue the device fetches its next command
//! from, as the NVM Express Base Specification 2.0 states it in §3.4.4 "Arbitration
//! Mechanisms" (docs/HOST.md §2).

use crate::config::{Arbitration, PriorityClass};

/// Picks submission queues one command at a time.
pub(crate) struct Arbiter {
    mode: Arbitration,
    /// Arbitration Burst: the most commands taken from one queue at one arbitration.
    burst: u32,
    /// Weights of High, Medium and Low.
    weights: [u32; 3],
    /// Each queue's class.
    class: Vec<PriorityClass>,
    /// Per class (Urgent, High, Medium, Low; round robin uses slot 0): the queue after
    /// the one served last.
    next: [usize; 4],
    /// Commands High, Medium and Low may still take in this round.
    credit: [u32; 3],
    /// The queue of the current burst and the commands it may still take.
    current: Option<(usize, u32)>,
}

fn slot(c: PriorityClass) -> usize {
    match c {
        PriorityClass::Urgent => 0,
        PriorityClass::High => 1,
        PriorityClass::Medium => 2,
        PriorityClass::Low => 3,
    }
}

impl Arbiter {
    pub(crate) fn new(
        mode: Arbitration,
        burst: u32,
        weights: [u32; 3],
        class: Vec<PriorityClass>,
    ) -> Self {
        Arbiter {
            mode,
            burst: burst.max(1),
            weights,
            class,
            next: [0; 4],
            credit: weights,
            current: None,
        }
    }

    /// The queue to fetch one command from, among those `ready` says hold one.
    pub(crate) fn pick(&mut self, ready: impl Fn(usize) -> bool) -> Option<usize> {
        let n = self.class.len();
        let wrr = self.mode == Arbitration::WeightedRoundRobin;
        let urgent_ready =
            wrr && (0..n).any(|q| self.class[q] == PriorityClass::Urgent && ready(q));
        if let Some((q, left)) = self.current {
            let c = slot(self.class[q]);
            let allowed = !wrr || c == 0 || (!urgent_ready && self.credit[c - 1] > 0);
            if left > 0 && ready(q) && allowed {
                self.current = Some((q, left - 1));
                if wrr && c > 0 {
                    self.credit[c - 1] -= 1;
                }
                return Some(q);
            }
        }
        let q = if !wrr || urgent_ready {
            self.round_robin(0, &ready)?
        } else {
            let pending = |c: usize, a: &Self| (0..n).any(|q| slot(a.class[q]) == c && ready(q));
            if !(1..4).any(|c| pending(c, self) && self.credit[c - 1] > 0) {
                // Every class with work has used its weight: a new round.
                self.credit = self.weights;
            }
            let c = (1..4).find(|&c| pending(c, self) && self.credit[c - 1] > 0)?;
            self.credit[c - 1] -= 1;
            self.round_robin(c, &ready)?
        };
        self.current = Some((q, self.burst - 1));
        Some(q)
    }

    /// Round robin among the ready queues of class slot `c` (all queues for plain
    /// round robin).
    fn round_robin(&mut self, c: usize, ready: impl Fn(usize) -> bool) -> Option<usize> {
        let n = self.class.len();
        let wrr = self.mode == Arbitration::WeightedRoundRobin;
        let start = self.next[c];
        let q = (0..n)
            .map(|k| (start + k) % n)
            .find(|&q| ready(q) && (!wrr || slot(self.class[q]) == c))?;
        self.next[c] = (q + 1) % n;
        Some(q)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use PriorityClass::*;

    /// The queues `a` picks in `k` picks when every queue always holds a command.
    fn picks(a: &mut Arbiter, k: usize) -> Vec<usize> {
        (0..k).map(|_| a.pick(|_| true).unwrap()).collect()
    }

    #[test]
    fn round_robin_takes_each_queue_in_turn() {
        let mut a = Arbiter::new(Arbitration::RoundRobin, 1, [1; 3], vec![Low, High, Medium]);
        assert_eq!(picks(&mut a, 7), [0, 1, 2, 0, 1, 2, 0]);
        // A queue with nothing to fetch is passed over.
        assert_eq!(a.pick(|q| q != 1), Some(2));
        assert_eq!(a.pick(|_| false), None);
    }

    #[test]
    fn burst_takes_that_many_from_one_queue() {
        let mut a = Arbiter::new(Arbitration::RoundRobin, 2, [1; 3], vec![Medium; 2]);
        assert_eq!(picks(&mut a, 6), [0, 0, 1, 1, 0, 0]);
        // The burst ends early when the queue runs dry.
        assert_eq!(a.pick(|q| q == 1), Some(1));
        assert_eq!(a.pick(|q| q == 0), Some(0));
    }

    #[test]
    fn urgent_queues_go_first_in_strict_priority() {
        let mut a = Arbiter::new(
            Arbitration::WeightedRoundRobin,
            1,
            [1; 3],
            vec![High, Urgent, Urgent],
        );
        assert_eq!(picks(&mut a, 4), [1, 2, 1, 2]);
        assert_eq!(a.pick(|q| q == 0), Some(0));
        // An urgent command interrupts a burst from a lower class.
        let mut a = Arbiter::new(
            Arbitration::WeightedRoundRobin,
            4,
            [1; 3],
            vec![High, Urgent],
        );
        assert_eq!(a.pick(|q| q == 0), Some(0));
        assert_eq!(a.pick(|_| true), Some(1));
    }

    #[test]
    fn weights_are_respected_over_a_round() {
        let mut a = Arbiter::new(
            Arbitration::WeightedRoundRobin,
            1,
            [4, 2, 1],
            vec![Low, Medium, High, High],
        );
        let p = picks(&mut a, 70);
        let count = |q: usize| p.iter().filter(|&&x| x == q).count();
        // Per round of 7: High 4 (2 each for queues 2 and 3), Medium 2, Low 1.
        assert_eq!([count(0), count(1), count(2), count(3)], [10, 20, 20, 20]);
        // A class without work does not hold the others back.
        let mut a = Arbiter::new(
            Arbitration::WeightedRoundRobin,
            1,
            [4, 2, 1],
            vec![Low, High],
        );
        let p: Vec<usize> = (0..10).map(|_| a.pick(|q| q == 0).unwrap()).collect();
        assert_eq!(p, [0; 10]);
    }

    #[test]
    fn weighted_burst_stops_at_the_class_weight() {
        let mut a = Arbiter::new(
            Arbitration::WeightedRoundRobin,
            8,
            [2, 1, 1],
            vec![High, Low],
        );
        assert_eq!(picks(&mut a, 6), [0, 0, 1, 0, 0, 1]);
    }
}
