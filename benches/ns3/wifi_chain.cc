// airtcp's benchmark d (scenarios/bench_d.toml) in ns-3.44, for a wall-time comparison: a
// 16-hop 802.11 chain (17 nodes 200 m apart on a line), one TCP NewReno bulk flow n0 -> n16.
// Every setting follows airtcp's `ns2` wifi preset and `ns2` TCP profile (ns-2.35 defaults,
// docs/mac.md and crates/airtcp-core/src/tcp/mod.rs) as far as ns-3 allows; the differences
// that remain are listed in benches/ns3/README.md.
//
//   wifi_chain [--run=1] [--duration=50] [--hops=16] [--controlMode=DsssRate1Mbps]
//              [--ns2Rx=1] [--check] [--cross] [--trace]
//
// Only Simulator::Run() is timed (steady clock). Prints on stderr one line
//   wall_s=... goodput_kbps=... delivered_bytes=... mac_data_tx=... mac_frames_tx=... ...
//   peak_rss_kb=...
// with the frames counted at PhyTxBegin (data frames, and every frame: RTS, CTS, data, ACK)
// and the peak RSS read from /proc/self/status (VmHWM). --ns2Rx (on by default) emulates
// ns-2's receiver (see Ns2ReceiverErrorModel); --ns2Rx=0 leaves reception to ns-3's SINR model.
// --check (not for timing) adds, per hop distance, what the receivers did with the frames
// they sensed (decoded at 200 m, sensed but not decoded at 400 m, unseen at 600 m), the rate
// of each kind of frame, and the MAC drops by reason.
// --cross adds a second chain of --hops hops at right angles through the first one's middle
// node (shared), with its own bulk flow from one end to the other; the line then adds
// goodput2_kbps (the TCP counters stay those of the first flow).
// --trace (not for timing) prints a timeline of both senders, the MAC drops and every TCP
// segment each node's IP layer receives or sends (see TraceTx and TraceIp below).

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/mobility-module.h"
#include "ns3/network-module.h"
#include "ns3/propagation-module.h"
#include "ns3/traffic-control-module.h"
#include "ns3/wifi-module.h"

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <deque>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;

// ns-2.35 (tcl/lib/ns-default.tcl), as airtcp's `ns2` preset takes them.
static const double kSpacing = 200.0;          // m between neighbours
static const double kTxPowerW = 0.28183815;    // Phy/WirelessPhy Pt_
static const double kRxThreshW = 3.652e-10;    // RXThresh_: the power at 250 m
static const double kCsThreshW = 1.559e-11;    // CSThresh_: the power at 550 m
static const double kFrequencyHz = 914e6;      // freq_
static const double kAntennaHeight = 1.5;      // Antenna/OmniAntenna Z_
static const uint32_t kFrameRetryLimit = 7;    // Mac/802_11 ShortRetryLimit_ (see below)
static const char* kQueueLimit = "50p";        // ifqlen 50
// airtcp's `ns2` TCP profile with the scenario's 1460-byte segments.
static const uint32_t kSegment = 1460;
static const uint32_t kInitialCwnd = 2;        // windowInit_
static const uint32_t kRcvWindow = 20000;      // rcv_window: 20 packets of ns-2's 1000 bytes
static const double kMinRtoS = 0.2;            // minrto_

// Frames put on the air, counted when the PHY starts sending them.
static uint64_t g_data = 0;
static uint64_t g_rts = 0;
static uint64_t g_cts = 0;
static uint64_t g_ack = 0;
static uint64_t g_other = 0;

static void
PhyTxBegin(Ptr<const Packet> p, double /* txPowerW */)
{
    WifiMacHeader h;
    p->PeekHeader(h);
    if (h.IsData())
    {
        g_data++;
    }
    else if (h.IsRts())
    {
        g_rts++;
    }
    else if (h.IsCts())
    {
        g_cts++;
    }
    else if (h.IsAck())
    {
        g_ack++;
    }
    else
    {
        g_other++;
    }
}

// Packets the MAC discarded: interface-queue overflow (MacTxDrop) and MPDUs dropped after the
// retry limit or for another reason (DroppedMpdu).
static uint64_t g_queueDrops = 0;
static std::map<int, uint64_t> g_mpduDrops;

static void
MacTxDrop(Ptr<const Packet>)
{
    g_queueDrops++;
}

static void
DroppedMpdu(WifiMacDropReason reason, Ptr<const WifiMpdu>)
{
    g_mpduDrops[static_cast<int>(reason)]++;
}

// Loss recovery of the sender: entries into fast recovery and into CA_LOSS (timeouts).
static uint64_t g_recoveries = 0;
static uint64_t g_timeouts = 0;

static void
CongStateChange(TcpSocketState::TcpCongState_t from, TcpSocketState::TcpCongState_t to)
{
    if (to == TcpSocketState::CA_RECOVERY && from != TcpSocketState::CA_RECOVERY)
    {
        g_recoveries++;
    }
    if (to == TcpSocketState::CA_LOSS)
    {
        g_timeouts++;
    }
}

// Data segments the sender transmitted, and those below the highest sequence number already
// sent (retransmissions).
static uint64_t g_segments = 0;
static uint64_t g_retransmissions = 0;
static SequenceNumber32 g_highestSent(0);

static void
TcpTx(Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase>)
{
    if (p->GetSize() == 0)
    {
        return;
    }
    g_segments++;
    if (h.GetSequenceNumber() < g_highestSent)
    {
        g_retransmissions++;
    }
    else
    {
        g_highestSent = h.GetSequenceNumber() + p->GetSize();
    }
}

// --trace: a timeline on stdout, one line per event of either flow's sender ("tcp <t> <flow>
// tx <seq> <bytes>", "ack <ack>", "state <TCP congestion state>", "rto <s>") and per MPDU a
// MAC gave up ("drop <t> <node> <reason> <bytes>").
static bool g_trace = false;

static void
TraceTx(uint32_t flow, Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase>)
{
    if (p->GetSize() > 0)
    {
        std::cout << "tcp " << Simulator::Now().GetSeconds() << " " << flow << " tx "
                  << h.GetSequenceNumber() << " " << p->GetSize() << std::endl;
    }
}

static void
TraceRx(uint32_t flow, Ptr<const Packet>, const TcpHeader& h, Ptr<const TcpSocketBase>)
{
    std::cout << "tcp " << Simulator::Now().GetSeconds() << " " << flow << " ack "
              << h.GetAckNumber() << std::endl;
}

static void
TraceState(uint32_t flow, TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t to)
{
    std::cout << "tcp " << Simulator::Now().GetSeconds() << " " << flow << " state "
              << TcpSocketState::TcpCongStateName[to] << std::endl;
}

static void
TraceRto(uint32_t flow, Time, Time rto)
{
    std::cout << "tcp " << Simulator::Now().GetSeconds() << " " << flow << " rto "
              << rto.GetSeconds() << std::endl;
}

static void
TraceDrop(std::string context, WifiMacDropReason reason, Ptr<const WifiMpdu> mpdu)
{
    int me = std::atoi(context.c_str() + std::string("/NodeList/").size());
    std::cout << "drop " << Simulator::Now().GetSeconds() << " " << me << " " << reason << " "
              << mpdu->GetPacket()->GetSize() << std::endl;
}

// ... and each TCP segment a node's IP layer receives from its device or sends down
// ("ip <t> <node> rx|tx <dst port> <seq> <ack> <payload bytes>").
static void
TraceIp(std::string what, std::string context, Ptr<const Packet> p, Ptr<Ipv4>, uint32_t)
{
    Ptr<Packet> q = p->Copy();
    Ipv4Header ip;
    q->RemoveHeader(ip);
    if (ip.GetProtocol() != 6)
    {
        return;
    }
    TcpHeader h;
    q->RemoveHeader(h);
    int me = std::atoi(context.c_str() + std::string("/NodeList/").size());
    std::cout << "ip " << Simulator::Now().GetSeconds() << " " << me << " " << what << " "
              << h.GetSourcePort() << ">" << h.GetDestinationPort() << " "
              << h.GetSequenceNumber() << " " << h.GetAckNumber() << " " << q->GetSize()
              << std::endl;
}

static void
ConnectTimelineTraces(uint32_t flow, uint32_t node)
{
    const std::string socket =
        "/NodeList/" + std::to_string(node) + "/$ns3::TcpL4Protocol/SocketList/0/";
    Config::ConnectWithoutContextFailSafe(socket + "Tx", MakeBoundCallback(&TraceTx, flow));
    Config::ConnectWithoutContextFailSafe(socket + "Rx", MakeBoundCallback(&TraceRx, flow));
    Config::ConnectWithoutContextFailSafe(socket + "CongState",
                                          MakeBoundCallback(&TraceState, flow));
    Config::ConnectWithoutContextFailSafe(socket + "RTO", MakeBoundCallback(&TraceRto, flow));
}

static void
ConnectSenderTraces()
{
    const std::string socket = "/NodeList/0/$ns3::TcpL4Protocol/SocketList/0/";
    if (!Config::ConnectWithoutContextFailSafe(socket + "CongState",
                                               MakeCallback(&CongStateChange)) ||
        !Config::ConnectWithoutContextFailSafe(socket + "Tx", MakeCallback(&TcpTx)))
    {
        NS_FATAL_ERROR("no TCP socket on n0 to trace");
    }
}

// --ns2Rx: ns-2's receiver, which airtcp's wifi device follows (docs/mac.md). ns-2's
// WirelessPhy hands the MAC every frame sensed above CSThresh_, marked in error below
// RXThresh_; Mac802_11 locks onto the first one (a later frame is lost to it); the frame is
// decoded only if it is at least CPThresh_ (10 dB) above what overlapped it (airtcp: above the
// sum of every other sensed signal that overlapped it), else discarded, and the station then
// defers for EIFS. ns-3's own receiver decodes by SINR and a DSSS error model, which at
// 2 Mbit/s with 11-chip spreading survives interference 10 dB stronger than ns-2's rule does.
//
// Emulation: the PHY locks onto any preamble above the carrier-sense threshold; PhyRxBegin
// records the power and arrival of the frame it locked onto; every transmission is recorded
// (PhyTxPsduBegin: start and duration); at the end of the frame a post-reception error model
// fails it when its power is below RXThresh_ or below 10 x the summed power, at this receiver,
// of the other sensed transmissions that overlapped it. A failed frame is a reception error
// for the MAC (no NAV, EIFS), as in ns-2.
static const double kCaptureRatio = 10.0; // CPThresh_, 10 dB

struct Transmission
{
    Time start;
    Time end;
};

static std::vector<std::deque<Transmission>> g_txHistory; // per transmitting node
static std::vector<std::vector<double>> g_powerW;          // [from][to], W
static std::vector<std::vector<Time>> g_delay;             // [from][to]
static std::vector<double> g_lockedPowerW;                 // per receiving node
static std::vector<Time> g_lockedStart;                    // arrival of the locked frame
static double g_senseW = 0.0;                              // CSThresh_
static uint64_t g_captureFailures = 0;
static uint64_t g_unmatchedLocks = 0;

static void
NodeTxBegin(uint32_t node, WifiConstPsduMap psdus, WifiTxVector txVector, double)
{
    const Time now = Simulator::Now();
    const Time duration = WifiPhy::CalculateTxDuration(psdus, txVector, WIFI_PHY_BAND_2_4GHZ);
    auto& h = g_txHistory[node];
    while (!h.empty() && h.front().end + MilliSeconds(10) < now)
    {
        h.pop_front();
    }
    h.push_back({now, now + duration});
}

static void
LockedOnto(uint32_t node, Ptr<const Packet>, RxPowerWattPerChannelBand powers)
{
    double w = 0.0;
    for (const auto& [band, power] : powers)
    {
        w += power;
    }
    g_lockedPowerW[node] = w;
    // PhyRxBegin fires at the end of the preamble detection window that opened on arrival.
    g_lockedStart[node] = Simulator::Now() - WifiPhy::GetPreambleDetectionDuration();
}

static bool
Ns2Decodes(uint32_t me)
{
    const double locked = g_lockedPowerW[me];
    if (locked < kRxThreshW)
    {
        return false;
    }
    const Time start = g_lockedStart[me];
    const Time end = Simulator::Now();
    // The locked transmission: one whose power here is the locked power and whose arrival is
    // the locked arrival (two senders at the same distance starting in the same slot are
    // indistinguishable, and then the other one's equal power fails the frame anyway).
    int lockedFrom = -1;
    size_t lockedIdx = 0;
    for (uint32_t t = 0; t < g_txHistory.size() && lockedFrom < 0; t++)
    {
        if (t == me || std::abs(g_powerW[t][me] - locked) > 1e-6 * locked)
        {
            continue;
        }
        const auto& h = g_txHistory[t];
        for (size_t k = 0; k < h.size(); k++)
        {
            if (Abs(h[k].start + g_delay[t][me] - start) <= NanoSeconds(2))
            {
                lockedFrom = static_cast<int>(t);
                lockedIdx = k;
                break;
            }
        }
    }
    if (lockedFrom < 0)
    {
        g_unmatchedLocks++;
        return true; // leave the decision to ns-3
    }
    double interference = 0.0;
    for (uint32_t t = 0; t < g_txHistory.size(); t++)
    {
        if (t == me || g_powerW[t][me] < g_senseW)
        {
            continue;
        }
        const auto& h = g_txHistory[t];
        for (size_t k = 0; k < h.size(); k++)
        {
            if (static_cast<int>(t) == lockedFrom && k == lockedIdx)
            {
                continue;
            }
            const Time a = h[k].start + g_delay[t][me];
            const Time b = h[k].end + g_delay[t][me];
            if (a < end && b > start)
            {
                interference += g_powerW[t][me];
            }
        }
    }
    if (locked < kCaptureRatio * interference)
    {
        g_captureFailures++;
        return false;
    }
    return true;
}

class Ns2ReceiverErrorModel : public ErrorModel
{
  public:
    uint32_t node = 0;

  private:
    bool DoCorrupt(Ptr<Packet>) override
    {
        return !Ns2Decodes(node);
    }

    void DoReset() override
    {
    }
};

// --check: per hop distance between transmitter and receiver, what the receiving PHY did.
static std::map<Mac48Address, int> g_index;
static std::map<std::string, uint64_t> g_rxOutcomes;

static int
HopsFrom(const std::string& context, Ptr<const Packet> p)
{
    // context: /NodeList/<i>/DeviceList/...
    int me = std::atoi(context.c_str() + std::string("/NodeList/").size());
    WifiMacHeader h;
    p->PeekHeader(h);
    if (h.IsCts() || h.IsAck())
    {
        return -1; // no transmitter address
    }
    auto it = g_index.find(h.GetAddr2());
    return it == g_index.end() ? -1 : std::abs(it->second - me);
}

static void
CountOutcome(int hops, const std::string& what)
{
    std::ostringstream key;
    key << (hops < 0 ? std::string("CTS/ACK") : std::to_string(hops) + " hop") << " " << what;
    g_rxOutcomes[key.str()]++;
}

static void
RxBegin(std::string context, Ptr<const Packet> p, RxPowerWattPerChannelBand)
{
    CountOutcome(HopsFrom(context, p), "rx-begin");
}

static void
RxOk(std::string context, Ptr<const Packet> p, double, WifiMode, WifiPreamble)
{
    CountOutcome(HopsFrom(context, p), "rx-ok");
}

static void
RxError(std::string context, Ptr<const Packet> p, double)
{
    CountOutcome(HopsFrom(context, p), "rx-error");
}

static void
RxDrop(std::string context, Ptr<const Packet> p, WifiPhyRxfailureReason reason)
{
    std::ostringstream what;
    what << "drop:" << reason;
    CountOutcome(HopsFrom(context, p), what.str());
}

// --check: the rate each kind of frame is sent at.
static std::map<std::string, uint64_t> g_txModes;

static void
TxPsduBegin(WifiConstPsduMap psdus, WifiTxVector txVector, double)
{
    for (const auto& [staId, psdu] : psdus)
    {
        const WifiMacHeader& h = psdu->GetHeader(0);
        std::string kind = h.IsData() ? "data" : h.IsRts() ? "RTS" : h.IsCts() ? "CTS"
                                                : h.IsAck() ? "ACK" : "other";
        g_txModes[kind + " " + txVector.GetMode().GetUniqueName()]++;
    }
}

static long
PeakRssKb()
{
    std::ifstream f("/proc/self/status");
    std::string line;
    while (std::getline(f, line))
    {
        if (line.rfind("VmHWM:", 0) == 0)
        {
            return std::atol(line.c_str() + 6);
        }
    }
    return -1;
}

int
main(int argc, char* argv[])
{
    uint32_t run = 1;
    double duration = 50.0;
    uint32_t hops = 16;
    std::string controlMode = "DsssRate1Mbps";
    bool check = false;
    bool ns2Rx = true;
    bool cross = false;
    CommandLine cmd;
    cmd.AddValue("run", "RngRun (the seed's run number)", run);
    cmd.AddValue("duration", "simulated seconds", duration);
    cmd.AddValue("hops", "hops of the chain (nodes = hops + 1)", hops);
    cmd.AddValue("controlMode",
                 "rate of RTS (CTS follows it); ns-2's basicRate_ is 1 Mbit/s",
                 controlMode);
    cmd.AddValue("ns2Rx",
                 "ns-2's receiver: lock onto any frame sensed, fail it below RXThresh_ (EIFS); "
                 "false: ns-3's preamble detection only from RXThresh_ up",
                 ns2Rx);
    cmd.AddValue("check", "count receptions per hop distance (not for timing)", check);
    cmd.AddValue("cross", "a second chain crossing the first at its middle node", cross);
    cmd.AddValue("trace", "a timeline of both senders and of MAC drops on stdout", g_trace);
    cmd.Parse(argc, argv);
    if (hops < 1 || duration <= 0 || (cross && hops % 2 != 0))
    {
        std::cerr << "error: --hops must be >= 1 (even with --cross) and --duration > 0"
                  << std::endl;
        return 2;
    }

    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(run);

    // --- TCP: airtcp's `ns2` profile (ns-2 Agent/TCP/Newreno with a TCPSink) ---
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(TcpNewReno::GetTypeId()));
    // ns-2's NewReno recovery (RFC 6582), not ns-3's default PRR.
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                       TypeIdValue(TcpClassicRecovery::GetTypeId()));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(kSegment));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(kInitialCwnd));
    // TCPSink acknowledges every segment.
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(1));
    // The receive buffer is the advertised window: airtcp's rcv_window of 20000 bytes (13 full
    // segments of 1460 in flight at most, as in airtcp).
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(kRcvWindow));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(1 << 20));
    // ns-2 never gives up on a segment; ns-3 closes the connection after DataRetries.
    Config::SetDefault("ns3::TcpSocket::DataRetries", UintegerValue(100000));
    Config::SetDefault("ns3::TcpSocket::ConnTimeout", TimeValue(Seconds(3))); // rtxcur_init_
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(Seconds(kMinRtoS)));
    Config::SetDefault("ns3::TcpSocketBase::ClockGranularity", TimeValue(MilliSeconds(1)));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::WindowScaling", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::LimitedTransmit", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::ReTxThreshold", UintegerValue(3));

    // --- interface queue: DropTail of 50 packets, no age limit ---
    Config::SetDefault("ns3::WifiMacQueue::MaxSize", QueueSizeValue(QueueSize(kQueueLimit)));
    Config::SetDefault("ns3::WifiMacQueue::MaxDelay", TimeValue(Seconds(1e6)));

    // Chains as lists of node indices: the first along x, the crossing one (--cross) along y
    // through the first one's middle node.
    std::vector<std::vector<uint32_t>> paths(1);
    for (uint32_t i = 0; i <= hops; i++)
    {
        paths[0].push_back(i);
    }
    if (cross)
    {
        paths.emplace_back();
        uint32_t next = hops + 1;
        for (uint32_t j = 0; j <= hops; j++)
        {
            paths[1].push_back(j == hops / 2 ? hops / 2 : next++);
        }
    }
    const uint32_t n = cross ? 2 * hops + 1 : hops + 1;
    g_lockedPowerW.assign(n, 0.0);
    g_lockedStart.assign(n, Time(0));
    g_txHistory.assign(n, {});
    NodeContainer nodes;
    nodes.Create(n);

    MobilityHelper mobility;
    Ptr<ListPositionAllocator> pos = CreateObject<ListPositionAllocator>();
    for (uint32_t i = 0; i <= hops; i++)
    {
        pos->Add(Vector(kSpacing * i, 0.0, 0.0));
    }
    for (uint32_t j = 0; cross && j <= hops; j++)
    {
        if (j != hops / 2)
        {
            pos->Add(Vector(kSpacing * (hops / 2), kSpacing * (double(j) - hops / 2), 0.0));
        }
    }
    mobility.SetPositionAllocator(pos);
    mobility.SetMobilityModel("ns3::ConstantPositionMobilityModel");
    mobility.Install(nodes);

    // --- channel: two-ray ground with ns-2's antennas, no fading, delay d/c ---
    Ptr<TwoRayGroundPropagationLossModel> loss = CreateObject<TwoRayGroundPropagationLossModel>();
    loss->SetAttribute("Frequency", DoubleValue(kFrequencyHz));
    loss->SetAttribute("SystemLoss", DoubleValue(1.0));
    loss->SetAttribute("HeightAboveZ", DoubleValue(kAntennaHeight));
    Ptr<ConstantSpeedPropagationDelayModel> delay =
        CreateObject<ConstantSpeedPropagationDelayModel>();
    Ptr<YansWifiChannel> channel = CreateObject<YansWifiChannel>();
    channel->SetPropagationLossModel(loss);
    channel->SetPropagationDelayModel(delay);

    const double txDbm = 10.0 * std::log10(kTxPowerW * 1e3);
    const double rxDbm = 10.0 * std::log10(kRxThreshW * 1e3);
    const double csDbm = 10.0 * std::log10(kCsThreshW * 1e3);
    g_senseW = kCsThreshW;
    g_powerW.assign(n, std::vector<double>(n, 0.0));
    g_delay.assign(n, std::vector<Time>(n));
    for (uint32_t a = 0; a < n; a++)
    {
        for (uint32_t b = 0; b < n; b++)
        {
            if (a != b)
            {
                Ptr<MobilityModel> ma = nodes.Get(a)->GetObject<MobilityModel>();
                Ptr<MobilityModel> mb = nodes.Get(b)->GetObject<MobilityModel>();
                g_powerW[a][b] = DbmToW(loss->CalcRxPower(txDbm, ma, mb));
                g_delay[a][b] = delay->GetDelay(ma, mb);
            }
        }
    }

    YansWifiPhyHelper phy;
    phy.SetChannel(channel);
    phy.Set("TxPowerStart", DoubleValue(txDbm));
    phy.Set("TxPowerEnd", DoubleValue(txDbm));
    phy.Set("TxPowerLevels", UintegerValue(1));
    phy.Set("TxGain", DoubleValue(0.0));
    phy.Set("RxGain", DoubleValue(0.0));
    // Carrier sense: energy at or above ns-2's CSThresh_ makes CCA busy, for a frame the PHY
    // cannot decode (CcaSensitivity) as for any energy (CcaEdThreshold).
    phy.Set("CcaEdThreshold", DoubleValue(csDbm));
    phy.Set("CcaSensitivity", DoubleValue(csDbm));
    // Reception: with --ns2Rx=false only a preamble at or above ns-2's RXThresh_ is locked onto
    // and decoded; weaker ones (400 m) fail preamble detection and only keep CCA busy. With
    // --ns2Rx (the default) every sensed preamble is locked onto, whatever its SNR (see
    // Ns2ReceiverErrorModel).
    phy.SetPreambleDetectionModel("ns3::ThresholdPreambleDetectionModel",
                                  "MinimumRssi",
                                  DoubleValue(ns2Rx ? csDbm : rxDbm),
                                  "Threshold",
                                  DoubleValue(ns2Rx ? -100.0 : 4.0));
    // RxSensitivity is set per PHY below: YansWifiChannel discards below it altogether.

    WifiHelper wifi;
    wifi.SetStandard(WIFI_STANDARD_80211b);
    wifi.SetRemoteStationManager("ns3::ConstantRateWifiManager",
                                 "DataMode",
                                 StringValue("DsssRate2Mbps"),
                                 "ControlMode",
                                 StringValue(controlMode),
                                 "RtsCtsThreshold",
                                 UintegerValue(0));
    WifiMacHelper mac;
    // ns-3.44 has one retry count per frame shared by its RTS and data attempts
    // (WifiMac::FrameRetryLimit; WifiRemoteStationManager::MaxSsrc/MaxSlrc are obsolete).
    mac.SetType("ns3::AdhocWifiMac", "FrameRetryLimit", UintegerValue(kFrameRetryLimit));
    NetDeviceContainer devs = wifi.Install(phy, mac, nodes);

    for (uint32_t i = 0; i < n; i++)
    {
        Ptr<WifiNetDevice> dev = DynamicCast<WifiNetDevice>(devs.Get(i));
        Ptr<WifiPhy> p = dev->GetPhy();
        // YansWifiChannel drops a signal below RxSensitivity + 10 log10(width / 20 MHz) before
        // the PHY sees it (no CCA, no interference), as ns-2 ignores one below CSThresh_: so
        // the sensitivity is CSThresh_ less that correction (0.41 dB for 22 MHz DSSS).
        double width = p->GetChannelWidth();
        p->SetAttribute("RxSensitivity", DoubleValue(csDbm - 10.0 * std::log10(width / 20.0)));
        g_index[Mac48Address::ConvertFrom(dev->GetAddress())] = static_cast<int>(i);
        if (ns2Rx)
        {
            Ptr<Ns2ReceiverErrorModel> em = CreateObject<Ns2ReceiverErrorModel>();
            em->node = i;
            p->SetPostReceptionErrorModel(em);
            p->TraceConnectWithoutContext("PhyRxBegin", MakeBoundCallback(&LockedOnto, i));
            p->TraceConnectWithoutContext("PhyTxPsduBegin", MakeBoundCallback(&NodeTxBegin, i));
        }
    }

    // --- IP: static routes along the chain, ARP caches filled beforehand ---
    Ipv4StaticRoutingHelper staticRouting;
    InternetStackHelper stack;
    stack.SetRoutingHelper(staticRouting);
    stack.Install(nodes);
    Ipv4AddressHelper addr;
    addr.SetBase("10.0.0.0", "255.255.255.0");
    Ipv4InterfaceContainer ifs = addr.Assign(devs);
    // Ipv4AddressHelper installed the default queue disc (FqCoDel); remove it so that IP hands
    // packets straight to the MAC's 50-packet DropTail queue, as ns-2's IFQ.
    TrafficControlHelper tch;
    tch.Uninstall(devs);
    for (const auto& path : paths)
    {
        for (uint32_t k = 0; k < path.size(); k++)
        {
            Ptr<Ipv4StaticRouting> r =
                staticRouting.GetStaticRouting(nodes.Get(path[k])->GetObject<Ipv4>());
            for (uint32_t m = 0; m < path.size(); m++)
            {
                if (m + 1 < k || m > k + 1) // neighbours are on the connected /24
                {
                    uint32_t next = m > k ? path[k + 1] : path[k - 1];
                    r->AddHostRouteTo(ifs.GetAddress(path[m]), ifs.GetAddress(next), 1);
                }
            }
        }
    }
    NeighborCacheHelper neighbors;
    neighbors.PopulateNeighborCache();

    // --- one bulk flow n0 -> n(hops) from t = 0 ---
    const uint16_t port = 5000;
    PacketSinkHelper sinkHelper("ns3::TcpSocketFactory",
                                InetSocketAddress(Ipv4Address::GetAny(), port));
    ApplicationContainer sink = sinkHelper.Install(nodes.Get(hops));
    sink.Start(Seconds(0.0));
    BulkSendHelper src("ns3::TcpSocketFactory", InetSocketAddress(ifs.GetAddress(hops), port));
    src.SetAttribute("MaxBytes", UintegerValue(0));
    src.SetAttribute("SendSize", UintegerValue(kSegment));
    ApplicationContainer app = src.Install(nodes.Get(0));
    app.Start(Seconds(0.0));
    ApplicationContainer sink2;
    if (cross)
    {
        const uint16_t port2 = port + 1;
        PacketSinkHelper sink2Helper("ns3::TcpSocketFactory",
                                     InetSocketAddress(Ipv4Address::GetAny(), port2));
        sink2 = sink2Helper.Install(nodes.Get(paths[1].back()));
        sink2.Start(Seconds(0.0));
        BulkSendHelper src2("ns3::TcpSocketFactory",
                            InetSocketAddress(ifs.GetAddress(paths[1].back()), port2));
        src2.SetAttribute("MaxBytes", UintegerValue(0));
        src2.SetAttribute("SendSize", UintegerValue(kSegment));
        src2.Install(nodes.Get(paths[1].front())).Start(Seconds(0.0));
    }
    Simulator::Schedule(MicroSeconds(1), &ConnectSenderTraces);
    if (g_trace)
    {
        Simulator::Schedule(MicroSeconds(1), &ConnectTimelineTraces, 1, 0);
        if (cross)
        {
            Simulator::Schedule(MicroSeconds(1), &ConnectTimelineTraces, 2, paths[1].front());
        }
        Config::Connect("/NodeList/*/DeviceList/*/$ns3::WifiNetDevice/Mac/DroppedMpdu",
                        MakeCallback(&TraceDrop));
        Config::Connect("/NodeList/*/$ns3::Ipv4L3Protocol/Rx",
                        MakeBoundCallback(&TraceIp, std::string("rx")));
        Config::Connect("/NodeList/*/$ns3::Ipv4L3Protocol/Tx",
                        MakeBoundCallback(&TraceIp, std::string("tx")));
    }

    Config::ConnectWithoutContext("/NodeList/*/DeviceList/*/$ns3::WifiNetDevice/Phy/PhyTxBegin",
                                  MakeCallback(&PhyTxBegin));
    Config::ConnectWithoutContext("/NodeList/*/DeviceList/*/$ns3::WifiNetDevice/Mac/MacTxDrop",
                                  MakeCallback(&MacTxDrop));
    Config::ConnectWithoutContext("/NodeList/*/DeviceList/*/$ns3::WifiNetDevice/Mac/DroppedMpdu",
                                  MakeCallback(&DroppedMpdu));
    if (check)
    {
        Config::Connect("/NodeList/*/DeviceList/*/$ns3::WifiNetDevice/Phy/PhyRxBegin",
                        MakeCallback(&RxBegin));
        Config::Connect("/NodeList/*/DeviceList/*/$ns3::WifiNetDevice/Phy/State/RxOk",
                        MakeCallback(&RxOk));
        Config::Connect("/NodeList/*/DeviceList/*/$ns3::WifiNetDevice/Phy/State/RxError",
                        MakeCallback(&RxError));
        Config::Connect("/NodeList/*/DeviceList/*/$ns3::WifiNetDevice/Phy/PhyRxDrop",
                        MakeCallback(&RxDrop));
        Config::ConnectWithoutContext(
            "/NodeList/*/DeviceList/*/$ns3::WifiNetDevice/Phy/PhyTxPsduBegin",
            MakeCallback(&TxPsduBegin));
    }

    Simulator::Stop(Seconds(duration));
    auto t0 = std::chrono::steady_clock::now();
    Simulator::Run();
    auto t1 = std::chrono::steady_clock::now();
    const double wall = std::chrono::duration<double>(t1 - t0).count();

    const uint64_t bytes = DynamicCast<PacketSink>(sink.Get(0))->GetTotalRx();
    const uint64_t frames = g_data + g_rts + g_cts + g_ack + g_other;
    uint64_t mpduDrops = 0;
    for (const auto& [reason, count] : g_mpduDrops)
    {
        mpduDrops += count;
    }
    if (check)
    {
        for (const auto& [key, count] : g_rxOutcomes)
        {
            std::cout << "rx " << key << " " << count << std::endl;
        }
        for (const auto& [key, count] : g_txModes)
        {
            std::cout << "tx " << key << " " << count << std::endl;
        }
        for (const auto& [reason, count] : g_mpduDrops)
        {
            std::cout << "mpdu_drop reason=" << reason << " " << count << std::endl;
        }
        std::cout << "ns2rx capture_failures=" << g_captureFailures
                  << " unmatched_locks=" << g_unmatchedLocks << std::endl;
        Ptr<WifiPhy> p0 = DynamicCast<WifiNetDevice>(devs.Get(0))->GetPhy();
        std::cout << "phy width_mhz=" << p0->GetChannelWidth()
                  << " rx_sensitivity_dbm=" << p0->GetRxSensitivity()
                  << " cca_ed_dbm=" << p0->GetCcaEdThreshold() << " tx_dbm=" << txDbm
                  << " rx_thresh_dbm=" << rxDbm << std::endl;
    }
    std::cerr << "wall_s=" << wall << " goodput_kbps=" << bytes * 8.0 / duration / 1e3
              << " delivered_bytes=" << bytes << " mac_data_tx=" << g_data
              << " mac_frames_tx=" << frames << " mac_rts_tx=" << g_rts << " mac_cts_tx=" << g_cts
              << " mac_ack_tx=" << g_ack << " queue_drops=" << g_queueDrops
              << " mpdu_drops=" << mpduDrops << " tcp_recoveries=" << g_recoveries
              << " tcp_timeouts=" << g_timeouts
              << " tcp_segments=" << g_segments << " tcp_retransmissions=" << g_retransmissions;
    if (cross)
    {
        const uint64_t bytes2 = DynamicCast<PacketSink>(sink2.Get(0))->GetTotalRx();
        std::cerr << " goodput2_kbps=" << bytes2 * 8.0 / duration / 1e3;
    }
    std::cerr << " peak_rss_kb=" << PeakRssKb() << std::endl;
    Simulator::Destroy();
    return 0;
}
