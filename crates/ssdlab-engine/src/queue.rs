//! The event queue: events ordered by `(time, sequence)`, held in a few FIFO *lanes*
//! and a binary min-heap.
//!
//! A simulator schedules most events a fixed delay after the current time (an array
//! operation, a bus transfer). Because the clock never runs backwards, the events
//! scheduled with one delay come due in the order they were scheduled: a FIFO per delay
//! is already sorted. [`EventQueue::schedule_in_lane`] appends to the lane the caller
//! names for that delay (a lane holds one delay at a time; an event whose lane holds
//! another delay goes to the heap); [`EventQueue::schedule`] and
//! [`EventQueue::schedule_in`] use the heap. A pop takes the smallest
//! `(time, sequence)` among the lane heads and the heap top, so the order is exactly that
//! of one heap over every event.

use crate::time::{SimDuration, SimTime};
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

/// Lanes per queue: the fixed delays of a flash device (read, program, erase, transfer).
pub const LANES: usize = 4;

/// The head time of an empty lane: later than any event.
const EMPTY: u64 = u64::MAX;

/// One lane: a ring buffer of entries in key order (capacity a power of two).
struct Lane<E> {
    slots: Vec<Option<Entry<E>>>,
    head: usize,
    len: usize,
    /// The delay of its events while it holds any.
    delay: u64,
}

impl<E> Lane<E> {
    fn new() -> Self {
        Lane {
            slots: (0..64).map(|_| None).collect(),
            head: 0,
            len: 0,
            delay: 0,
        }
    }

    // Forced: it is a few instructions on the hottest path (every array, bus and
    // arrival delay), and the compiler's choice for it flips with unrelated changes
    // to its callers (docs/PERFORMANCE.md).
    #[inline(always)]
    fn push(&mut self, entry: Entry<E>) {
        if self.len == self.slots.len() {
            self.grow();
        }
        let i = (self.head + self.len) & (self.slots.len() - 1);
        self.slots[i] = Some(entry);
        self.len += 1;
    }

    /// Takes the first entry (the lane is not empty) and returns it with the new first
    /// entry's time and sequence.
    #[inline]
    fn pop(&mut self) -> (Option<Entry<E>>, (u64, u64)) {
        let mask = self.slots.len() - 1;
        let entry = self.slots[self.head].take();
        self.head = (self.head + 1) & mask;
        self.len -= 1;
        let next = if self.len == 0 {
            (EMPTY, EMPTY)
        } else {
            self.slots[self.head]
                .as_ref()
                .map_or((EMPTY, EMPTY), |e| ((e.key >> 64) as u64, e.key as u64))
        };
        (entry, next)
    }

    /// Doubles the capacity, keeping the order.
    #[cold]
    fn grow(&mut self) {
        let cap = self.slots.len();
        let mut slots: Vec<Option<Entry<E>>> = (0..cap * 2).map(|_| None).collect();
        for (k, slot) in slots.iter_mut().take(self.len).enumerate() {
            *slot = self.slots[(self.head + k) & (cap - 1)].take();
        }
        self.slots = slots;
        self.head = 0;
    }
}

/// A deterministic discrete-event queue.
///
/// Events pop in order of time; events at the same time pop in the order they were
/// pushed. Popping advances [`EventQueue::now`]. The queue never runs backwards:
/// scheduling before `now` is an error.
pub struct EventQueue<E> {
    lanes: [Lane<E>; LANES],
    /// Per lane: its first event's time ([`EMPTY`] when it holds none) and sequence.
    lane_time: [u64; LANES],
    lane_seq: [u64; LANES],
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
            lanes: std::array::from_fn(|_| Lane::new()),
            lane_time: [EMPTY; LANES],
            lane_seq: [EMPTY; LANES],
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
        self.heap.len() + self.lanes.iter().map(|l| l.len).sum::<usize>()
    }

    /// True when no event waits.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
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
        let key = self.next_key(at);
        self.heap.push(Entry { key, event });
        Ok(())
    }

    /// Schedules `event` at `now + delay` (never in the past).
    #[inline]
    pub fn schedule_in(&mut self, delay: SimDuration, event: E) {
        let key = self.next_key(self.now + delay);
        self.heap.push(Entry { key, event });
    }

    /// Schedules `event` at `now + delay` in lane `lane` (below [`LANES`]), which the
    /// caller keeps for this one delay; if the lane holds events of another delay, the
    /// event goes to the heap. Either way it pops at its time, in push order.
    #[inline(always)]
    pub fn schedule_in_lane(&mut self, lane: usize, delay: SimDuration, event: E) {
        let at = self.now + delay;
        debug_assert!(at.0 < EMPTY, "event at the end of time");
        let key = self.next_key(at);
        // Every event already in the lane was scheduled with this delay at an earlier
        // or equal `now`, so it is due no later.
        let l = &mut self.lanes[lane];
        if self.lane_time[lane] == EMPTY {
            l.delay = delay.0;
            self.lane_time[lane] = at.0;
            self.lane_seq[lane] = key as u64;
        } else if l.delay != delay.0 {
            self.heap.push(Entry { key, event });
            return;
        }
        l.push(Entry { key, event });
    }

    #[inline]
    fn next_key(&mut self, at: SimTime) -> u128 {
        let key = (u128::from(at.0) << 64) | u128::from(self.seq);
        self.seq += 1;
        key
    }

    /// Where the earliest event is: its lane (`LANES` for the heap) and its time, or
    /// `None` when no event waits.
    #[inline]
    fn first(&self) -> Option<(usize, u64)> {
        let (mut lane, mut time, mut seq) = match self.heap.peek() {
            Some(e) => (LANES, (e.key >> 64) as u64, e.key as u64),
            None => (LANES, EMPTY, EMPTY),
        };
        for i in 0..LANES {
            let t = self.lane_time[i];
            if t < time || (t == time && self.lane_seq[i] < seq) {
                (lane, time, seq) = (i, t, self.lane_seq[i]);
            }
        }
        (lane < LANES || !self.heap.is_empty()).then_some((lane, time))
    }

    /// The time of the next event, if any.
    #[inline]
    pub fn peek_time(&self) -> Option<SimTime> {
        self.first().map(|(_, t)| SimTime(t))
    }

    /// Pops the earliest event and advances the clock to its time.
    #[inline(always)]
    pub fn pop(&mut self) -> Option<(SimTime, E)> {
        let (lane, _) = self.first()?;
        let entry = if lane == LANES {
            self.heap.pop()?
        } else {
            let (entry, (time, seq)) = self.lanes[lane].pop();
            (self.lane_time[lane], self.lane_seq[lane]) = (time, seq);
            entry?
        };
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
    fn lanes_and_heap_pop_in_time_then_push_order() {
        // Lanes, lanes asked for a second delay, the heap, absolute times and ties: the
        // pops follow (time, push order) exactly, as one sorted list would.
        let mut rng = crate::SimRng::new(11);
        let mut q = EventQueue::new();
        let mut pending: Vec<(u64, u64)> = Vec::new();
        let mut pushed = 0u64;
        let mut popped = Vec::new();
        for round in 0..5_000u64 {
            for _ in 0..rng.below(3) {
                let now = q.now().as_ns();
                let at = if rng.below(4) == 0 {
                    let at = now + rng.below(50);
                    q.schedule(SimTime(at), pushed).unwrap();
                    at
                } else {
                    // Each lane mostly keeps one delay (lane 3 alternates two, so its
                    // events of the other go to the heap), and now and then an event
                    // with a delay of its own goes to the heap.
                    let lane = rng.below(LANES as u64) as usize;
                    if round % 97 == 0 {
                        let delay = rng.below(30);
                        q.schedule_in(SimDuration(delay), pushed);
                        now + delay
                    } else {
                        let delay = [5, 10, 25, if round % 2 == 0 { 7 } else { 3 }][lane];
                        q.schedule_in_lane(lane, SimDuration(delay), pushed);
                        now + delay
                    }
                };
                pending.push((at, pushed));
                pushed += 1;
            }
            assert_eq!(q.len(), pending.len() - popped.len());
            if rng.below(2) == 0 {
                if let Some((at, e)) = q.pop() {
                    popped.push((at.as_ns(), e));
                }
            }
        }
        while let Some((at, e)) = q.pop() {
            popped.push((at.as_ns(), e));
        }
        assert!(q.is_empty());
        // Every event came out once, never before an event pushed earlier at the same
        // time or any event due earlier that was already pending.
        let mut sorted = popped.clone();
        sorted.sort_unstable_by_key(|&(_, e)| e);
        assert_eq!(sorted, pending);
        for w in popped.windows(2) {
            assert!(w[0].0 <= w[1].0, "time ran backwards: {w:?}");
            if w[0].0 == w[1].0 {
                assert!(w[0].1 < w[1].1, "ties out of push order: {w:?}");
            }
        }
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
