//! The one timer contract every component follows (sender, receiver, node hooks, devices):
//! a component says when it next needs the clock (`poll_timeout`), and is called back at or
//! after that time (`handle_timeout`). The engine keeps at most one pending event per
//! component through a [`TimerSlot`], so a deadline moved on every ACK does not flood the
//! event heap: an event that finds its deadline moved later simply re-arms once.

use super::Time;

/// A component driven by the clock.
pub trait Timed {
    /// The earliest time the component needs to be called back, if any.
    fn poll_timeout(&self) -> Option<Time>;
    /// The clock reached `now` (>= a deadline it asked for, or a stale one). Returns true if
    /// something was due, so the caller knows to collect the component's output.
    fn handle_timeout(&mut self, now: Time) -> bool;
}

/// The pending event of one component's timer.
#[derive(Clone, Copy, Debug, Default)]
pub struct TimerSlot {
    pending: Option<Time>,
}

impl TimerSlot {
    /// The component's deadline is `deadline`: returns the time to schedule an event for, if
    /// no event at or before it is pending already.
    pub fn arm(&mut self, deadline: Option<Time>) -> Option<Time> {
        let d = deadline?;
        if self.pending.is_none_or(|e| d < e) {
            self.pending = Some(d);
            return Some(d);
        }
        None
    }

    /// The event scheduled for `now` fired (an earlier-superseded one leaves the slot alone).
    pub fn fired(&mut self, now: Time) {
        if self.pending == Some(now) {
            self.pending = None;
        }
    }

    pub fn pending(&self) -> Option<Time> {
        self.pending
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_only_the_earliest_pending_event() {
        let mut s = TimerSlot::default();
        assert_eq!(s.arm(None), None);
        assert_eq!(s.arm(Some(100)), Some(100));
        // A later deadline is served by re-arming when the earlier event fires.
        assert_eq!(s.arm(Some(150)), None);
        // An earlier one needs its own event.
        assert_eq!(s.arm(Some(50)), Some(50));
        // The event at 50 fires and clears the slot.
        s.fired(50);
        assert_eq!(s.pending(), None);
        assert_eq!(s.arm(Some(150)), Some(150));
        // The superseded event at 100 fires and leaves the pending one alone.
        s.fired(100);
        assert_eq!(s.pending(), Some(150));
    }
}
