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
// A node's attachment to a link or medium (one direction of a point-to-point link).
id!(DevId);
id!(MediumId);
id!(HookId);
id!(FlowId);
id!(PacketId);
