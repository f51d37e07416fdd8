// The path of airtcp's TCP cross-check, in ns-3: S - R1 - R2 - D over 10 Mbit/s links of
// 10, 30 and 10 ms, 1000-packet DropTail device queues, and packet loss with probability PER
// on data arriving at D. `flows` bulk transfers S -> D with ns-3's TCP defaults (the airtcp
// `ns3` profile claims to equal them). Prints one JSON line: the summed goodput after start.
//
//   dumbbell --cc=ns3::TcpWestwoodPlus --per=0.05 --flows=1 --duration=60 --run=1
//
// --ecnK=K (DCTCP's path) replaces S's DropTail queue by a step-marking one: a RedQueueDisc
// with UseEcn, QW = 1 (the instantaneous queue) and MinTh = MaxTh, which marks CE (UseHardDrop
// off) every ECN-capable packet arriving to K or more waiting packets, as airtcp's
// `ecn_threshold` queue with mark_threshold = K. S's device queue shrinks to one packet so the
// queue builds in the queue disc; the one waiting in the device counts towards K.
//
// --cc takes any congestion control's TypeId (newreno and cubic are short for ns3::TcpNewReno
// and ns3::TcpCubic); other attributes are set the usual ns-3 way, e.g. --ns3::TcpSocketBase::Sack=0.
//
// For a side-by-side trace: --drops=3,17,40 drops exactly those data packets (0-based, counting
// the data segments that arrive at D, as airtcp's `list` error model with applies_to = "data");
// --hashed=0.05 --hashSeed=7 instead loses copy k of the segment at sequence number s when
// hash(seed, s, k) < 0.05, as airtcp's `hashed` model does, so both lose the same segments
// whatever their timing; --trace prints every change of the first flow's cwnd and ssthresh,
// --packets every segment it sends and ACK it receives (with the ACK's TSval/TSecr).

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <iostream>
#include <map>
#include <set>
#include <sstream>

using namespace ns3;

// Loss-recovery episodes of every socket: entries into fast recovery and into CA_LOSS
// ("timeouts"), and every retransmission timeout ("rtos": a repeated timeout of one episode
// leaves the state CA_LOSS, which the state trace does not report).
static uint64_t g_recoveries = 0;
static uint64_t g_lossEntries = 0;
static uint64_t g_rtos = 0;

static void
CongStateChange(TcpSocketState::TcpCongState_t from, TcpSocketState::TcpCongState_t to)
{
    if (to == TcpSocketState::CA_RECOVERY && from != TcpSocketState::CA_RECOVERY)
    {
        g_recoveries++;
    }
    if (to == TcpSocketState::CA_LOSS)
    {
        g_lossEntries++;
    }
}

// ReTxTimeout doubles the RTO (up to 60 s); an RTT sample sets it to SRTT + 4 RTTVAR, at least
// MinRto, which is never exactly twice the last value. A timeout that leaves the RTO at the
// 60 s cap (unreported) would follow a 60 s wait, longer than the runs here.
static void
RtoChange(Time from, Time to)
{
    if (to == Min(from + from, Seconds(60)))
    {
        g_rtos++;
    }
}

// Drops the data packets (those carrying payload) with the listed arrival indices.
class DataIndexErrorModel : public ErrorModel
{
  public:
    std::set<uint64_t> drops;

  private:
    uint64_t m_seen = 0;

    bool DoCorrupt(Ptr<Packet> p) override
    {
        // PPP + IPv4 + TCP with options is below 100 bytes; every data segment is above.
        if (p->GetSize() < 100)
        {
            return false;
        }
        return drops.count(m_seen++) > 0;
    }

    void DoReset() override
    {
    }
};

// airtcp's `hashed` error model (link/error.rs): SplitMix64 of (seed, sequence number, copy).
static uint64_t
SplitMix64(uint64_t x)
{
    uint64_t z = x + 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

class HashedErrorModel : public ErrorModel
{
  public:
    double per = 0.0;
    uint64_t seed = 0;

  private:
    std::map<uint64_t, uint32_t> m_copies;

    bool DoCorrupt(Ptr<Packet> p) override
    {
        Ptr<Packet> c = p->Copy();
        PppHeader ppp;
        Ipv4Header ip;
        TcpHeader tcp;
        c->RemoveHeader(ppp);
        c->RemoveHeader(ip);
        if (ip.GetProtocol() != 6)
        {
            return false;
        }
        c->RemoveHeader(tcp);
        if (c->GetSize() == 0)
        {
            return false;
        }
        // ns-3's SYN takes sequence number 0, so data starts at 1; airtcp's at 0.
        uint64_t seq = tcp.GetSequenceNumber().GetValue() - 1;
        uint32_t copy = m_copies[seq]++;
        uint64_t h = SplitMix64(SplitMix64(SplitMix64(seed) ^ seq) ^ copy);
        double u = static_cast<double>(h >> 11) / static_cast<double>(1ULL << 53);
        return u < per;
    }

    void DoReset() override
    {
    }
};

static uint32_t g_cwnd = 0;
static uint32_t g_ssthresh = 0;

static void
PrintWindow()
{
    std::cout << "W " << Simulator::Now().GetSeconds() << " " << g_cwnd << " " << g_ssthresh
              << std::endl;
}

static void
CwndChange(uint32_t, uint32_t now)
{
    g_cwnd = now;
    PrintWindow();
}

static void
SsthreshChange(uint32_t, uint32_t now)
{
    g_ssthresh = now;
    PrintWindow();
}

static void
BwChange(DataRate, DataRate now)
{
    std::cout << "BW " << Simulator::Now().GetSeconds() << " " << now.GetBitRate() << std::endl;
}

static void
SrttChange(Time, Time now)
{
    std::cout << "RTT " << Simulator::Now().GetSeconds() << " " << now.GetSeconds() << std::endl;
}

static bool g_trace = false;
static bool g_bw = false;
static bool g_packets = false;

// Sequence numbers printed from 0 at the first data byte, as airtcp counts them.
static void
TxSegment(Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase>)
{
    if (p->GetSize() > 0)
    {
        std::cout << "TX " << Simulator::Now().GetSeconds() << " "
                  << h.GetSequenceNumber().GetValue() - 1 << " " << g_cwnd << std::endl;
    }
}

static void
RxSegment(Ptr<const Packet>, const TcpHeader& h, Ptr<const TcpSocketBase>)
{
    std::cout << "RX " << Simulator::Now().GetSeconds() << " "
              << h.GetAckNumber().GetValue() - 1;
    if (h.HasOption(TcpOption::SACK))
    {
        Ptr<const TcpOptionSack> sack =
            DynamicCast<const TcpOptionSack>(h.GetOption(TcpOption::SACK));
        for (const auto& b : sack->GetSackList())
        {
            std::cout << " [" << b.first.GetValue() - 1 << "," << b.second.GetValue() - 1 << ")";
        }
    }
    // The receiver's TSval and the echoed TSecr (whole milliseconds), what TcpLp reads.
    if (h.HasOption(TcpOption::TS))
    {
        Ptr<const TcpOptionTS> ts = DynamicCast<const TcpOptionTS>(h.GetOption(TcpOption::TS));
        std::cout << " ts=" << ts->GetTimestamp() << "/" << ts->GetEcho();
    }
    std::cout << " " << g_cwnd << std::endl;
}

static void
LossState(TcpSocketState::TcpCongState_t from, TcpSocketState::TcpCongState_t to)
{
    std::cout << "STATE " << Simulator::Now().GetSeconds() << " " << from << " " << to
              << std::endl;
}

static void
ConnectTraces()
{
    Config::ConnectWithoutContext("/NodeList/0/$ns3::TcpL4Protocol/SocketList/*/CongState",
                                  MakeCallback(&CongStateChange));
    Config::ConnectWithoutContext("/NodeList/0/$ns3::TcpL4Protocol/SocketList/*/RTO",
                                  MakeCallback(&RtoChange));
    if (g_trace)
    {
        Config::ConnectWithoutContext(
            "/NodeList/0/$ns3::TcpL4Protocol/SocketList/0/CongestionWindow",
            MakeCallback(&CwndChange));
        Config::ConnectWithoutContext(
            "/NodeList/0/$ns3::TcpL4Protocol/SocketList/0/SlowStartThreshold",
            MakeCallback(&SsthreshChange));
    }
    if (g_bw)
    {
        Config::ConnectWithoutContext("/NodeList/0/$ns3::TcpL4Protocol/SocketList/0/RTT",
                                      MakeCallback(&SrttChange));
        Config::ConnectWithoutContext("/NodeList/0/$ns3::TcpL4Protocol/SocketList/0/"
                                      "CongestionOps/$ns3::TcpWestwoodPlus/EstimatedBW",
                                      MakeCallback(&BwChange));
    }
    if (g_packets)
    {
        Config::ConnectWithoutContext("/NodeList/0/$ns3::TcpL4Protocol/SocketList/0/Tx",
                                      MakeCallback(&TxSegment));
        Config::ConnectWithoutContext("/NodeList/0/$ns3::TcpL4Protocol/SocketList/0/Rx",
                                      MakeCallback(&RxSegment));
        Config::ConnectWithoutContext("/NodeList/0/$ns3::TcpL4Protocol/SocketList/0/CongState",
                                      MakeCallback(&LossState));
    }
}

int
main(int argc, char* argv[])
{
    std::string cc = "newreno";
    double per = 0.0;
    uint32_t flows = 1;
    double duration = 60.0;
    uint32_t run = 1;
    std::string drops;
    double hashed = -1.0;
    uint64_t hashSeed = 0;
    uint32_t ecnK = 0;
    CommandLine cmd;
    cmd.AddValue("cc", "congestion control TypeId (or newreno, cubic)", cc);
    cmd.AddValue("per", "packet error rate of data arriving at D", per);
    cmd.AddValue("flows", "bulk flows from S to D", flows);
    cmd.AddValue("duration", "simulated seconds", duration);
    cmd.AddValue("run", "RngRun", run);
    cmd.AddValue("drops", "comma-separated indices of data packets to drop (replaces --per)", drops);
    cmd.AddValue("hashed", "loss probability of airtcp's hashed model (replaces --per)", hashed);
    cmd.AddValue("hashSeed", "seed of the hashed model", hashSeed);
    cmd.AddValue("ecnK", "step ECN marking at S from K waiting packets (0: DropTail)", ecnK);
    cmd.AddValue("trace", "print the first flow's cwnd and ssthresh changes", g_trace);
    cmd.AddValue("bw", "print the first flow's SRTT (RTT) and TcpWestwoodPlus bandwidth estimate (BW)", g_bw);
    cmd.AddValue("packets",
                 "print the first flow's segments sent (TX), ACKs received (RX) and loss states",
                 g_packets);
    cmd.Parse(argc, argv);

    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(run);
    std::string tid = cc == "cubic" ? "ns3::TcpCubic" : cc == "newreno" ? "ns3::TcpNewReno" : cc;
    TypeId found;
    if (!TypeId::LookupByNameFailSafe(tid, &found))
    {
        std::cerr << "error: no TypeId " << tid << std::endl;
        return 2;
    }
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", StringValue(tid));

    NodeContainer nodes;
    nodes.Create(4); // S, R1, R2, D
    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", StringValue("10Mbps"));
    p2p.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", StringValue("1000p"));
    const char* delays[] = {"10ms", "30ms", "10ms"};
    NetDeviceContainer devs[3];
    for (int i = 0; i < 3; i++)
    {
        p2p.SetChannelAttribute("Delay", StringValue(delays[i]));
        devs[i] = p2p.Install(nodes.Get(i), nodes.Get(i + 1));
    }
    InternetStackHelper stack;
    stack.Install(nodes);
    if (ecnK > 0)
    {
        // Installed before the addresses, which would put the default FqCoDel there.
        DynamicCast<PointToPointNetDevice>(devs[0].Get(0))->GetQueue()->SetMaxSize(QueueSize("1p"));
        TrafficControlHelper red;
        red.SetRootQueueDisc("ns3::RedQueueDisc",
                             "UseEcn", BooleanValue(true),
                             "UseHardDrop", BooleanValue(false),
                             "Gentle", BooleanValue(false),
                             "QW", DoubleValue(1.0),
                             "MinTh", DoubleValue(ecnK - 1.0),
                             "MaxTh", DoubleValue(ecnK - 1.0),
                             "MaxSize", QueueSizeValue(QueueSize("999p")));
        red.Install(devs[0].Get(0));
    }
    Ipv4AddressHelper addr;
    Ipv4InterfaceContainer ifs[3];
    for (int i = 0; i < 3; i++)
    {
        std::string net = "10.1." + std::to_string(i + 1) + ".0";
        addr.SetBase(net.c_str(), "255.255.255.0");
        ifs[i] = addr.Assign(devs[i]);
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    // Loss on the last hop, data direction only (only data arrives at D).
    if (hashed >= 0.0)
    {
        Ptr<HashedErrorModel> em = CreateObject<HashedErrorModel>();
        em->per = hashed;
        em->seed = hashSeed;
        devs[2].Get(1)->SetAttribute("ReceiveErrorModel", PointerValue(em));
    }
    else if (drops.empty())
    {
        Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
        em->SetAttribute("ErrorUnit", StringValue("ERROR_UNIT_PACKET"));
        em->SetAttribute("ErrorRate", DoubleValue(per));
        devs[2].Get(1)->SetAttribute("ReceiveErrorModel", PointerValue(em));
    }
    else
    {
        Ptr<DataIndexErrorModel> em = CreateObject<DataIndexErrorModel>();
        std::stringstream ss(drops);
        std::string item;
        while (std::getline(ss, item, ','))
        {
            em->drops.insert(std::stoull(item));
        }
        devs[2].Get(1)->SetAttribute("ReceiveErrorModel", PointerValue(em));
    }

    ApplicationContainer sinks;
    for (uint32_t f = 0; f < flows; f++)
    {
        uint16_t port = 5000 + f;
        PacketSinkHelper sink("ns3::TcpSocketFactory",
                              InetSocketAddress(Ipv4Address::GetAny(), port));
        sinks.Add(sink.Install(nodes.Get(3)));
        BulkSendHelper src("ns3::TcpSocketFactory", InetSocketAddress(ifs[2].GetAddress(1), port));
        src.SetAttribute("MaxBytes", UintegerValue(0));
        ApplicationContainer a = src.Install(nodes.Get(0));
        a.Start(Seconds(0.001 * f));
    }
    sinks.Start(Seconds(0.0));
    // The senders' sockets exist once their applications have started.
    Simulator::Schedule(Seconds(0.001 * flows + 0.001), &ConnectTraces);
    Simulator::Stop(Seconds(duration));
    Simulator::Run();
    uint64_t bytes = 0;
    for (uint32_t f = 0; f < flows; f++)
    {
        bytes += DynamicCast<PacketSink>(sinks.Get(f))->GetTotalRx();
    }
    std::cout << "{\"goodput_bps\": " << bytes * 8.0 / duration
              << ", \"recoveries\": " << g_recoveries << ", \"timeouts\": " << g_lossEntries
              << ", \"rtos\": " << g_rtos << "}"
              << std::endl;
    Simulator::Destroy();
    return 0;
}
