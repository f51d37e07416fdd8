//! The core's integration tests: scenario tests of what a paper, an RFC or a model states,
//! the golden results, hostile input and the reliability properties. One module per concern,
//! built as one test binary so that the core's generic code is compiled and linked once for
//! all of them (`cargo test -p airtcp-core --test suite mac::` runs one module).

mod apps;
mod bbr;
mod budgets;
mod channels;
mod common;
mod cubic;
mod delay_based;
mod delay_dynamics;
mod ecn;
mod eln;
mod errors;
mod ewr;
mod fingerprint;
mod golden;
mod highspeed_dynamics;
mod highspeed_family;
mod hostile;
mod hybla;
mod jersey;
mod lrt;
mod mac;
mod membrane;
mod mobility;
mod muzha;
mod newreno;
mod oracle;
mod rate_control;
mod reception;
mod recovery;
mod reliability;
mod routing;
mod sack;
mod scheduled_links;
mod seams;
mod snoop;
mod snr_gate;
mod westwood;
mod wmecn;
mod yielding_and_marking;
