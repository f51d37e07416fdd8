// Saturation throughput in ns-3.44 (Bianchi's setup): --stations stations 10 m around a sink,
// each with a UDP source that keeps its MAC queue full, all in range of each other, 802.11b
// DSSS with ns-3's defaults for everything else (YansWifiPhy, log-distance loss, 7 dB noise
// figure: airtcp's `ns3` preset), data at --dataMode, RTS/CTS at 1 Mbit/s for every frame
// (--rts) or never. Prints on stderr one line
//
//   throughput_mbps=... delivered_packets=... mac_data_tx=...
//
// with the sink's received UDP bytes per second over the run (from --warmup on).
// benches/ns3/validate_wifi.py --saturation runs it beside airtcp.

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/mobility-module.h"
#include "ns3/network-module.h"
#include "ns3/traffic-control-module.h"
#include "ns3/wifi-module.h"

#include <cmath>
#include <iostream>
#include <string>

using namespace ns3;

static uint64_t g_dataTx = 0;
static uint64_t g_rxBytes = 0;
static uint64_t g_rxPackets = 0;
static bool g_counting = false;

static void
PhyTxBegin(Ptr<const Packet> p, double)
{
    WifiMacHeader h;
    p->PeekHeader(h);
    if (h.IsData())
    {
        g_dataTx++;
    }
}

static void
SinkRx(Ptr<const Packet> p, const Address&)
{
    if (g_counting)
    {
        g_rxBytes += p->GetSize();
        g_rxPackets++;
    }
}

static void
StartCounting()
{
    g_counting = true;
}

int
main(int argc, char* argv[])
{
    uint32_t run = 1;
    uint32_t stations = 5;
    double duration = 20.0;
    double warmup = 1.0;
    bool rts = false;
    uint32_t payload = 1000;
    std::string dataMode = "DsssRate2Mbps";
    CommandLine cmd;
    cmd.AddValue("run", "RngRun", run);
    cmd.AddValue("stations", "sending stations around the sink", stations);
    cmd.AddValue("duration", "simulated seconds", duration);
    cmd.AddValue("warmup", "seconds not counted at the start", warmup);
    cmd.AddValue("rts", "RTS/CTS before every data frame", rts);
    cmd.AddValue("payload", "UDP payload bytes", payload);
    cmd.AddValue("dataMode", "rate of data frames", dataMode);
    cmd.Parse(argc, argv);
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(run);

    NodeContainer nodes;
    nodes.Create(stations + 1); // node 0 is the sink
    MobilityHelper mobility;
    Ptr<ListPositionAllocator> pos = CreateObject<ListPositionAllocator>();
    pos->Add(Vector(0.0, 0.0, 0.0));
    for (uint32_t i = 0; i < stations; i++)
    {
        const double a = 2.0 * M_PI * i / stations;
        pos->Add(Vector(10.0 * std::cos(a), 10.0 * std::sin(a), 0.0));
    }
    mobility.SetPositionAllocator(pos);
    mobility.SetMobilityModel("ns3::ConstantPositionMobilityModel");
    mobility.Install(nodes);

    YansWifiChannelHelper channel = YansWifiChannelHelper::Default();
    YansWifiPhyHelper phy;
    phy.SetChannel(channel.Create());
    WifiHelper wifi;
    wifi.SetStandard(WIFI_STANDARD_80211b);
    wifi.SetRemoteStationManager("ns3::ConstantRateWifiManager",
                                 "DataMode",
                                 StringValue(dataMode),
                                 "ControlMode",
                                 StringValue("DsssRate1Mbps"),
                                 "RtsCtsThreshold",
                                 UintegerValue(rts ? 0 : 4692480));
    WifiMacHelper mac;
    mac.SetType("ns3::AdhocWifiMac");
    NetDeviceContainer devs = wifi.Install(phy, mac, nodes);

    InternetStackHelper stack;
    stack.Install(nodes);
    Ipv4AddressHelper addr;
    addr.SetBase("10.0.0.0", "255.255.255.0");
    Ipv4InterfaceContainer ifs = addr.Assign(devs);
    // Packets go straight to the MAC queue (no queue disc), ARP caches filled beforehand.
    TrafficControlHelper tch;
    tch.Uninstall(devs);
    NeighborCacheHelper neighbors;
    neighbors.PopulateNeighborCache();

    const uint16_t port = 9;
    PacketSinkHelper sinkHelper("ns3::UdpSocketFactory",
                                InetSocketAddress(Ipv4Address::GetAny(), port));
    ApplicationContainer sink = sinkHelper.Install(nodes.Get(0));
    sink.Start(Seconds(0.0));
    DynamicCast<PacketSink>(sink.Get(0))->TraceConnectWithoutContext("Rx", MakeCallback(&SinkRx));
    for (uint32_t i = 1; i <= stations; i++)
    {
        // Twice 11 Mbit/s: the MAC queue is never empty.
        OnOffHelper src("ns3::UdpSocketFactory", InetSocketAddress(ifs.GetAddress(0), port));
        src.SetConstantRate(DataRate("22Mbps"), payload);
        ApplicationContainer app = src.Install(nodes.Get(i));
        // Started 1 ms apart so that the first frames do not all collide by construction.
        app.Start(MilliSeconds(i));
    }
    Config::ConnectWithoutContext("/NodeList/*/DeviceList/*/$ns3::WifiNetDevice/Phy/PhyTxBegin",
                                  MakeCallback(&PhyTxBegin));
    Simulator::Schedule(Seconds(warmup), &StartCounting);
    Simulator::Stop(Seconds(duration));
    Simulator::Run();
    const double secs = duration - warmup;
    std::cerr << "throughput_mbps=" << g_rxBytes * 8.0 / secs / 1e6
              << " delivered_packets=" << g_rxPackets << " mac_data_tx=" << g_dataTx << std::endl;
    Simulator::Destroy();
    return 0;
}
