//! The event queue: events ordered by `(time, sequence)`, held in a few FIFO *lanes*
//! and a binary min-heap.
//!
//! A simulator schedules most events a fixed delay after the current time (an array
//! operation, a bus transfer). Because the clock never runs backwards, the events
//! scheduled with one delay come due in the order they were scheduled: a FIFO per delay
//! is already sorted. [`EventQueue::schedule_in`] appends to the lane of its delay (a
//! lane is bound to a delay while it holds events) and falls back to the heap when every
//! lane holds events of other delays; [`EventQueue::schedule`] (an absolute time) uses
//! the heap. A pop takes the smallest `(time, sequence)` among the lane heads and the
//! heap top, so the order is exactly that of one heap over every event.

use crate::time::{SimDuration, SimTime};
use std::cmp::Ordering;
use std::collections::{BinaryHeap, VecDeque};

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

/// Lanes per queue: enough for the fixed delays of a flash device (read, program, erase,
/// transfer) with one to spare for occasional other delays.
const LANES: usize = 5;

/// The head time of an empty lane: later than any event.
const EMPTY: u64 = u64::MAX;

/// A deterministic discrete-event queue.
///
/// Events pop in order of time; events at the same time pop in the order they were
/// pushed. Popping advances [`EventQueue::now`]. The queue never runs backwards:
/// scheduling before `now` is an error.
pub struct EventQueue<E> {
    /// Per lane: its events in key order, the delay it is bound to while it holds
    /// events, and its first event's time ([`EMPTY`] when it holds none) and sequence.
    lanes: [VecDeque<Entry<E>>; LANES],
    lane_delay: [u64; LANES],
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
            lanes: std::array::from_fn(|_| VecDeque::with_capacity(256)),
            lane_delay: [0; LANES],
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
        self.heap.len() + self.lanes.iter().map(VecDeque::len).sum::<usize>()
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
    #[inline(always)]
    pub fn schedule_in(&mut self, delay: SimDuration, event: E) {
        let at = self.now + delay;
        debug_assert!(at.0 < EMPTY, "event at the end of time");
        let key = self.next_key(at);
        // The lane of this delay, else an empty lane; every event already in a lane of
        // this delay was scheduled at an earlier or equal `now`, so it is due no later.
        let mut free = None;
        for i in 0..LANES {
            if self.lane_time[i] == EMPTY {
                free = free.or(Some(i));
            } else if self.lane_delay[i] == delay.0 {
                self.lanes[i].push_back(Entry { key, event });
                return;
            }
        }
        match free {
            Some(i) => {
                self.lane_delay[i] = delay.0;
                self.lane_time[i] = at.0;
                self.lane_seq[i] = key as u64;
                self.lanes[i].push_back(Entry { key, event });
            }
            None => self.heap.push(Entry { key, event }),
        }
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
    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, E)> {
        let (lane, _) = self.first()?;
        let entry = if lane == LANES {
            self.heap.pop()?
        } else {
            let q = &mut self.lanes[lane];
            let entry = q.pop_front()?;
            (self.lane_time[lane], self.lane_seq[lane]) = q
                .front()
                .map_or((EMPTY, EMPTY), |e| ((e.key >> 64) as u64, e.key as u64));
            entry
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
        // Many delays (more than there are lanes), absolute times and ties: the pops
        // follow (time, push order) exactly, as one sorted list would.
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
                    let delay = [5, 10, 10, 25, 40, 7, 3, 0][rng.below(8) as usize];
                    let delay = if round % 97 == 0 {
                        rng.below(30)
                    } else {
                        delay
                    };
                    q.schedule_in(SimDuration(delay), pushed);
                    now + delay
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
