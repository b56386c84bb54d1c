//! The content index's groups: the pages of one content (two or more), kept per chip in
//! buckets (in chip order), each bucket an intrusive doubly linked list of pages threaded
//! through two `u32` links per physical page (zero until a page joins a group). Every
//! operation is O(chips holding the content), whatever the group's size.

use ssdlab_nand::Ppn;

const NIL: u32 = u32::MAX;

#[derive(Clone, Copy, Debug)]
struct Group {
    len: u32,
    /// First bucket (the lowest chip).
    first: u32,
}

/// The pages of one group on one chip.
#[derive(Clone, Copy, Debug)]
pub(super) struct Bucket {
    /// The chip.
    pub chip: u32,
    /// Pages in the bucket.
    pub count: u32,
    /// First page (the newest).
    pub head: Ppn,
    /// Next bucket (a higher chip), or NIL.
    next: u32,
}

/// Every group, its buckets, and the page links.
#[derive(Clone, Debug)]
pub(super) struct Groups {
    groups: Vec<Group>,
    free_groups: Vec<u32>,
    buckets: Vec<Bucket>,
    free_buckets: Vec<u32>,
    /// Per page: the next and previous page of its bucket, `ppn + 1` (0: none).
    next: Vec<u32>,
    prev: Vec<u32>,
}

impl Groups {
    /// No groups, over `pages` physical pages.
    pub fn new(pages: u32) -> Groups {
        Groups {
            groups: Vec::new(),
            free_groups: Vec::new(),
            buckets: Vec::new(),
            free_buckets: Vec::new(),
            next: vec![0; pages as usize],
            prev: vec![0; pages as usize],
        }
    }

    /// A new empty group.
    pub fn create(&mut self) -> u32 {
        let g = Group { len: 0, first: NIL };
        match self.free_groups.pop() {
            Some(i) => {
                self.groups[i as usize] = g;
                i
            }
            None => {
                self.groups.push(g);
                (self.groups.len() - 1) as u32
            }
        }
    }

    /// Gives back empty group `g`.
    pub fn free(&mut self, g: u32) {
        debug_assert_eq!(self.groups[g as usize].len, 0, "freeing a non-empty group");
        self.free_groups.push(g);
    }

    /// Pages of group `g`.
    #[inline]
    pub fn len(&self, g: u32) -> u32 {
        self.groups[g as usize].len
    }

    /// True when group `g` exists and holds pages.
    pub fn in_use(&self, g: u32) -> bool {
        self.groups.get(g as usize).is_some_and(|x| x.len > 0)
    }

    /// Groups in use.
    pub fn live(&self) -> u64 {
        (self.groups.len() - self.free_groups.len()) as u64
    }

    /// Group `g`'s buckets, in chip order.
    pub fn buckets(&self, g: u32) -> impl Iterator<Item = &Bucket> + '_ {
        let mut b = self.groups[g as usize].first;
        std::iter::from_fn(move || {
            let bucket = self.buckets.get(b as usize)?;
            b = bucket.next;
            Some(bucket)
        })
    }

    /// The page after `ppn` in its bucket.
    #[inline]
    pub fn next_page(&self, ppn: Ppn) -> Option<Ppn> {
        match self.next[ppn.idx()] {
            0 => None,
            n => Some(Ppn(n - 1)),
        }
    }

    /// The bucket of `chip` in group `g`, if any.
    fn bucket_of(&self, g: u32, chip: u32) -> Option<u32> {
        let mut b = self.groups[g as usize].first;
        while b != NIL {
            let bucket = &self.buckets[b as usize];
            if bucket.chip == chip {
                return Some(b);
            }
            if bucket.chip > chip {
                return None;
            }
            b = bucket.next;
        }
        None
    }

    /// Adds `ppn` (on `chip`) to group `g`, at the head of its chip's bucket (created in
    /// chip order).
    pub fn link(&mut self, g: u32, ppn: Ppn, chip: u32) {
        let b = match self.bucket_of(g, chip) {
            Some(b) => b,
            None => self.new_bucket(g, chip),
        };
        let bucket = &mut self.buckets[b as usize];
        let old = bucket.head;
        bucket.head = ppn;
        bucket.count += 1;
        self.prev[ppn.idx()] = 0;
        self.next[ppn.idx()] = if bucket.count > 1 { old.0 + 1 } else { 0 };
        if bucket.count > 1 {
            self.prev[old.idx()] = ppn.0 + 1;
        }
        self.groups[g as usize].len += 1;
    }

    /// A new empty bucket of `chip` in group `g`, in chip order.
    fn new_bucket(&mut self, g: u32, chip: u32) -> u32 {
        let (mut before, mut after) = (NIL, self.groups[g as usize].first);
        while after != NIL && self.buckets[after as usize].chip < chip {
            before = after;
            after = self.buckets[after as usize].next;
        }
        let bucket = Bucket {
            chip,
            count: 0,
            head: Ppn(NIL),
            next: after,
        };
        let b = match self.free_buckets.pop() {
            Some(i) => {
                self.buckets[i as usize] = bucket;
                i
            }
            None => {
                self.buckets.push(bucket);
                (self.buckets.len() - 1) as u32
            }
        };
        if before == NIL {
            self.groups[g as usize].first = b;
        } else {
            self.buckets[before as usize].next = b;
        }
        b
    }

    /// Removes `ppn` (on `chip`) from group `g`, dropping its bucket when it empties.
    pub fn unlink(&mut self, g: u32, ppn: Ppn, chip: u32) {
        let b = self
            .bucket_of(g, chip)
            .unwrap_or_else(|| panic!("page {ppn} is not in its content's group"));
        let (n, p) = (self.next[ppn.idx()], self.prev[ppn.idx()]);
        if n != 0 {
            self.prev[(n - 1) as usize] = p;
        }
        if p != 0 {
            self.next[(p - 1) as usize] = n;
        } else {
            debug_assert_eq!(self.buckets[b as usize].head, ppn);
            self.buckets[b as usize].head = Ppn(n.wrapping_sub(1));
        }
        (self.next[ppn.idx()], self.prev[ppn.idx()]) = (0, 0);
        self.buckets[b as usize].count -= 1;
        self.groups[g as usize].len -= 1;
        if self.buckets[b as usize].count == 0 {
            self.drop_bucket(g, b);
        }
    }

    fn drop_bucket(&mut self, g: u32, b: u32) {
        let next = self.buckets[b as usize].next;
        if self.groups[g as usize].first == b {
            self.groups[g as usize].first = next;
        } else {
            let mut x = self.groups[g as usize].first;
            while self.buckets[x as usize].next != b {
                x = self.buckets[x as usize].next;
            }
            self.buckets[x as usize].next = next;
        }
        self.free_buckets.push(b);
    }

    /// `dst` takes `src`'s place in group `g` (both on `chip`).
    pub fn replace(&mut self, g: u32, src: Ppn, dst: Ppn, chip: u32) {
        let (n, p) = (self.next[src.idx()], self.prev[src.idx()]);
        self.next[dst.idx()] = n;
        self.prev[dst.idx()] = p;
        (self.next[src.idx()], self.prev[src.idx()]) = (0, 0);
        if n != 0 {
            self.prev[(n - 1) as usize] = dst.0 + 1;
        }
        if p != 0 {
            self.next[(p - 1) as usize] = dst.0 + 1;
        } else {
            let b = self.bucket_of(g, chip).expect("src's bucket");
            debug_assert_eq!(self.buckets[b as usize].head, src);
            self.buckets[b as usize].head = dst;
        }
    }

    /// True when `ppn` (on `chip`) is in group `g` (a walk of its bucket; for checks).
    pub fn contains(&self, g: u32, ppn: Ppn, chip: u32) -> bool {
        let Some(b) = self.bucket_of(g, chip) else {
            return false;
        };
        let mut p = Some(self.buckets[b as usize].head);
        while let Some(q) = p {
            if q == ppn {
                return true;
            }
            p = self.next_page(q);
        }
        false
    }

    /// Heap bytes.
    pub fn heap_bytes(&self) -> usize {
        self.groups.capacity() * std::mem::size_of::<Group>()
            + self.buckets.capacity() * std::mem::size_of::<Bucket>()
            + (self.free_groups.capacity() + self.free_buckets.capacity()) * 4
            + (self.next.capacity() + self.prev.capacity()) * 4
    }

    /// Checks group `g`'s buckets and links, pages on the chips `chip_of` says; returns
    /// its length. Panics on the first broken rule.
    pub fn check(&self, g: u32, chip_of: impl Fn(Ppn) -> u32) -> u32 {
        let group = self.groups[g as usize];
        assert!(group.len >= 2, "group {g} of {} pages", group.len);
        let (mut sum, mut last_chip) = (0, None);
        for b in self.buckets(g) {
            assert!(
                last_chip < Some(b.chip),
                "group {g}: buckets out of chip order"
            );
            last_chip = Some(b.chip);
            let (mut n, mut p, mut prev) = (0, b.head, 0);
            loop {
                assert_eq!(chip_of(p), b.chip, "page {p} in chip {}'s bucket", b.chip);
                assert_eq!(self.prev[p.idx()], prev, "page {p}: back link");
                n += 1;
                match self.next_page(p) {
                    None => break,
                    Some(x) => (prev, p) = (p.0 + 1, x),
                }
            }
            assert_eq!(n, b.count, "group {g}: chip {} bucket count", b.chip);
            sum += n;
        }
        assert_eq!(sum, group.len, "group {g}: length vs buckets");
        sum
    }
}
