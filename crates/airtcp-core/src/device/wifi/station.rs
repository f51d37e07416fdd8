//! One station's state: its queue, its exchange in progress, what it senses, its counters.

use crate::engine::{Rng, Time};
use crate::ids::{DevId, NodeId, PacketId};
use crate::link::ErrorModel;
use crate::packet::{DropCause, Packet};
use crate::queue::{AnyQueue, Fifo};
use std::collections::VecDeque;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    Rts,
    Cts,
    Data,
    Ack,
    /// A data frame to every station in range: no ACK, no RTS/CTS, no retries, sent at the
    /// basic rate (802.11-2016, 10.3.6 and 10.6.5.2).
    Bcast,
}

/// The receiver index of a broadcast frame.
pub(super) const BCAST: u32 = u32::MAX;

#[derive(Clone, Copy, Debug)]
pub(super) struct Frame {
    pub(super) kind: Kind,
    pub(super) from: u32,
    pub(super) to: u32,
    /// Duration field: how long after this frame's end the exchange holds the medium.
    pub(super) nav: Time,
    pub(super) bytes: u32,
    pub(super) seq: u32,
    pub(super) pkt: Option<PacketId>,
    pub(super) end: Time,
    /// Rate of the part after the PLCP preamble and header.
    pub(super) rate: u64,
}

/// A signal as one station senses it.
#[derive(Clone, Copy, Debug)]
pub(super) struct Sig {
    pub(super) fid: u32,
    pub(super) start: Time,
    pub(super) end: Time,
    pub(super) power: f64,
    /// The station's own transmission.
    pub(super) own: bool,
    /// Strong enough to sense (above the carrier-sense threshold); a weaker signal only
    /// interferes (the `sinr` reception counts it).
    pub(super) sensed: bool,
    pub(super) evaluated: bool,
    /// `sinr`: whether its PLCP header decoded at this station, drawn once when first needed
    /// (its preamble detected); `None` before, or if it never mattered.
    pub(super) header_ok: Option<bool>,
}

/// One station that senses another's transmissions, or (not `sensed`) only receives their
/// energy as interference.
#[derive(Clone, Copy, Debug)]
pub struct Hear {
    pub to: u32,
    pub power_w: f64,
    pub delay: Time,
    pub sensed: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum State {
    Idle,
    /// Sending its own RTS or data frame.
    Tx,
    WaitCts,
    WaitAck,
    /// Sending a CTS or ACK.
    Respond,
}

/// The packet at the head of the station's queue and its exchange.
#[derive(Clone, Copy, Debug)]
pub(super) struct Cur {
    pub(super) pkt: PacketId,
    /// The packet as it was when it left the queue: the error model and the frame size read
    /// it, and once delivered the arena slot belongs to the receiver.
    pub(super) hdr: Packet,
    pub(super) to: u32,
    pub(super) seq: u32,
    pub(super) short: u8,
    pub(super) long: u8,
    pub(super) delivered: bool,
    /// Rate of the data frame of the attempt under way.
    pub(super) rate: u64,
    /// Why the last attempt failed (ground truth, for the drop cause only).
    pub(super) fail: Option<DropCause>,
}

#[derive(Clone, Copy, Debug)]
pub(super) struct Pending {
    pub(super) kind: Kind,
    pub(super) to: u32,
    pub(super) nav: Time,
    pub(super) rate: u64,
}

/// Per-station counters (the `macs` table).
#[derive(Clone, Debug, Default)]
pub struct MacStats {
    pub data_frames: u64,
    pub rts_frames: u64,
    pub cts_frames: u64,
    pub ack_frames: u64,
    /// Broadcast frames sent (routing control packets).
    pub bcast_frames: u64,
    /// Broadcast frames decoded.
    pub rx_bcast: u64,
    /// Attempts after the first, over all packets.
    pub retries: u64,
    /// Attempts that failed, by what lost them (collision/contention or channel error).
    pub failed_collision: u64,
    pub failed_channel: u64,
    pub drops: [u64; DropCause::ALL.len()],
    /// Packets given up at the retry limit although the receiver had them (every ACK lost).
    pub gave_up_after_delivery: u64,
    /// Data frames received for this station, and the duplicates among them.
    pub rx_data: u64,
    pub rx_duplicates: u64,
    /// Frames addressed to this station that it could not decode.
    pub rx_collisions: u64,
    pub rx_channel_errors: u64,
    pub busy_time: Time,
    pub tx_time: Time,
    pub queue_area: u128,
    pub queue_last_change: Time,
    pub max_queue: u64,
    /// Data frames sent at each rate of the medium's rate set (under rate control).
    pub rate_frames: Vec<u64>,
}

pub struct Station {
    pub node: NodeId,
    pub dev: DevId,
    pub name: String,
    pub(super) fifo: Fifo,
    /// Next-hop station of each queued packet, in queue order.
    pub(super) next: VecDeque<u32>,
    pub(super) policy: AnyQueue,
    pub(super) cur: Option<Cur>,
    pub(super) cw: u32,
    pub(super) backing_off: bool,
    pub(super) bo_slots: u32,
    /// When the countdown of `bo_slots` (re)started, and when it will end.
    pub(super) bo_from: Time,
    pub(super) access_at: Time,
    /// An ACCESS event is scheduled for `access_at` (a post-backoff with nothing to send has
    /// none).
    pub(super) armed: bool,
    pub(super) gen: u32,
    /// The countdown's ACCESS event is placed as if scheduled when it was armed (`arm_seq`,
    /// with the station's `gen` then), but pushed only when due: a countdown that every
    /// frame heard pushes later is not rescheduled each time. `wake` is the time of the one
    /// pushed (numbered `wake_id`), `wake_exact` whether it is the armed event itself; one
    /// pushed earlier than the armed time wakes the station to push that.
    pub(super) arm_seq: u64,
    pub(super) arm_gen: u32,
    pub(super) wake: Option<Time>,
    pub(super) wake_id: u32,
    pub(super) wake_exact: bool,
    pub(super) state: State,
    pub(super) busy_until: Time,
    pub(super) nav_until: Time,
    pub(super) eifs: bool,
    pub(super) signals: Vec<Sig>,
    pub(super) pending: Option<Pending>,
    pub(super) next_seq: u32,
    /// Last sequence number received from each sender (duplicate filter).
    pub(super) last_seq: Vec<(u32, u32)>,
    pub hears: Vec<Hear>,
    pub(super) max_delay: Time,
    pub(super) rng: Rng,
    /// Draws whether a frame survived its SINR (the `sinr` reception).
    pub(super) rx_rng: Rng,
    pub(super) error: ErrorModel,
    /// Rate-control state per peer station, by station index (empty under constant rate).
    pub(super) peers: Vec<super::ratectl::PeerRate>,
    pub stats: MacStats,
}

impl Station {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        node: NodeId,
        dev: DevId,
        name: String,
        policy: AnyQueue,
        hears: Vec<Hear>,
        cw_min: u32,
        rng: Rng,
        rx_rng: Rng,
        error: ErrorModel,
    ) -> Station {
        let max_delay = hears
            .iter()
            .filter(|h| h.sensed)
            .map(|h| h.delay)
            .max()
            .unwrap_or(0);
        Station {
            node,
            dev,
            name,
            fifo: Fifo::default(),
            next: VecDeque::new(),
            policy,
            cur: None,
            cw: cw_min,
            backing_off: false,
            bo_slots: 0,
            bo_from: 0,
            access_at: 0,
            armed: false,
            gen: 0,
            arm_seq: 0,
            arm_gen: 0,
            wake: None,
            wake_id: 0,
            wake_exact: false,
            state: State::Idle,
            busy_until: 0,
            nav_until: 0,
            eifs: false,
            signals: Vec::new(),
            pending: None,
            next_seq: 0,
            last_seq: Vec::new(),
            hears,
            max_delay,
            rng,
            rx_rng,
            error,
            peers: Vec::new(),
            stats: MacStats::default(),
        }
    }

    /// The backoff ran out with nothing to send (ns-3's post-backoff): the next packet to
    /// reach the queue on an idle medium goes after DIFS.
    pub(super) fn backoff_ran_out(&mut self) {
        self.backing_off = false;
        self.bo_slots = 0;
    }

    pub(super) fn note_queue(&mut self, now: Time) {
        let dt = now.saturating_sub(self.stats.queue_last_change) as u128;
        self.stats.queue_area += self.fifo.len() as u128 * dt;
        self.stats.queue_last_change = now;
    }
}
