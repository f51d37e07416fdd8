//! Event scheduler: a binary heap ordered by time and, among events at the same instant, by a
//! fixed rule rather than by chance: first the ends of link transmissions, then arrivals at
//! the far end of links (each by device number: a link has at most one of each at an
//! instant), then every other event in the order it was scheduled. Ranking ends and arrivals
//! by what they are, not by when they were scheduled, lets a link schedule a frame's arrival
//! when it accepts the frame or when the frame's transmission ends with the same outcome
//! (see `device::p2p`).
//!
//! Handling an event nearly always schedules another (a link's next frame, the packet's
//! next hop), so the event taken last stays at the top of the heap, spent, until then: the
//! next one scheduled takes its place and sinks once, where a pop and a push would each
//! restore the heap (a pop sinks a leaf from the top and floats it back up).

use super::Time;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// Where an event stands among events at the same instant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tie {
    /// The end of a transmission on a link, by device number.
    End(u32),
    /// An arrival at the far end of a link, by device number.
    Arrival(u32),
    /// Any other event, in the order scheduled.
    Scheduled,
    /// An event placed as if scheduled when its number was reserved
    /// ([`Scheduler::reserve`]): a timer pushed late takes the place an early push would have.
    Reserved(u64),
}

struct Entry<E> {
    /// (time << 64) | (rank << 62) | (device or insertion sequence): one integer compare
    /// orders by time, then by the tie rule.
    key: u128,
    ev: E,
}

impl<E> Entry<E> {
    fn time(&self) -> Time {
        (self.key >> 64) as Time
    }
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
    // Reversed so the std max-heap pops the earliest (time, seq) first.
    fn cmp(&self, other: &Self) -> Ordering {
        other.key.cmp(&self.key)
    }
}

pub struct Scheduler<E> {
    heap: BinaryHeap<Entry<E>>,
    /// The heap's top is the event taken last, already handed out.
    spent_top: bool,
    next_seq: u64,
    now: Time,
}

impl<E: Copy> Default for Scheduler<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E: Copy> Scheduler<E> {
    pub fn new() -> Self {
        Scheduler {
            heap: BinaryHeap::with_capacity(1024),
            spent_top: false,
            next_seq: 0,
            now: 0,
        }
    }

    pub fn now(&self) -> Time {
        self.now
    }

    /// Schedule `ev` at absolute time `at` (clamped to now: the past cannot be scheduled),
    /// after the events already scheduled for that instant.
    #[inline]
    pub fn at(&mut self, at: Time, ev: E) {
        self.at_tied(at, Tie::Scheduled, ev);
    }

    /// Take the next place in the order of scheduled events without scheduling anything: an
    /// event scheduled later with `Tie::Reserved` of it stands among the others at its
    /// instant as if it had been scheduled now.
    #[inline]
    pub fn reserve(&mut self) -> u64 {
        let seq = self.next_seq;
        self.next_seq += 1;
        debug_assert!(seq < 1 << 62, "sequence numbers exhausted");
        seq
    }

    /// Schedule `ev` at `at`, placed among events at the same instant by `tie`.
    #[inline]
    pub fn at_tied(&mut self, at: Time, tie: Tie, ev: E) {
        let time = at.max(self.now);
        let low = match tie {
            Tie::End(d) => d as u64,
            Tie::Arrival(d) => 1 << 62 | d as u64,
            Tie::Scheduled => 2 << 62 | self.reserve(),
            Tie::Reserved(seq) => {
                debug_assert!(seq < self.next_seq, "a number not reserved");
                2 << 62 | seq
            }
        };
        let entry = Entry {
            key: (time as u128) << 64 | low as u128,
            ev,
        };
        if self.spent_top {
            self.spent_top = false;
            // Dropping the handle sinks the new entry to its place.
            *self.heap.peek_mut().expect("a spent top is in the heap") = entry;
        } else {
            self.heap.push(entry);
        }
    }

    /// Pop the next event if it is earlier than `until`, advancing the clock to it.
    #[inline]
    pub fn pop_before(&mut self, until: Time) -> Option<(Time, E)> {
        if self.spent_top {
            self.spent_top = false;
            self.heap.pop();
        }
        match self.heap.peek() {
            Some(e) if e.time() < until => {
                let t = e.time();
                let ev = e.ev;
                self.spent_top = true;
                self.now = t;
                Some((t, ev))
            }
            _ => None,
        }
    }

    /// When the next event is due (None when none is pending). Takes a spent top off first,
    /// as `pop_before` would.
    pub fn next_time(&mut self) -> Option<Time> {
        if self.spent_top {
            self.spent_top = false;
            self.heap.pop();
        }
        self.heap.peek().map(|e| e.time())
    }

    pub fn set_now(&mut self, t: Time) {
        self.now = self.now.max(t);
    }

    pub fn len(&self) -> usize {
        self.heap.len() - usize::from(self.spent_top)
    }

    /// Bytes the event heap holds.
    pub fn heap_bytes(&self) -> usize {
        self.heap.capacity() * std::mem::size_of::<Entry<E>>()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Pending events in no particular order (for end-of-run accounting).
    pub fn pending(&self) -> impl Iterator<Item = &E> {
        let spent = self.heap.peek().filter(|_| self.spent_top);
        self.heap
            .iter()
            .filter(move |e| !spent.is_some_and(|s| std::ptr::eq(*e, s)))
            .map(|e| &e.ev)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn next_time_skips_the_spent_top() {
        let mut s = Scheduler::new();
        assert_eq!(s.next_time(), None);
        s.at(7, 'a');
        s.at(3, 'b');
        assert_eq!(s.next_time(), Some(3));
        assert_eq!(s.pop_before(u64::MAX), Some((3, 'b')));
        // 'b' stays at the top, spent, until asked: the next due is 'a'.
        assert_eq!(s.next_time(), Some(7));
        assert_eq!(s.len(), 1);
        s.at(5, 'c');
        assert_eq!(s.pop_before(u64::MAX), Some((5, 'c')));
        assert_eq!(s.pop_before(u64::MAX), Some((7, 'a')));
        assert_eq!(s.next_time(), None);
    }

    #[test]
    fn orders_by_time_then_insertion() {
        let mut s = Scheduler::new();
        s.at(5, 'a');
        s.at(3, 'b');
        s.at(5, 'c');
        s.at(3, 'd');
        let mut out = vec![];
        while let Some((t, e)) = s.pop_before(u64::MAX) {
            out.push((t, e));
        }
        assert_eq!(out, vec![(3, 'b'), (3, 'd'), (5, 'a'), (5, 'c')]);
    }

    #[test]
    fn at_one_instant_ends_then_arrivals_then_the_rest_in_order() {
        let mut s = Scheduler::new();
        s.at(5, "first scheduled");
        s.at_tied(5, Tie::Arrival(2), "arrival on device 2");
        s.at_tied(5, Tie::End(7), "end on device 7");
        s.at(5, "second scheduled");
        s.at_tied(5, Tie::Arrival(1), "arrival on device 1");
        s.at_tied(5, Tie::End(3), "end on device 3");
        s.at_tied(4, Tie::Scheduled, "earlier");
        let mut out = vec![];
        while let Some((_, e)) = s.pop_before(u64::MAX) {
            out.push(e);
        }
        assert_eq!(
            out,
            [
                "earlier",
                "end on device 3",
                "end on device 7",
                "arrival on device 1",
                "arrival on device 2",
                "first scheduled",
                "second scheduled"
            ]
        );
    }

    #[test]
    fn a_reserved_place_orders_as_if_scheduled_when_reserved() {
        let mut s = Scheduler::new();
        s.at(5, "a");
        let seq = s.reserve();
        s.at(5, "c");
        s.at(4, "earlier");
        // Pushed last, placed between "a" and "c": where `at` would have put it at `reserve`.
        s.at_tied(5, Tie::Reserved(seq), "b");
        let mut out = vec![];
        while let Some((_, e)) = s.pop_before(u64::MAX) {
            out.push(e);
        }
        assert_eq!(out, ["earlier", "a", "b", "c"]);
    }

    #[test]
    fn never_schedules_in_the_past() {
        let mut s = Scheduler::new();
        s.at(10, 1);
        assert_eq!(s.pop_before(100), Some((10, 1)));
        s.at(4, 2);
        assert_eq!(s.pop_before(100), Some((10, 2)));
    }

    /// The event taken last is not pending, whether or not another has taken its place.
    #[test]
    fn the_event_taken_last_is_not_pending() {
        let mut s = Scheduler::new();
        s.at(1, 'a');
        s.at(2, 'b');
        assert_eq!(s.pop_before(10), Some((1, 'a')));
        assert_eq!(
            (s.len(), s.pending().copied().collect::<Vec<_>>()),
            (1, vec!['b'])
        );
        s.at(3, 'c');
        let mut p: Vec<char> = s.pending().copied().collect();
        p.sort();
        assert_eq!((s.len(), p), (2, vec!['b', 'c']));
        assert_eq!(s.pop_before(10), Some((2, 'b')));
        assert_eq!(s.pop_before(10), Some((3, 'c')));
        assert!(s.is_empty() && s.pending().next().is_none());
        assert_eq!(s.pop_before(10), None);
    }

    #[test]
    fn pop_before_stops_at_horizon() {
        let mut s = Scheduler::new();
        s.at(10, 1);
        s.at(20, 2);
        assert_eq!(s.pop_before(20), Some((10, 1)));
        assert_eq!(s.pop_before(20), None);
        assert_eq!(s.len(), 1);
    }

    /// Against a sorted reference: random times with many ties, pops interleaved with pushes
    /// (as in a run, where handling an event schedules more), at heap sizes that fill several
    /// levels.
    #[test]
    fn matches_a_sorted_reference_under_interleaving() {
        let mut rng = crate::engine::Rng::new(3);
        for size in [1usize, 5, 17, 300, 3000] {
            let mut s = Scheduler::new();
            let mut reference: Vec<(Time, u64)> = Vec::new();
            let mut seq = 0u64;
            let mut popped = Vec::new();
            for _ in 0..size {
                let t = rng.below(50);
                s.at(t, seq);
                reference.push((t, seq));
                seq += 1;
            }
            while let Some((t, e)) = s.pop_before(Time::MAX) {
                popped.push((t, e));
                // Each popped event schedules up to two more, never in the past.
                for _ in 0..rng.below(3) {
                    if seq >= 4 * size as u64 {
                        break;
                    }
                    let at = t + rng.below(20);
                    s.at(at, seq);
                    reference.push((at, seq));
                    seq += 1;
                }
            }
            reference.sort();
            assert_eq!(popped, reference, "size {size}");
            assert!(s.is_empty());
        }
    }
}
