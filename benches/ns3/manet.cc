// Ad hoc routing scenarios in ns-3.44 for the comparison with airtcp's routing and mobility
// (benches/ns3/validate_manet.py). The radio is the one of wifi_chain.cc with --ns2Rx=0 (airtcp's
// `ns3` 802.11b preset: 2 Mbit/s DSSS data, 1 Mbit/s RTS/CTS for every frame, two-ray ground
// at 914 MHz, decoded up to 250 m, sensed up to 550 m, 50-packet DropTail MAC queue).
//
//   manet --scenario=chain --hops=4 --routing=aodv|olsr|static [--run=1] [--duration=90]
//   manet --scenario=walk  --hops=4 --routing=aodv --movement=FILE [--duration=90] [--bin=5]
//   manet --scenario=cbr   --nodes=50 --routing=aodv --movement=FILE --flows=0:7:1.3,...
//                          [--duration=200] [--pktSize=512] [--pktRate=4]
//   chain and walk: [--timeline=FILE] writes one line per event (benches/ns3/manet_timeline.py)
//
// chain: hops + 1 nodes 200 m apart, one TCP NewReno bulk flow n0 -> n(hops) from --start
//   (30 s: OLSR needs HELLOs and TCs flooded to have a route on 8 hops, and ns-3's TCP gives
//   up on a connect refused for want of one); goodput over duration - start.
// walk: the chain with positions and movements read from an ns-2 movement file
//   (Ns2MobilityHelper), the same file airtcp reads; one bulk flow, goodput and the
//   delivery ratio of TCP data segments (received by the sink's IP / sent by n0's TCP)
//   per --bin seconds.
// cbr: --nodes nodes moving as the ns-2 file says, one UDP CBR flow of --pktSize-byte
//   packets at --pktRate packets/s per src:dst:start triple of --flows until the end.
//
// Routing control traffic is counted at every node's IP layer when sent (each hop's
// transmission of a RREQ/RREP/RERR/HELLO or OLSR packet counts once): UDP port 654 (AODV)
// or 698 (OLSR); a packet AODV hands to the loopback to hold it for a route is not sent and
// counts apart. Prints one JSON line on stdout; only Simulator::Run() is timed.

#include "ns3/aodv-module.h"
#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/mobility-module.h"
#include "ns3/network-module.h"
#include "ns3/olsr-module.h"
#include "ns3/propagation-module.h"
#include "ns3/traffic-control-module.h"
#include "ns3/wifi-module.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;

// ns-2.35 radio and MAC values (airtcp's `ns3` preset with the chain's radio).
static const double kSpacing = 200.0;
static const double kTxPowerW = 0.28183815;
static const double kRxThreshW = 3.652e-10;
static const double kCsThreshW = 1.559e-11;
static const double kFrequencyHz = 914e6;
static const double kAntennaHeight = 1.5;
static const uint32_t kFrameRetryLimit = 7;
static const char* kQueueLimit = "50p";
// airtcp's `ns2` TCP profile with 1460-byte segments (as wifi_chain.cc).
static const uint32_t kSegment = 1460;
static const uint32_t kInitialCwnd = 2;
static const uint32_t kRcvWindow = 20000;
static const double kMinRtoS = 0.2;
static const uint16_t kAodvPort = 654;
static const uint16_t kOlsrPort = 698;
static const uint16_t kAppPort = 5000;

static uint64_t g_ctrlPackets = 0;
static uint64_t g_cbrSent = 0; // packets the CBR sources handed to their sockets, routed or not
static uint64_t g_ctrlBytes = 0;
static uint32_t g_sinkNode = 0;
static uint32_t g_srcNode = 0;
static double g_bin = 5.0;
static std::vector<uint64_t> g_binSent;     // TCP data segments sent by the source, per bin
static std::vector<uint64_t> g_binRecv;     // TCP data segments reaching the sink's IP
static std::vector<uint64_t> g_binBytes;    // bytes the sink application received
static uint64_t g_segments = 0;
static uint64_t g_retransmissions = 0;
static SequenceNumber32 g_highestSent(0);
static std::map<std::string, uint64_t> g_ctrlKinds; // AODV control packets sent, by type
// --timeline=FILE: one line per event of the TCP flow and of AODV (chain and walk), for a
// break-by-break comparison with airtcp (benches/ns3/manet_timeline.py reads it).
static std::ofstream g_timeline;

static uint32_t
NodeOf(Ptr<Ipv4> ipv4)
{
    return ipv4->GetObject<Node>()->GetId();
}

// "<t> <node> <event> seq ack payload" for a TCP packet (seq and ack relative to the flow's
// first byte as the stream counts it: ns-3 starts both at 0 after the SYN).
static void
TimelineTcp(const char* event, uint32_t node, Ptr<const Packet> tcpPacket)
{
    TcpHeader tcp;
    tcpPacket->PeekHeader(tcp);
    const uint32_t payload = tcpPacket->GetSize() - tcp.GetSerializedSize();
    g_timeline << Simulator::Now().GetSeconds() << " " << node << " " << event << " "
               << tcp.GetSequenceNumber().GetValue() << " "
               << tcp.GetAckNumber().GetValue() << " " << payload << "\n";
}

static size_t
Bin()
{
    return static_cast<size_t>(Simulator::Now().GetSeconds() / g_bin);
}

static void
Bump(std::vector<uint64_t>& v, uint64_t by)
{
    size_t b = Bin();
    if (b >= v.size())
    {
        v.resize(b + 1, 0);
    }
    v[b] += by;
}

// AODV's message type (RFC 3561 section 5) from a payload that starts with the UDP header; a
// HELLO is a RREP whose destination (bytes 4-7) is its originator (bytes 12-15). `key` gets
// the RREP's originator, destination and sequence number (bytes 12-15, 4-7, 8-11) and `hops`
// its hop count (byte 3).
static std::string
AodvKind(Ptr<Packet> c, std::array<uint8_t, 12>* key, uint8_t* hops, uint8_t* flags)
{
    UdpHeader udp;
    c->RemoveHeader(udp);
    uint8_t b[16] = {0};
    c->CopyData(b, std::min<uint32_t>(16, c->GetSize()));
    static const char* kinds[] = {"?", "rreq", "rrep", "rerr", "rrep_ack"};
    std::string kind = b[0] >= 1 && b[0] <= 4 ? kinds[b[0]] : "?";
    if (b[0] == 2 && std::equal(b + 4, b + 8, b + 12))
    {
        kind = "hello";
    }
    std::copy(b + 4, b + 16, key->begin());
    *hops = b[3];
    *flags = b[1];
    return kind;
}

// RREPs each node received (originator, destination, number, hop count + 1: the copy it
// would pass on), to tell a relayed RREP from one the node made itself.
static std::map<uint32_t, std::multiset<std::pair<std::array<uint8_t, 12>, uint8_t>>>
    g_rrepsHeard;

// Ipv4L3Protocol "Tx": the packet with its IP header, once per hop transmission. A packet
// that AODV routes to the loopback interface, to hold it while it looks for a route
// (RouteOutput without a valid route; the packet is sent again when the route comes), is
// not a transmission and is counted apart (`lo_` kinds).
static void
IpTx(Ptr<const Packet> p, Ptr<Ipv4> ipv4, uint32_t iface)
{
    Ptr<Packet> c = p->Copy();
    Ipv4Header ip;
    c->RemoveHeader(ip);
    if (g_timeline.is_open() && ip.GetProtocol() == TcpL4Protocol::PROT_NUMBER)
    {
        TimelineTcp("tx", NodeOf(ipv4), c);
    }
    if (ip.GetProtocol() != UdpL4Protocol::PROT_NUMBER)
    {
        return;
    }
    UdpHeader udp;
    c->PeekHeader(udp);
    uint16_t port = udp.GetDestinationPort();
    const bool loopback = DynamicCast<LoopbackNetDevice>(ipv4->GetNetDevice(iface)) != nullptr;
    if ((port == kAodvPort || port == kOlsrPort) && !loopback)
    {
        g_ctrlPackets++;
        g_ctrlBytes += p->GetSize();
    }
    if (port == kAodvPort)
    {
        std::array<uint8_t, 12> key;
        uint8_t hops = 0;
        uint8_t flags = 0;
        std::string kind = AodvKind(c, &key, &hops, &flags);
        if (loopback)
        {
            g_ctrlKinds["lo_" + kind]++;
            return;
        }
        g_ctrlKinds[kind]++;
        if (g_timeline.is_open())
        {
            g_timeline << Simulator::Now().GetSeconds() << " " << NodeOf(ipv4) << " ctrl "
                       << kind << " " << ip.GetDestination() << "\n";
        }
        if (kind == "rrep")
        {
            // Where the RREP comes from: relayed (this node received it), the destination's
            // own reply (hop count 0 from the destination), or made by this node for another
            // destination (an intermediate node's reply or its gratuitous RREP).
            auto& heard = g_rrepsHeard[ipv4->GetObject<Node>()->GetId()];
            auto it = heard.find({key, hops});
            Ipv4Address dst = Ipv4Address::Deserialize(key.data());
            if (it != heard.end())
            {
                heard.erase(it);
                g_ctrlKinds["rrep.relayed"]++;
            }
            else if (hops == 0 && ipv4->GetInterfaceForAddress(dst) >= 0)
            {
                g_ctrlKinds["rrep.by_destination"]++;
            }
            else
            {
                g_ctrlKinds["rrep.by_other"]++;
            }
            if (flags & 0x40)
            {
                g_ctrlKinds["rrep.ack_required"]++;
            }
        }
    }
}

// Ipv4L3Protocol "LocalDeliver" at every node: the RREPs it received.
static void
AodvDeliver(const Ipv4Header& ip, Ptr<const Packet> p, uint32_t)
{
    if (ip.GetProtocol() != UdpL4Protocol::PROT_NUMBER)
    {
        return;
    }
    UdpHeader udp;
    p->PeekHeader(udp);
    if (udp.GetDestinationPort() != kAodvPort)
    {
        return;
    }
    std::array<uint8_t, 12> key;
    uint8_t hops = 0;
    uint8_t flags = 0;
    if (AodvKind(p->Copy(), &key, &hops, &flags) != "rrep")
    {
        return;
    }
    // Which node received it: the one owning the destination address.
    for (uint32_t i = 0; i < NodeList::GetNNodes(); i++)
    {
        Ptr<Ipv4> ipv4 = NodeList::GetNode(i)->GetObject<Ipv4>();
        if (ipv4 && ipv4->GetInterfaceForAddress(ip.GetDestination()) >= 0)
        {
            g_rrepsHeard[i].insert({key, static_cast<uint8_t>(hops + 1)});
            return;
        }
    }
}

// The sink's Ipv4L3Protocol "LocalDeliver": TCP data segments that reached it.
static void
SinkDeliver(const Ipv4Header& ip, Ptr<const Packet> p, uint32_t)
{
    if (ip.GetProtocol() != TcpL4Protocol::PROT_NUMBER)
    {
        return;
    }
    TcpHeader tcp;
    p->PeekHeader(tcp);
    if (p->GetSize() > tcp.GetSerializedSize())
    {
        Bump(g_binRecv, 1);
    }
}

static void
TcpTx(Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase>)
{
    if (p->GetSize() == 0)
    {
        return;
    }
    g_segments++;
    Bump(g_binSent, 1);
    if (h.GetSequenceNumber() < g_highestSent)
    {
        g_retransmissions++;
    }
    else
    {
        g_highestSent = h.GetSequenceNumber() + p->GetSize();
    }
}

static void
SinkRx(Ptr<const Packet> p, const Address&)
{
    Bump(g_binBytes, p->GetSize());
}

static void
CbrTx(Ptr<const Packet>)
{
    g_cbrSent++;
}

// Data packets lost, by where: IP's drop reasons (no route, TTL, ...; AODV hands a packet
// whose discovery failed to IP's error path) and the MAC's (retry limit, full queue). Control
// packets are left out: the comparison is about the flows' losses.
static std::map<std::string, uint64_t> g_dataDrops;

static bool
IsControl(const Ipv4Header& ip, Ptr<const Packet> payload)
{
    if (ip.GetProtocol() != UdpL4Protocol::PROT_NUMBER)
    {
        return false;
    }
    UdpHeader udp;
    payload->PeekHeader(udp);
    return udp.GetDestinationPort() == kAodvPort || udp.GetDestinationPort() == kOlsrPort;
}

static void
IpDrop(const Ipv4Header& ip,
       Ptr<const Packet> p,
       Ipv4L3Protocol::DropReason reason,
       Ptr<Ipv4> ipv4,
       uint32_t)
{
    if (!ip.GetDestination().IsBroadcast() && !IsControl(ip, p))
    {
        g_dataDrops["ip_" + std::to_string(static_cast<int>(reason))]++;
        if (g_timeline.is_open() && ip.GetProtocol() == TcpL4Protocol::PROT_NUMBER)
        {
            TimelineTcp(("drop_ip_" + std::to_string(static_cast<int>(reason))).c_str(),
                        NodeOf(ipv4),
                        p);
        }
    }
}

static void
MacDrop(WifiMacDropReason reason, Ptr<const WifiMpdu> mpdu)
{
    const WifiMacHeader& h = mpdu->GetHeader();
    if (!h.IsData() || h.GetAddr1().IsGroup())
    {
        return;
    }
    Ptr<Packet> c = mpdu->GetPacket()->Copy();
    LlcSnapHeader llc;
    c->RemoveHeader(llc);
    Ipv4Header ip;
    c->RemoveHeader(ip);
    if (!IsControl(ip, c))
    {
        g_dataDrops["mac_" + std::to_string(static_cast<int>(reason))]++;
    }
}

// --phyTx=FILE: every frame a PHY starts to send, "ns node kind psdu_bytes" a line (kind rts,
// cts, ack, bcast or data), and every broadcast it receives ("rx") or drops ("rxdrop" and
// the reason's number), to compare channel access and reception with airtcp's pcaps.
static std::ofstream g_phyTx;

static void
PhyRxBcast(std::string context, Ptr<const Packet> p, const char* ev, int reason)
{
    WifiMacHeader h;
    if (p->PeekHeader(h) == 0 || !h.IsData() || !h.GetAddr1().IsGroup())
    {
        return;
    }
    const uint32_t node = std::stoul(context.substr(10, context.find('/', 10) - 10));
    g_phyTx << Simulator::Now().GetNanoSeconds() << " " << node << " " << ev << " "
            << p->GetSize() << " " << reason << "\n";
}

static void
PhyRxEndTrace(std::string context, Ptr<const Packet> p)
{
    PhyRxBcast(context, p, "rx", -1);
}

static void
PhyRxDropTrace(std::string context, Ptr<const Packet> p, WifiPhyRxfailureReason reason)
{
    PhyRxBcast(context, p, "rxdrop", static_cast<int>(reason));
}

static void
PhyTxStart(std::string context, WifiConstPsduMap psdus, WifiTxVector txVector, double watts)
{
    const uint32_t node = std::stoul(context.substr(10, context.find('/', 10) - 10));
    for (const auto& [id, psdu] : psdus)
    {
        const WifiMacHeader& h = psdu->GetHeader(0);
        const char* kind = h.IsRts()   ? "rts"
                           : h.IsCts() ? "cts"
                           : h.IsAck() ? "ack"
                           : h.GetAddr1().IsGroup() ? "bcast"
                                                    : "data";
        g_phyTx << Simulator::Now().GetNanoSeconds() << " " << node << " " << kind << " "
                << psdu->GetSize() << "\n";
    }
}

// The MAC's data-frame drops with the dropping node (from the trace context's path).
static void
MacDropTimeline(std::string context, WifiMacDropReason reason, Ptr<const WifiMpdu> mpdu)
{
    const WifiMacHeader& h = mpdu->GetHeader();
    if (!h.IsData() || h.GetAddr1().IsGroup())
    {
        return;
    }
    Ptr<Packet> c = mpdu->GetPacket()->Copy();
    LlcSnapHeader llc;
    c->RemoveHeader(llc);
    Ipv4Header ip;
    c->RemoveHeader(ip);
    const uint32_t node = std::stoul(context.substr(10, context.find('/', 10) - 10));
    const std::string ev = "drop_mac_" + std::to_string(static_cast<int>(reason));
    if (ip.GetProtocol() == TcpL4Protocol::PROT_NUMBER)
    {
        TimelineTcp(ev.c_str(), node, c);
    }
    else if (IsControl(ip, c))
    {
        g_timeline << Simulator::Now().GetSeconds() << " " << node << " " << ev << "_ctrl\n";
    }
}

// The source's ACK arrivals and the sink's data arrivals at their IP layer.
static void
LocalDeliverTimeline(std::string context, const Ipv4Header& ip, Ptr<const Packet> p, uint32_t)
{
    if (ip.GetProtocol() == TcpL4Protocol::PROT_NUMBER)
    {
        TimelineTcp("rx", std::stoul(context.substr(10, context.find('/', 10) - 10)), p);
    }
}

static void
RtoTimeline(Time, Time rto)
{
    g_timeline << Simulator::Now().GetSeconds() << " " << g_srcNode << " rto " << rto.GetSeconds()
               << "\n";
}

static void
CongStateTimeline(TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t state)
{
    g_timeline << Simulator::Now().GetSeconds() << " " << g_srcNode << " state "
               << TcpSocketState::TcpCongStateName[state] << "\n";
}

static void
ConnectSenderTraces()
{
    std::ostringstream socket;
    socket << "/NodeList/" << g_srcNode << "/$ns3::TcpL4Protocol/SocketList/0/Tx";
    if (!Config::ConnectWithoutContextFailSafe(socket.str(), MakeCallback(&TcpTx)))
    {
        NS_FATAL_ERROR("no TCP socket on the source to trace");
    }
    if (g_timeline.is_open())
    {
        std::ostringstream base;
        base << "/NodeList/" << g_srcNode << "/$ns3::TcpL4Protocol/SocketList/0/";
        Config::ConnectWithoutContext(base.str() + "RTO", MakeCallback(&RtoTimeline));
        Config::ConnectWithoutContext(base.str() + "CongState", MakeCallback(&CongStateTimeline));
    }
}

static std::string
JsonList(const std::vector<double>& v)
{
    std::ostringstream o;
    o << "[";
    for (size_t i = 0; i < v.size(); i++)
    {
        o << (i ? "," : "") << v[i];
    }
    o << "]";
    return o.str();
}

static NetDeviceContainer
InstallWifi(NodeContainer& nodes)
{
    Ptr<TwoRayGroundPropagationLossModel> loss = CreateObject<TwoRayGroundPropagationLossModel>();
    loss->SetAttribute("Frequency", DoubleValue(kFrequencyHz));
    loss->SetAttribute("SystemLoss", DoubleValue(1.0));
    loss->SetAttribute("HeightAboveZ", DoubleValue(kAntennaHeight));
    Ptr<YansWifiChannel> channel = CreateObject<YansWifiChannel>();
    channel->SetPropagationLossModel(loss);
    channel->SetPropagationDelayModel(CreateObject<ConstantSpeedPropagationDelayModel>());

    const double txDbm = 10.0 * std::log10(kTxPowerW * 1e3);
    const double rxDbm = 10.0 * std::log10(kRxThreshW * 1e3);
    const double csDbm = 10.0 * std::log10(kCsThreshW * 1e3);
    YansWifiPhyHelper phy;
    phy.SetChannel(channel);
    phy.Set("TxPowerStart", DoubleValue(txDbm));
    phy.Set("TxPowerEnd", DoubleValue(txDbm));
    phy.Set("TxPowerLevels", UintegerValue(1));
    phy.Set("TxGain", DoubleValue(0.0));
    phy.Set("RxGain", DoubleValue(0.0));
    // Sensed (CCA busy, interference) from CSThresh_, decoded from RXThresh_ with ns-3's own
    // SINR model: wifi_chain.cc --ns2Rx=0.
    phy.Set("CcaEdThreshold", DoubleValue(csDbm));
    phy.Set("CcaSensitivity", DoubleValue(csDbm));
    phy.SetPreambleDetectionModel("ns3::ThresholdPreambleDetectionModel",
                                  "MinimumRssi",
                                  DoubleValue(rxDbm),
                                  "Threshold",
                                  DoubleValue(4.0));
    WifiHelper wifi;
    wifi.SetStandard(WIFI_STANDARD_80211b);
    wifi.SetRemoteStationManager("ns3::ConstantRateWifiManager",
                                 "DataMode",
                                 StringValue("DsssRate2Mbps"),
                                 "ControlMode",
                                 StringValue("DsssRate1Mbps"),
                                 "RtsCtsThreshold",
                                 UintegerValue(0));
    WifiMacHelper mac;
    mac.SetType("ns3::AdhocWifiMac", "FrameRetryLimit", UintegerValue(kFrameRetryLimit));
    NetDeviceContainer devs = wifi.Install(phy, mac, nodes);
    for (uint32_t i = 0; i < devs.GetN(); i++)
    {
        Ptr<WifiPhy> p = DynamicCast<WifiNetDevice>(devs.Get(i))->GetPhy();
        // YansWifiChannel drops below RxSensitivity (+0.41 dB for 22 MHz) before the PHY:
        // set it to CSThresh_ so that sensed-only signals still reach it.
        double width = p->GetChannelWidth();
        p->SetAttribute("RxSensitivity", DoubleValue(csDbm - 10.0 * std::log10(width / 20.0)));
    }
    return devs;
}

int
main(int argc, char* argv[])
{
    uint32_t run = 1;
    std::string scenario = "chain";
    std::string routing = "aodv";
    std::string movement;
    std::string flows;
    uint32_t hops = 4;
    uint32_t nNodes = 50;
    double duration = -1.0;
    double start = 30.0;
    uint32_t pktSize = 512;
    double pktRate = 4.0;
    bool l2Feedback = true;
    std::string timeline;
    CommandLine cmd;
    cmd.AddValue("run", "RngRun (the seed's run number)", run);
    cmd.AddValue("seed", "same as --run", run);
    cmd.AddValue("scenario", "chain, walk or cbr", scenario);
    cmd.AddValue("routing", "aodv, olsr or static (chain only)", routing);
    cmd.AddValue("movement", "ns-2 movement file (walk, cbr)", movement);
    cmd.AddValue("flows", "cbr: comma-separated src:dst:start", flows);
    cmd.AddValue("hops", "chain/walk: hops (nodes = hops + 1)", hops);
    cmd.AddValue("nodes", "cbr: nodes", nNodes);
    cmd.AddValue("duration", "simulated seconds (chain 90, walk 90, cbr 200)", duration);
    cmd.AddValue("start", "chain/walk: start of the bulk flow, s", start);
    cmd.AddValue("bin", "walk: bin width, s", g_bin);
    cmd.AddValue("pktSize", "cbr: UDP payload bytes", pktSize);
    cmd.AddValue("pktRate", "cbr: packets per second per flow", pktRate);
    cmd.AddValue("l2Feedback",
                 "ARP entries AODV accepts, so that MAC give-ups reach it (0: HELLO loss only)",
                 l2Feedback);
    cmd.AddValue("timeline",
                 "chain/walk: write the TCP flow's and AODV's events, one a line, to this file",
                 timeline);
    std::string phyTx;
    cmd.AddValue("phyTx", "write every frame a PHY starts to send, one a line, to this file", phyTx);
    cmd.Parse(argc, argv);
    if (duration <= 0)
    {
        duration = scenario == "cbr" ? 200.0 : 90.0;
    }
    const bool tcpScenario = scenario == "chain" || scenario == "walk";
    if (!tcpScenario && scenario != "cbr")
    {
        std::cerr << "error: --scenario must be chain, walk or cbr" << std::endl;
        return 2;
    }
    if (routing != "aodv" && routing != "olsr" && (routing != "static" || scenario != "chain"))
    {
        std::cerr << "error: --routing must be aodv, olsr (or static for the chain)" << std::endl;
        return 2;
    }
    if (scenario != "chain" && movement.empty())
    {
        std::cerr << "error: --movement FILE is needed for " << scenario << std::endl;
        return 2;
    }

    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(run);

    Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(TcpNewReno::GetTypeId()));
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                       TypeIdValue(TcpClassicRecovery::GetTypeId()));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(kSegment));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(kInitialCwnd));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(1));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(kRcvWindow));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(1 << 20));
    Config::SetDefault("ns3::TcpSocket::DataRetries", UintegerValue(100000));
    Config::SetDefault("ns3::TcpSocket::ConnCount", UintegerValue(100000));
    Config::SetDefault("ns3::TcpSocket::ConnTimeout", TimeValue(Seconds(3)));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(Seconds(kMinRtoS)));
    Config::SetDefault("ns3::TcpSocketBase::ClockGranularity", TimeValue(MilliSeconds(1)));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::WindowScaling", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::LimitedTransmit", BooleanValue(true));
    Config::SetDefault("ns3::WifiMacQueue::MaxSize", QueueSizeValue(QueueSize(kQueueLimit)));
    Config::SetDefault("ns3::WifiMacQueue::MaxDelay", TimeValue(Seconds(1e6)));

    const uint32_t n = tcpScenario ? hops + 1 : nNodes;
    NodeContainer nodes;
    nodes.Create(n);
    if (movement.empty())
    {
        MobilityHelper mobility;
        Ptr<ListPositionAllocator> pos = CreateObject<ListPositionAllocator>();
        for (uint32_t i = 0; i < n; i++)
        {
            pos->Add(Vector(kSpacing * i, 0.0, 0.0));
        }
        mobility.SetPositionAllocator(pos);
        mobility.SetMobilityModel("ns3::ConstantPositionMobilityModel");
        mobility.Install(nodes);
    }
    else
    {
        Ns2MobilityHelper ns2(movement);
        ns2.Install(nodes.Begin(), nodes.End());
    }
    NetDeviceContainer devs = InstallWifi(nodes);

    InternetStackHelper stack;
    Ipv4StaticRoutingHelper staticRouting;
    AodvHelper aodv;
    OlsrHelper olsr;
    if (routing == "aodv")
    {
        stack.SetRoutingHelper(aodv);
    }
    else if (routing == "olsr")
    {
        stack.SetRoutingHelper(olsr);
    }
    else
    {
        stack.SetRoutingHelper(staticRouting);
    }
    stack.Install(nodes);
    Ipv4AddressHelper addr;
    addr.SetBase("10.0.0.0", "255.255.0.0");
    Ipv4InterfaceContainer ifs = addr.Assign(devs);
    // No queue disc: IP hands packets straight to the MAC's 50-packet DropTail queue.
    TrafficControlHelper tch;
    tch.Uninstall(devs);
    if (routing == "static")
    {
        for (uint32_t i = 0; i < n; i++)
        {
            Ptr<Ipv4StaticRouting> r =
                staticRouting.GetStaticRouting(nodes.Get(i)->GetObject<Ipv4>());
            for (uint32_t j = 0; j < n; j++)
            {
                if (j + 1 < i || j > i + 1)
                {
                    uint32_t next = j > i ? i + 1 : i - 1;
                    r->AddHostRouteTo(ifs.GetAddress(j), ifs.GetAddress(next), 1);
                }
            }
        }
    }
    // ARP resolved beforehand on every side (airtcp has no ARP). The helper's entries are
    // STATIC_AUTOGENERATED, which AODV's neighbour table does not accept when it looks up a
    // neighbour's MAC address (alive or permanent entries only): without that address a MAC
    // give-up (WifiMac DroppedMpdu) never matches a neighbour and AODV detects broken links by
    // HELLO loss alone. Marked PERMANENT, they give AODV the link-layer feedback it has in a
    // script with ARP running, without ARP's frames.
    NeighborCacheHelper neighbors;
    neighbors.PopulateNeighborCache();
    if (l2Feedback)
    {
        for (uint32_t i = 0; i < n; i++)
        {
            Ptr<Ipv4L3Protocol> l3 = nodes.Get(i)->GetObject<Ipv4L3Protocol>();
            Ptr<ArpCache> cache = l3->GetInterface(1)->GetArpCache();
            for (uint32_t j = 0; j < n; j++)
            {
                ArpCache::Entry* e = j == i ? nullptr : cache->Lookup(ifs.GetAddress(j));
                if (e == nullptr)
                {
                    continue;
                }
                e->MarkPermanent();
            }
        }
    }
    Config::ConnectWithoutContext("/NodeList/*/$ns3::Ipv4L3Protocol/Tx", MakeCallback(&IpTx));
    if (routing == "aodv")
    {
        Config::ConnectWithoutContext("/NodeList/*/$ns3::Ipv4L3Protocol/LocalDeliver",
                                      MakeCallback(&AodvDeliver));
    }
    Config::ConnectWithoutContext("/NodeList/*/$ns3::Ipv4L3Protocol/Drop", MakeCallback(&IpDrop));
    Config::ConnectWithoutContext("/NodeList/*/DeviceList/*/$ns3::WifiNetDevice/Mac/DroppedMpdu",
                                  MakeCallback(&MacDrop));
    if (!phyTx.empty())
    {
        g_phyTx.open(phyTx);
        if (!g_phyTx)
        {
            std::cerr << "error: --phyTx: cannot write " << phyTx << "\n";
            return 2;
        }
        Config::Connect("/NodeList/*/DeviceList/*/$ns3::WifiNetDevice/Phy/PhyTxPsduBegin",
                        MakeCallback(&PhyTxStart));
        Config::Connect("/NodeList/*/DeviceList/*/$ns3::WifiNetDevice/Phy/PhyRxEnd",
                        MakeCallback(&PhyRxEndTrace));
        Config::Connect("/NodeList/*/DeviceList/*/$ns3::WifiNetDevice/Phy/PhyRxDrop",
                        MakeCallback(&PhyRxDropTrace));
    }
    if (!timeline.empty() && tcpScenario)
    {
        g_timeline.open(timeline);
        if (!g_timeline)
        {
            std::cerr << "error: --timeline: cannot write " << timeline << "\n";
            return 2;
        }
        Config::Connect("/NodeList/*/DeviceList/*/$ns3::WifiNetDevice/Mac/DroppedMpdu",
                        MakeCallback(&MacDropTimeline));
        for (uint32_t i : {0u, n - 1})
        {
            std::ostringstream path;
            path << "/NodeList/" << i << "/$ns3::Ipv4L3Protocol/LocalDeliver";
            Config::Connect(path.str(), MakeCallback(&LocalDeliverTimeline));
        }
    }

    ApplicationContainer sinks;
    ApplicationContainer sources;
    std::vector<double> startTimes;
    if (tcpScenario)
    {
        g_srcNode = 0;
        g_sinkNode = n - 1;
        PacketSinkHelper sinkHelper("ns3::TcpSocketFactory",
                                    InetSocketAddress(Ipv4Address::GetAny(), kAppPort));
        sinks = sinkHelper.Install(nodes.Get(g_sinkNode));
        sinks.Start(Seconds(0.0));
        BulkSendHelper src("ns3::TcpSocketFactory",
                           InetSocketAddress(ifs.GetAddress(g_sinkNode), kAppPort));
        src.SetAttribute("MaxBytes", UintegerValue(0));
        src.SetAttribute("SendSize", UintegerValue(kSegment));
        sources = src.Install(nodes.Get(g_srcNode));
        sources.Start(Seconds(start));
        Simulator::Schedule(Seconds(start) + MicroSeconds(1), &ConnectSenderTraces);
        sinks.Get(0)->TraceConnectWithoutContext("Rx", MakeCallback(&SinkRx));
        nodes.Get(g_sinkNode)
            ->GetObject<Ipv4L3Protocol>()
            ->TraceConnectWithoutContext("LocalDeliver", MakeCallback(&SinkDeliver));
    }
    else
    {
        std::stringstream ss(flows);
        std::string item;
        uint16_t port = kAppPort;
        while (std::getline(ss, item, ','))
        {
            uint32_t s = 0;
            uint32_t d = 0;
            double t = 0.0;
            if (std::sscanf(item.c_str(), "%u:%u:%lf", &s, &d, &t) != 3 || s >= n || d >= n ||
                s == d)
            {
                std::cerr << "error: bad flow '" << item << "'" << std::endl;
                return 2;
            }
            UdpServerHelper server(port);
            ApplicationContainer sv = server.Install(nodes.Get(d));
            sv.Start(Seconds(0.0));
            sinks.Add(sv);
            UdpClientHelper client(ifs.GetAddress(d), port);
            client.SetAttribute("MaxPackets", UintegerValue(0));
            client.SetAttribute("Interval", TimeValue(Seconds(1.0 / pktRate)));
            client.SetAttribute("PacketSize", UintegerValue(pktSize));
            ApplicationContainer cl = client.Install(nodes.Get(s));
            cl.Get(0)->TraceConnectWithoutContext("Tx", MakeCallback(&CbrTx));
            cl.Start(Seconds(t));
            sources.Add(cl);
            startTimes.push_back(t);
            port++;
        }
        if (sources.GetN() == 0)
        {
            std::cerr << "error: --flows is empty" << std::endl;
            return 2;
        }
    }
    sources.Stop(Seconds(duration));

    Simulator::Stop(Seconds(duration));
    auto t0 = std::chrono::steady_clock::now();
    Simulator::Run();
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

    std::ostringstream out;
    out << "{\"scenario\":\"" << scenario << "\",\"routing\":\"" << routing
        << "\",\"run\":" << run << ",\"nodes\":" << n << ",\"duration_s\":" << duration
        << ",\"wall_s\":" << wall << ",\"ctrl_packets\":" << g_ctrlPackets
        << ",\"ctrl_bytes\":" << g_ctrlBytes << ",\"l2_feedback\":" << l2Feedback;
    if (tcpScenario)
    {
        const uint64_t bytes = DynamicCast<PacketSink>(sinks.Get(0))->GetTotalRx();
        uint64_t recv = 0;
        for (auto r : g_binRecv)
        {
            recv += r;
        }
        out << ",\"hops\":" << hops << ",\"delivered_bytes\":" << bytes
            << ",\"goodput_kbps\":" << bytes * 8.0 / (duration - start) / 1e3
            << ",\"tcp_segments\":" << g_segments << ",\"tcp_retransmissions\":"
            << g_retransmissions << ",\"segments_received\":" << recv
            << ",\"delivery_ratio\":" << (g_segments ? double(recv) / g_segments : 0.0);
        if (scenario == "walk")
        {
            const size_t bins = static_cast<size_t>(std::ceil(duration / g_bin));
            g_binSent.resize(bins, 0);
            g_binRecv.resize(bins, 0);
            g_binBytes.resize(bins, 0);
            std::vector<double> gp;
            std::vector<double> dr;
            for (size_t b = 0; b < bins; b++)
            {
                gp.push_back(g_binBytes[b] * 8.0 / g_bin / 1e3);
                dr.push_back(g_binSent[b] ? double(g_binRecv[b]) / g_binSent[b] : -1.0);
            }
            out << ",\"bin_s\":" << g_bin << ",\"bin_goodput_kbps\":" << JsonList(gp)
                << ",\"bin_delivery_ratio\":" << JsonList(dr);
        }
    }
    else
    {
        // Sent: every packet a source generated (the Tx trace fires before the socket's
        // send, so one refused for want of a route counts as sent and lost).
        const uint64_t sent = g_cbrSent;
        uint64_t received = 0;
        for (uint32_t i = 0; i < sources.GetN(); i++)
        {
            received += DynamicCast<UdpServer>(sinks.Get(i))->GetReceived();
        }
        out << ",\"flows\":" << sources.GetN() << ",\"packets_sent\":" << sent
            << ",\"packets_received\":" << received
            << ",\"pdr\":" << (sent ? double(received) / sent : 0.0);
    }
    // Drop reasons by number: Ipv4L3Protocol::DropReason (1 TTL expired, 2 no route, 3 bad
    // checksum, 4 interface down, 5 route error, 6 fragment timeout, 7 duplicate) and
    // WifiMacDropReason (0 failed enqueue, 1 expired lifetime, 2 retry limit, 3 old QoS packet).
    out << ",\"ctrl_kinds\":{";
    bool firstKind = true;
    for (const auto& [k, v] : g_ctrlKinds)
    {
        out << (firstKind ? "" : ",") << "\"" << k << "\":" << v;
        firstKind = false;
    }
    out << "}";
    out << ",\"data_drops\":{";
    bool first = true;
    for (const auto& [k, v] : g_dataDrops)
    {
        out << (first ? "" : ",") << "\"" << k << "\":" << v;
        first = false;
    }
    out << "}}";
    std::cout << out.str() << std::endl;
    Simulator::Destroy();
    return 0;
}
