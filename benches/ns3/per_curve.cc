// ns-3.44's frame error rate against SNR for one frame on one link, no interference: the
// probability that the PHY header and the payload of a frame of --bytes bytes (MAC header and
// FCS included) survive a constant SNR, as InterferenceHelper computes it from an error-rate
// model, for the 802.11b rates and two OFDM rates. Prints, per model and mode, the SNR (dB)
// at which the frame error rate is 0.1, 0.5 and 0.9 (bisection on the monotone curve):
//
//   per_curve [--bytes=1064]
//   model=Yans mode=DsssRate1Mbps per0.1=... per0.5=... per0.9=...
//
// Bits per field as ns-3 counts them (duration times the field's rate): the DSSS PLCP header
// is 48 bits at 1 Mbit/s (the 144 us preamble is detection only), the OFDM L-SIG 24 bits at
// 6 Mbit/s; an OFDM payload is whole symbols of 16 service + 8 bytes + 6 tail bits.
// benches/ns3/validate_wifi.py --per compares them with airtcp's curves measured on a link.

#include "ns3/core-module.h"
#include "ns3/wifi-module.h"

#include <cmath>
#include <iostream>
#include <string>
#include <vector>

using namespace ns3;

struct Mode
{
    WifiMode mode;
    WifiMode header;
    bool ofdm;
    double mbps;
};

static double
FrameSuccess(Ptr<ErrorRateModel> m, const Mode& md, uint32_t bytes, double snrDb)
{
    const double snr = std::pow(10.0, snrDb / 10.0);
    WifiTxVector tx;
    tx.SetMode(md.mode);
    tx.SetPreambleType(WIFI_PREAMBLE_LONG);
    tx.SetChannelWidth(MHz_u{md.ofdm ? 20.0 : 22.0});
    uint64_t payloadBits;
    uint64_t headerBits;
    if (md.ofdm)
    {
        const uint64_t perSymbol = static_cast<uint64_t>(md.mbps * 4.0);
        const uint64_t symbols = (16 + 8 * static_cast<uint64_t>(bytes) + 6 + perSymbol - 1) /
                                 perSymbol;
        payloadBits = symbols * perSymbol;
        headerBits = 24;
    }
    else
    {
        payloadBits = 8 * static_cast<uint64_t>(bytes);
        headerBits = 48;
    }
    WifiTxVector htx = tx;
    htx.SetMode(md.header);
    const double h = m->GetChunkSuccessRate(md.header,
                                            htx,
                                            snr,
                                            headerBits,
                                            1,
                                            WIFI_PPDU_FIELD_NON_HT_HEADER);
    const double p = m->GetChunkSuccessRate(md.mode, tx, snr, payloadBits);
    return h * p;
}

static double
SnrAtPer(Ptr<ErrorRateModel> m, const Mode& md, uint32_t bytes, double per)
{
    double lo = -20.0;
    double hi = 40.0;
    for (int i = 0; i < 80; i++)
    {
        const double mid = 0.5 * (lo + hi);
        if (1.0 - FrameSuccess(m, md, bytes, mid) > per)
        {
            lo = mid;
        }
        else
        {
            hi = mid;
        }
    }
    return 0.5 * (lo + hi);
}

int
main(int argc, char* argv[])
{
    uint32_t bytes = 1064;
    CommandLine cmd;
    cmd.AddValue("bytes", "frame bytes, MAC header and FCS included", bytes);
    cmd.Parse(argc, argv);
    const WifiMode d1 = DsssPhy::GetDsssRate1Mbps();
    const WifiMode o6 = OfdmPhy::GetOfdmRate6Mbps();
    std::vector<Mode> modes = {
        {d1, d1, false, 1},
        {DsssPhy::GetDsssRate2Mbps(), d1, false, 2},
        {DsssPhy::GetDsssRate5_5Mbps(), d1, false, 5.5},
        {DsssPhy::GetDsssRate11Mbps(), d1, false, 11},
        {o6, o6, true, 6},
        {OfdmPhy::GetOfdmRate54Mbps(), o6, true, 54},
    };
    std::vector<std::pair<std::string, Ptr<ErrorRateModel>>> models = {
        {"Yans", CreateObject<YansErrorRateModel>()},
        {"TableBased", CreateObject<TableBasedErrorRateModel>()},
    };
    for (const auto& [name, m] : models)
    {
        for (const auto& md : modes)
        {
            std::cout << "model=" << name << " mode=" << md.mode.GetUniqueName()
                      << " bytes=" << bytes;
            for (double per : {0.1, 0.5, 0.9})
            {
                std::cout << " per" << per << "=" << SnrAtPer(m, md, bytes, per);
            }
            std::cout << std::endl;
        }
    }
    return 0;
}
