//! The event queue: a binary min-heap keyed by `(time, sequence)`.

use crate::time::SimTime;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// Returned when an event is scheduled before the queue's current time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("event scheduled at {at} but the clock already reads {now}")]
pub struct PastEventError {
    /// The requested time.
    pub at: SimTime,
    /// The queue's current time.
    pub now: SimTime,
}

struct Entry<E> {
    key: u128,
    event: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<E> Ord for Entry<E> {
    /// Reversed so that `BinaryHeap` (a max-heap) pops the earliest key first.
    fn cmp(&self, other: &Self) -> Ordering {
        other.key.cmp(&self.key)
    }
}

/// A deterministic discrete-event queue.
///
/// Events pop in order of time; events at the same time pop in the order they were
/// pushed. Popping advances [`EventQueue::now`]. The queue never runs backwards:
/// scheduling before `now` is an error.
pub struct EventQueue<E> {
    heap: BinaryHeap<Entry<E>>,
    seq: u64,
    now: SimTime,
    popped: u64,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> EventQueue<E> {
    /// An empty queue at time zero.
    pub fn new() -> Self {
        EventQueue {
            heap: BinaryHeap::with_capacity(1024),
            seq: 0,
            now: SimTime::ZERO,
            popped: 0,
        }
    }

    /// The time of the last popped event.
    #[inline]
    pub fn now(&self) -> SimTime {
        self.now
    }

    /// Number of events waiting.
    #[inline]
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// True when no event waits.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// Number of events popped so far.
    #[inline]
    pub fn popped(&self) -> u64 {
        self.popped
    }

    /// Schedules `event` at `at`.
    ///
    /// # Errors
    /// [`PastEventError`] if `at` is earlier than [`EventQueue::now`].
    #[inline]
    pub fn schedule(&mut self, at: SimTime, event: E) -> Result<(), PastEventError> {
        if at < self.now {
            debug_assert!(
                at >= self.now,
                "event scheduled in the past: {at} < {}",
                self.now
            );
            return Err(PastEventError { at, now: self.now });
        }
        self.push_unchecked(at, event);
        Ok(())
    }

    /// Schedules `event` at `now + delay` (never in the past).
    #[inline]
    pub fn schedule_in(&mut self, delay: crate::SimDuration, event: E) {
        let at = self.now + delay;
        self.push_unchecked(at, event);
    }

    #[inline]
    fn push_unchecked(&mut self, at: SimTime, event: E) {
        let key = (u128::from(at.0) << 64) | u128::from(self.seq);
        self.seq += 1;
        self.heap.push(Entry { key, event });
    }

    /// The time of the next event, if any.
    #[inline]
    pub fn peek_time(&self) -> Option<SimTime> {
        self.heap.peek().map(|e| SimTime((e.key >> 64) as u64))
    }

    /// Pops the earliest event and advances the clock to its time.
    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, E)> {
        let entry = self.heap.pop()?;
        let at = SimTime((entry.key >> 64) as u64);
        debug_assert!(at >= self.now);
        self.now = at;
        self.popped += 1;
        Some((at, entry.event))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SimDuration;

    #[test]
    fn pops_in_time_order_and_fifo_on_ties() {
        let mut q = EventQueue::new();
        q.schedule(SimTime(10), 'a').unwrap();
        q.schedule(SimTime(5), 'b').unwrap();
        q.schedule(SimTime(10), 'c').unwrap();
        q.schedule(SimTime(5), 'd').unwrap();
        let order: Vec<char> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, vec!['b', 'd', 'a', 'c']);
        assert_eq!(q.now(), SimTime(10));
        assert_eq!(q.popped(), 4);
    }

    #[test]
    #[cfg(not(debug_assertions))]
    fn scheduling_in_the_past_is_an_error() {
        let mut q = EventQueue::new();
        q.schedule(SimTime(10), 1).unwrap();
        q.pop();
        assert_eq!(
            q.schedule(SimTime(3), 2),
            Err(PastEventError {
                at: SimTime(3),
                now: SimTime(10)
            })
        );
    }

    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "event scheduled in the past")]
    fn scheduling_in_the_past_trips_the_debug_assert() {
        let mut q = EventQueue::new();
        q.schedule(SimTime(10), 1).unwrap();
        q.pop();
        let _ = q.schedule(SimTime(3), 2);
    }

    #[test]
    fn schedule_in_is_relative_to_now() {
        let mut q = EventQueue::new();
        q.schedule(SimTime(7), 0).unwrap();
        q.pop();
        q.schedule_in(SimDuration(3), 1);
        assert_eq!(q.peek_time(), Some(SimTime(10)));
    }
}
