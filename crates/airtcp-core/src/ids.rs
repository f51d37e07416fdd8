//! Typed indices into the simulator's arenas.

macro_rules! id {
    ($name:ident) => {
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
        pub struct $name(pub u32);
        impl $name {
            pub fn idx(self) -> usize {
                self.0 as usize
            }
        }
    };
}

id!(NodeId);
id!(LinkId);
// One direction of a link: link `l` has channels 2l (a->b) and 2l+1 (b->a).
id!(ChanId);
id!(FlowId);
id!(PacketId);
