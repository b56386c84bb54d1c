//! [`Lists`]: slots of the stage in ascending order of a key (a stamp, a sequence
//! number), two lists sharing one link per slot (a slot is in at most one of them).
//!
//! Each list is doubly linked through the links: taking a slot out, the first one and an
//! insertion with a key above every other (a new stamp, a new write's number: nearly
//! every insertion) cost a few steps. A slot that comes back with an older key (a page
//! whose program completed, at its old stamp) is placed by a walk of at most [`WALK`]
//! steps from the slot placed that way before it (the finger), then from both ends at
//! once. One that falls further inside goes to an ordered set beside the list instead:
//! no operation costs more than the walks and a B-tree operation. The order of a list is
//! that of its linked slots and its set merged.

use std::collections::BTreeSet;

/// No slot.
const NIL: u32 = u32::MAX;
/// `prev` of a slot held in the side set.
const SIDE: u32 = u32::MAX - 1;
/// The longest walk from the finger and from each end for an insertion inside a list
/// (tests walk one step, so that their small stages use the side set too).
const WALK: u32 = if cfg!(test) { 1 } else { 8 };

#[derive(Clone, Copy, Debug)]
struct Link {
    key: u64,
    prev: u32,
    next: u32,
}

impl Default for Link {
    fn default() -> Self {
        Link {
            key: 0,
            prev: NIL,
            next: NIL,
        }
    }
}

#[derive(Debug)]
struct List {
    head: u32,
    tail: u32,
    len: u32,
    /// The slot last placed inside the list (or NIL): a walk for the next such insertion
    /// starts there (pages whose programs complete come back in about the order they
    /// left, at keys close to each other's).
    finger: u32,
    /// Slots placed out of the linked order: (key, slot).
    side: BTreeSet<(u64, u32)>,
}

impl Default for List {
    fn default() -> Self {
        List {
            head: NIL,
            tail: NIL,
            len: 0,
            finger: NIL,
            side: BTreeSet::new(),
        }
    }
}

/// Two ordered lists of slots (`0` and `1`). Keys are distinct within a list.
#[derive(Debug, Default)]
pub(super) struct Lists {
    links: Vec<Link>,
    lists: [List; 2],
}

impl Lists {
    /// Room for slot `slot` (slots are added in order: 0, 1, ...).
    pub(super) fn add_slot(&mut self, slot: u32) {
        debug_assert_eq!(slot as usize, self.links.len());
        self.links.push(Link::default());
    }

    /// Empties both lists and forgets every slot.
    pub(super) fn clear(&mut self) {
        self.links.clear();
        self.lists = Default::default();
    }

    /// Slots in list `l`.
    pub(super) fn len(&self, l: usize) -> u32 {
        self.lists[l].len
    }

    /// The slot of list `l` with the lowest key, with its key.
    pub(super) fn first(&self, l: usize) -> Option<(u64, u32)> {
        let list = &self.lists[l];
        let linked = (list.head != NIL).then(|| (self.links[list.head as usize].key, list.head));
        match (linked, list.side.first()) {
            (Some(a), Some(&b)) => Some(a.min(b)),
            (a, b) => a.or(b.copied()),
        }
    }

    /// Puts `slot` (in no list) in list `l` at `key`.
    pub(super) fn insert(&mut self, l: usize, slot: u32, key: u64) {
        let links = &mut self.links;
        let list = &mut self.lists[l];
        list.len += 1;
        links[slot as usize].key = key;
        let (head, tail) = (list.head, list.tail);
        if tail == NIL || links[tail as usize].key < key {
            link(links, list, slot, tail, NIL);
            return;
        }
        let at = if key < links[head as usize].key {
            Some((NIL, head))
        } else {
            walk(links, list, key)
        };
        match at {
            Some((prev, next)) => {
                link(links, list, slot, prev, next);
                list.finger = slot;
            }
            None => {
                links[slot as usize].prev = SIDE;
                list.side.insert((key, slot));
            }
        }
    }

    /// Takes `slot` out of list `l` (it must be in it).
    pub(super) fn remove(&mut self, l: usize, slot: u32) {
        let list = &mut self.lists[l];
        list.len -= 1;
        let x = std::mem::take(&mut self.links[slot as usize]);
        if x.prev == SIDE {
            list.side.remove(&(x.key, slot));
            return;
        }
        if list.finger == slot {
            list.finger = if x.prev == NIL { x.next } else { x.prev };
        }
        match x.prev {
            NIL => list.head = x.next,
            p => self.links[p as usize].next = x.next,
        }
        match x.next {
            NIL => list.tail = x.prev,
            n => self.links[n as usize].prev = x.prev,
        }
    }

    /// The (key, slot) pairs of list `l` in order.
    pub(super) fn in_order(&self, l: usize) -> Vec<(u64, u32)> {
        let list = &self.lists[l];
        let mut out = Vec::with_capacity(list.len as usize);
        let mut s = list.head;
        while s != NIL {
            out.push((self.links[s as usize].key, s));
            s = self.links[s as usize].next;
        }
        out.extend(list.side.iter().copied());
        out.sort_unstable();
        out
    }

    /// Checks list `l`'s links, order and length; its (key, slot) pairs in order.
    ///
    /// # Panics
    /// On the first fault.
    pub(super) fn check(&self, l: usize) -> Vec<(u64, u32)> {
        let list = &self.lists[l];
        let (mut prev, mut s, mut n) = (NIL, list.head, 0u32);
        let mut finger = list.finger == NIL;
        while s != NIL {
            let x = self.links[s as usize];
            finger |= s == list.finger;
            assert_eq!(x.prev, prev, "back link of slot {s}");
            if prev != NIL {
                assert!(self.links[prev as usize].key < x.key, "order at slot {s}");
            }
            (prev, s, n) = (s, x.next, n + 1);
        }
        assert_eq!(list.tail, prev, "tail");
        assert!(finger, "the finger is a linked slot");
        for &(key, s) in &list.side {
            let x = self.links[s as usize];
            assert_eq!((x.prev, x.key), (SIDE, key), "side slot {s}");
        }
        assert_eq!(n as usize + list.side.len(), list.len as usize, "length");
        self.in_order(l)
    }
}

/// The neighbours of `key` in `list`, strictly between its head's key and its tail's:
/// found by a walk from the finger, then from both ends at once (each walk stops at the
/// other end at the latest); none within [`WALK`] steps of each.
fn walk(links: &[Link], list: &List, key: u64) -> Option<(u32, u32)> {
    let f = list.finger;
    if f != NIL {
        debug_assert_ne!(links[f as usize].key, key);
        if links[f as usize].key < key {
            let mut prev = f;
            for _ in 0..WALK {
                let next = links[prev as usize].next;
                if key < links[next as usize].key {
                    return Some((prev, next));
                }
                prev = next;
            }
        } else {
            let mut next = f;
            for _ in 0..WALK {
                let prev = links[next as usize].prev;
                if links[prev as usize].key < key {
                    return Some((prev, next));
                }
                next = prev;
            }
        }
    }
    let (mut back, mut front) = (
        links[list.tail as usize].prev,
        links[list.head as usize].next,
    );
    for _ in 0..WALK {
        let b = links[back as usize];
        if b.key < key {
            return Some((back, b.next));
        }
        back = b.prev;
        let f = links[front as usize];
        if key < f.key {
            return Some((f.prev, front));
        }
        front = f.next;
    }
    None
}

/// Links `slot` between `prev` and `next` (adjacent in `list`, or NIL at an end).
fn link(links: &mut [Link], list: &mut List, slot: u32, prev: u32, next: u32) {
    let x = &mut links[slot as usize];
    (x.prev, x.next) = (prev, next);
    match prev {
        NIL => list.head = slot,
        p => links[p as usize].next = slot,
    }
    match next {
        NIL => list.tail = slot,
        n => links[n as usize].prev = slot,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(s: &Lists, l: usize) -> Vec<u64> {
        s.check(l).into_iter().map(|(k, _)| k).collect()
    }

    #[test]
    fn insertions_anywhere_keep_the_order_and_the_first() {
        let mut s = Lists::default();
        for slot in 0..100 {
            s.add_slot(slot);
        }
        // New keys at the tail, old ones at the head, some just inside, many deep inside.
        let order: Vec<u64> = (0..100).map(|i| (i * 37 % 100) * 10).collect();
        for (slot, &k) in order.iter().enumerate() {
            s.insert(0, slot as u32, k);
            s.check(0);
        }
        let mut sorted = order.clone();
        sorted.sort_unstable();
        assert_eq!(keys(&s, 0), sorted);
        assert!(!s.lists[0].side.is_empty(), "some went to the side set");
        assert_eq!(s.first(0), Some((0, 0)));
        // Out again in another order; the first follows.
        for slot in (0..100).rev().filter(|slot| slot % 3 == 0) {
            s.remove(0, slot);
            s.check(0);
        }
        let mut left: Vec<u64> = (0..100)
            .filter(|slot| slot % 3 != 0)
            .map(|slot| order[slot])
            .collect();
        left.sort_unstable();
        assert_eq!(keys(&s, 0), left);
        assert_eq!(s.first(0).map(|(k, _)| k), left.first().copied());
        assert_eq!(s.len(0), left.len() as u32);
    }

    #[test]
    fn two_lists_share_the_links_and_a_slot_moves_between_them() {
        let mut s = Lists::default();
        for slot in 0..4 {
            s.add_slot(slot);
            s.insert(0, slot, u64::from(slot) + 1);
        }
        s.remove(0, 1);
        s.insert(1, 1, 9);
        s.remove(0, 0);
        s.insert(1, 0, 3);
        assert_eq!(s.check(0), [(3, 2), (4, 3)]);
        assert_eq!(s.check(1), [(3, 0), (9, 1)]);
        assert_eq!((s.first(0), s.first(1)), (Some((3, 2)), Some((3, 0))));
        s.clear();
        assert_eq!((s.len(0), s.first(1)), (0, None));
    }

    mod random {
        use super::*;
        use proptest::prelude::*;

        proptest! {
            /// Any insertions (new keys, old keys, keys anywhere) and removals leave each
            /// list in the order of its keys, with the right first slot: as an ordered set.
            #[test]
            fn the_lists_follow_ordered_sets(
                ops in proptest::collection::vec((0..2usize, 0..48u32, 0..4u8, 0..64u64), 1..400)
            ) {
                let mut s = Lists::default();
                for slot in 0..48 {
                    s.add_slot(slot);
                }
                let mut sets = [BTreeSet::new(), BTreeSet::new()];
                let mut member: [Option<(usize, u64)>; 48] = [None; 48];
                let mut newest = 1000u64;
                for (i, (l, slot, how, x)) in ops.into_iter().enumerate() {
                    match member[slot as usize] {
                        Some((l, key)) => {
                            s.remove(l, slot);
                            sets[l].remove(&(key, slot));
                            member[slot as usize] = None;
                        }
                        None => {
                            // Distinct keys: i is unique; old ones sit among the others.
                            newest += 1 + x;
                            let key = match how {
                                0 | 1 => newest * 1000 + i as u64,
                                2 => x * 1000 + i as u64,
                                _ => (newest - x) * 1000 + i as u64,
                            };
                            s.insert(l, slot, key);
                            sets[l].insert((key, slot));
                            member[slot as usize] = Some((l, key));
                        }
                    }
                    for (l, set) in sets.iter().enumerate() {
                        let want: Vec<_> = set.iter().copied().collect();
                        prop_assert_eq!(s.check(l), want);
                        prop_assert_eq!(s.first(l), set.first().copied());
                        prop_assert_eq!(s.len(l) as usize, set.len());
                    }
                }
            }
        }
    }
}
