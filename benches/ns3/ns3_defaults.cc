// Prints the ns-3.44 attribute defaults airtcp's `ns3` 802.11 preset takes
// (crates/airtcp-core/src/scenario/wifi.rs, docs/mac.md), read from ns-3 itself: the initial
// values of the attributes, and the 802.11b timing of a device as WifiHelper installs it
// (YansWifiChannelHelper::Default, YansWifiPhyHelper, AdhocWifiMac).
//
//   g++ ... ns3_defaults.cc  (built by benches/ns3/validate_wifi.py --defaults)

#include "ns3/core-module.h"
#include "ns3/mobility-module.h"
#include "ns3/network-module.h"
#include "ns3/propagation-module.h"
#include "ns3/wifi-module.h"

#include <iostream>
#include <string>

using namespace ns3;

static void
Print(const std::string& type, const std::string& attr)
{
    TypeId tid = TypeId::LookupByName(type);
    TypeId::AttributeInformation info;
    if (!tid.LookupAttributeByName(attr, &info))
    {
        std::cout << type << "::" << attr << " (no such attribute)" << std::endl;
        return;
    }
    std::cout << type << "::" << attr << " = "
              << info.initialValue->SerializeToString(info.checker) << std::endl;
}

int
main(int argc, char* argv[])
{
    for (const char* a : {"TxPowerStart", "TxPowerEnd", "TxGain", "RxGain", "RxNoiseFigure",
                          "RxSensitivity", "CcaEdThreshold", "CcaSensitivity"})
    {
        Print("ns3::WifiPhy", a);
    }
    Print("ns3::ThresholdPreambleDetectionModel", "Threshold");
    Print("ns3::ThresholdPreambleDetectionModel", "MinimumRssi");
    Print("ns3::LogDistancePropagationLossModel", "Exponent");
    Print("ns3::LogDistancePropagationLossModel", "ReferenceDistance");
    Print("ns3::LogDistancePropagationLossModel", "ReferenceLoss");
    Print("ns3::WifiMac", "FrameRetryLimit");
    Print("ns3::WifiRemoteStationManager", "RtsCtsThreshold");
    Print("ns3::WifiMacQueue", "MaxSize");

    NodeContainer nodes;
    nodes.Create(1);
    MobilityHelper mobility;
    mobility.Install(nodes);
    YansWifiChannelHelper channel = YansWifiChannelHelper::Default();
    YansWifiPhyHelper phy;
    phy.SetChannel(channel.Create());
    WifiHelper wifi;
    wifi.SetStandard(WIFI_STANDARD_80211b);
    WifiMacHelper mac;
    mac.SetType("ns3::AdhocWifiMac");
    NetDeviceContainer devs = wifi.Install(phy, mac, nodes);
    Ptr<WifiNetDevice> dev = DynamicCast<WifiNetDevice>(devs.Get(0));
    Ptr<WifiPhy> p = dev->GetPhy();
    std::cout << "802.11b device: frequency_mhz = " << p->GetFrequency()
              << " slot_us = " << p->GetSlot().GetMicroSeconds()
              << " sifs_us = " << p->GetSifs().GetMicroSeconds()
              << " cw_min = " << dev->GetMac()->GetTxop()->GetMinCw()
              << " cw_max = " << dev->GetMac()->GetTxop()->GetMaxCw() << std::endl;
    Simulator::Destroy();
    return 0;
}
