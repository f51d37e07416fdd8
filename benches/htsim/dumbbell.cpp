// The airtcp wired benchmark dumbbell (scenarios/bench_b.toml and its scale points) as an htsim
// program, so both simulators do the same packet work and their wall times per packet-hop can
// be compared. Built against htsim's libhtsim.a by benches/htsim/run.py; htsim itself is not
// part of this repository.
//
// Topology: N sources -> R1 -> bottleneck -> R2 -> N destinations; each hop is an htsim Queue
// (serialization + drop-tail buffer) followed by a Pipe (propagation delay), in both
// directions. Three shims stand in for what htsim's TCP does not model:
//   * LossyHop: Bernoulli packet error after a last-hop queue (airtcp decides a frame's
//     corruption when its serialization ends, before propagation; so does this element);
//   * DelAckSink: a TcpSink that ACKs every 2nd in-order segment or after a 200 ms timer, and
//     at once when a segment is out of order or fills a hole;
//   * the receive window is a cap on the congestion window (TcpSrc::_maxcwnd).
// CountingQueue counts serializations (packet-hops) the way airtcp does: every transmission
// over one hop, including frames the channel then corrupts.
//
// Usage: dumbbell FLOWS BOTTLENECK_MBPS ACCESS_MBPS PER DELACK(0|1) DURATION_S
// Prints one line on stderr (htsim's TCP writes its own messages to stdout):
// wall_s=... packet_hops=... peak_rss_kb=...

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "config.h"
#include "eventlist.h"
#include "network.h"
#include "pipe.h"
#include "queue.h"
#include "route.h"
#include "tcp.h"
#include "tcppacket.h"

static uint64_t g_hops = 0;

class CountingQueue : public Queue {
  public:
    CountingQueue(linkspeed_bps rate, mem_b size, EventList& ev) : Queue(rate, size, ev, nullptr) {}
    uint64_t served = 0;

  protected:
    void completeService() override {
        ++g_hops;
        ++served;
        Queue::completeService();
    }
};

// Independent Bernoulli drops with a private xorshift64* stream per element.
class LossyHop : public PacketSink {
  public:
    LossyHop(double per, uint64_t seed) : _per(per), _s(seed | 1), _name("lossy") {}
    void receivePacket(Packet& pkt) override {
        _s ^= _s >> 12;
        _s ^= _s << 25;
        _s ^= _s >> 27;
        double u = (double)((_s * 0x2545F4914F6CDD1DULL) >> 11) * (1.0 / 9007199254740992.0);
        if (u < _per) {
            pkt.free();
            return;
        }
        pkt.sendOn();
    }
    const string& nodename() override { return _name; }

  private:
    double _per;
    uint64_t _s;
    string _name;
};

class DelAckSink;

// The delayed-ACK timer of one sink (a separate event source, so the sink keeps one base).
class DelAckTimer : public EventSource {
  public:
    DelAckTimer(EventList& ev, DelAckSink* sink) : EventSource(ev, "delack"), _sink(sink) {}
    void doNextEvent() override;

  private:
    DelAckSink* _sink;
};

class DelAckSink : public TcpSink {
  public:
    DelAckSink(EventList& ev, bool delack, simtime_picosec timeout)
        : _timer(ev, this), _delack(delack), _timeout(timeout) {}
    void set_ack_route(const Route* r) { _ack_route = r; }

    void receivePacket(Packet& pkt) override {
        TcpPacket* p = (TcpPacket*)(&pkt);
        TcpPacket::seq_t seqno = p->seqno();
        int size = p->size();
        _ts = p->ts();
        _flow = &pkt.flow();
        _packets += size;
        p->free();
        bool in_order = false;
        if (seqno == _cumulative_ack + 1) {
            in_order = _received.empty();
            _cumulative_ack = seqno + size - 1;
            while (!_received.empty() && _received.front() == _cumulative_ack + 1) {
                _received.pop_front();
                _cumulative_ack += size;
            }
        } else if (seqno > _cumulative_ack + 1) {
            auto i = _received.begin();
            while (i != _received.end() && *i < seqno) ++i;
            if (i == _received.end() || *i != seqno) _received.insert(i, seqno);
        }
        // The SYN (one byte) is answered at once: only full segments wait.
        if (!_delack || !in_order || size < Packet::data_packet_size() || ++_unacked >= 2) {
            ack();
        } else if (!_armed) {
            _armed = true;
            _timer_at = _timer.eventlist().now() + _timeout;
            _timer.eventlist().sourceIsPending(_timer, _timer_at);
        }
    }

    // Timers are cancelled lazily: an event that finds the timer disarmed, or re-armed for
    // later, does nothing.
    void timeout() {
        if (_armed && _timer.eventlist().now() >= _timer_at) ack();
    }

  private:
    void ack() {
        _unacked = 0;
        _armed = false;
        TcpAck* a = TcpAck::newpkt(*_flow, *_ack_route, 0, _cumulative_ack, 0);
        a->set_ts(_ts);
        a->set_flags(0);
        a->sendOn();
    }

    DelAckTimer _timer;
    bool _delack;
    simtime_picosec _timeout;
    const Route* _ack_route = nullptr;
    PacketFlow* _flow = nullptr;
    simtime_picosec _ts = 0;
    simtime_picosec _timer_at = 0;
    int _unacked = 0;
    bool _armed = false;
};

void DelAckTimer::doNextEvent() { _sink->timeout(); }

int main(int argc, char** argv) {
    if (argc != 7) {
        fprintf(stderr, "usage: %s FLOWS BOTTLENECK_MBPS ACCESS_MBPS PER DELACK DURATION_S\n",
                argv[0]);
        return 2;
    }
    auto t0 = std::chrono::steady_clock::now();
    int flows = atoi(argv[1]);
    double bneck_mbps = atof(argv[2]);
    double access_mbps = atof(argv[3]);
    double per = atof(argv[4]);
    bool delack = atoi(argv[5]) != 0;
    double duration = atof(argv[6]);

    EventList ev;
    ev.setEndtime(timeFromSec(duration));
    // 1000-byte segments plus 40 bytes of headers on the wire, as in airtcp.
    Packet::set_packet_size(1040);
    const int mss = Packet::data_packet_size();
    linkspeed_bps access = speedFromMbps(access_mbps);
    linkspeed_bps bneck = speedFromMbps(bneck_mbps);

    // Bottleneck R1->R2 (1000 packets) and its reverse direction.
    CountingQueue q_fwd(bneck, memFromPkt(1000), ev);
    Pipe p_fwd(timeFromMs(10.0), ev);
    CountingQueue q_rev(bneck, memFromPkt(100), ev);
    Pipe p_rev(timeFromMs(10.0), ev);

    TcpRtxTimerScanner rtx(timeFromMs(10.0), ev);
    for (int i = 0; i < flows; i++) {
        // Source access link S->R1 and R1->S; destination link R2->D and D->R2.
        auto* q_s = new CountingQueue(access, memFromPkt(100), ev);
        auto* p_s = new Pipe(timeFromMs(2.0), ev);
        auto* q_d = new CountingQueue(access, memFromPkt(100), ev);
        auto* l_d = new LossyHop(per, 0x9E3779B97F4A7C15ULL * (2 * i + 1));
        auto* p_d = new Pipe(timeFromMs(4.0), ev);
        auto* q_dr = new CountingQueue(access, memFromPkt(100), ev);
        auto* l_dr = new LossyHop(per, 0xD1B54A32D192ED03ULL * (2 * i + 2));
        auto* p_dr = new Pipe(timeFromMs(4.0), ev);
        auto* q_sr = new CountingQueue(access, memFromPkt(100), ev);
        auto* p_sr = new Pipe(timeFromMs(2.0), ev);

        auto* src = new TcpSrc(nullptr, nullptr, ev);
        auto* sink = new DelAckSink(ev, delack, timeFromMs(200.0));
        // 128 KiB receive window of 1000-byte segments, as a cap on cwnd.
        src->_maxcwnd = (128 * 1024 / 1000) * mss;
        rtx.registerTcp(*src);

        auto* out = new Route();
        out->push_back(q_s);
        out->push_back(p_s);
        out->push_back(&q_fwd);
        out->push_back(&p_fwd);
        out->push_back(q_d);
        if (per > 0) out->push_back(l_d);
        out->push_back(p_d);
        out->push_back(sink);
        auto* back = new Route();
        back->push_back(q_dr);
        if (per > 0) back->push_back(l_dr);
        back->push_back(p_dr);
        back->push_back(&q_rev);
        back->push_back(&p_rev);
        back->push_back(q_sr);
        back->push_back(p_sr);
        back->push_back(src);
        sink->set_ack_route(back);
        src->connect(*out, *back, *sink, timeFromMs(1.0 * i));
    }
    while (ev.doNextEvent()) {
    }
    double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    // Peak resident memory of this process image (VmHWM), as airtcp's bench example reports.
    long peak_kb = 0;
    if (FILE* f = fopen("/proc/self/status", "r")) {
        char line[256];
        while (fgets(line, sizeof line, f))
            if (!strncmp(line, "VmHWM:", 6)) peak_kb = atol(line + 6);
        fclose(f);
    }
    fprintf(stderr, "wall_s=%.4f packet_hops=%llu peak_rss_kb=%ld bottleneck_fwd=%llu bottleneck_rev=%llu\n",
            wall, (unsigned long long)g_hops, peak_kb, (unsigned long long)q_fwd.served,
            (unsigned long long)q_rev.served);
    return 0;
}
