// archsim streaming harness: the C++ main of archsim.sim.rtl.native_stream.run_stream.
//
// The cycle model of simulate() (reset edge, then per cycle: inputs applied, outputs sampled
// after settling, one rising edge) with the stimulus fed in chunks through stdin and the
// recorded outputs written back per chunk on stdout, so memory stays bounded however long the
// run is. A reader thread fills a ring of kSlots chunk buffers from stdin while the simulation
// thread consumes them; when the ring is full the reader blocks, and the pipe applies back
// pressure to the Python producer. Expected output values may travel with the stimulus; they
// are compared here after each chunk and the first mismatch (lowest cycle, then output order)
// ends the run and is reported.
//
// The design-specific part is the generated header archsim_bulk_design.h shared with the bulk
// harness (native_bulk_main.cpp): ARCHSIM_N_INPUTS / ARCHSIM_N_OUTPUTS, kInBytes / kOutBytes,
// ARCHSIM_HAS_CLK / ARCHSIM_HAS_RST, archsim_set_inputs and archsim_get_outputs.
//
// stdin, little-endian, every section padded to a multiple of 8 bytes:
//   uint64 magic 0x314A5453 ("STJ1"), n_inputs, n_outputs, chunk capacity (cycles)
//   uint64 per input: 1 if it varies per cycle, 0 if one value is held
//   uint64 per output: bit 0 sent back every cycle, bit 1 checked against expected values,
//     bit 2 (with bit 1) the expected values come with a care byte per cycle
//   per input: its initial value (one element); per held input: its value (one element)
//   chunks, each: uint64 n (1..capacity; 0 ends the stimulus), then per varying input n
//     elements, then per checked output n expected elements and, when masked, n care bytes
// stdout, the same conventions:
//   per chunk simulated: uint64 n, then per sent-back output n elements
//   then uint64 0 and the trailer: uint64 magic 0x31525453 ("STR1"), status (0 done,
//     1 mismatch), cycles simulated, wall time of the loop in ns (reset included; waiting
//     for stimulus included), mismatch cycle, mismatch output index, peak resident bytes
//     (VmHWM); on a mismatch the
//     expected and the actual element; per output its value after the last clock edge
//     (after the mismatching chunk's last edge on a mismatch)
// Exit status 0 when the trailer was written, 2 for a malformed stream or an I/O error.

#include "archsim_bulk_design.h"

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "verilated.h"

namespace {

constexpr uint64_t kJobMagic = 0x314A5453u;
constexpr uint64_t kResultMagic = 0x31525453u;
constexpr int kSlots = 4;  // chunks in flight: one simulated, up to three read ahead
constexpr uint64_t kMaxCapacity = uint64_t{1} << 24;

int fail(const char* what) {
    std::fprintf(stderr, "archsim stream harness: %s\n", what);
    return 2;
}

// Peak resident memory of this process (VmHWM of /proc/self/status; 0 where there is none).
// Not getrusage: its ru_maxrss keeps the forking parent's peak across exec.
uint64_t peak_rss_bytes() {
    std::FILE* status = std::fopen("/proc/self/status", "r");
    if (status == nullptr) return 0;
    char line[256];
    unsigned long long kib = 0;
    while (std::fgets(line, sizeof line, status) != nullptr)
        if (std::sscanf(line, "VmHWM: %llu kB", &kib) == 1) break;
    std::fclose(status);
    return static_cast<uint64_t>(kib) * 1024;
}

inline uint64_t padded(uint64_t bytes) { return (bytes + 7) & ~uint64_t{7}; }

bool read_exact(void* to, uint64_t bytes) {
    return bytes == 0 || std::fread(to, 1, bytes, stdin) == bytes;
}

bool write_exact(const void* from, uint64_t bytes) {
    return bytes == 0 || std::fwrite(from, 1, bytes, stdout) == bytes;
}

bool write_padded(const void* from, uint64_t bytes) {
    static const uint8_t pad[8] = {};
    return write_exact(from, bytes) && write_exact(pad, padded(bytes) - bytes);
}

// One chunk buffer of the ring: its cycles and the offset of every column in `data`.
struct Slot {
    std::unique_ptr<uint64_t[]> data;  // uint64 words keep every 8-byte-padded column aligned
    uint64_t cycles = 0;
    bool full = false;
    bool last = false;  // the end-of-stimulus marker (cycles == 0) or a read error
};

struct Ring {
    Slot slots[kSlots];
    std::mutex lock;
    std::condition_variable changed;
    bool failed = false;
    bool stop = false;  // the simulation ended early (a mismatch): the reader gives up
};

}  // namespace

int main() {
    std::setvbuf(stdout, nullptr, _IOFBF, 1 << 20);
    uint64_t head[4];
    if (!read_exact(head, sizeof head) || head[0] != kJobMagic) return fail("not a stream job");
    if (head[1] != ARCHSIM_N_INPUTS || head[2] != ARCHSIM_N_OUTPUTS)
        return fail("the job's port counts differ from the design's");
    const uint64_t capacity = head[3];
    if (capacity == 0 || capacity > kMaxCapacity) return fail("bad chunk capacity");

    uint64_t varies[ARCHSIM_N_INPUTS + 1] = {};
    uint64_t flags[ARCHSIM_N_OUTPUTS + 1] = {};
    if (!read_exact(varies, 8 * ARCHSIM_N_INPUTS) || !read_exact(flags, 8 * ARCHSIM_N_OUTPUTS))
        return fail("truncated job header");
    for (int i = 0; i < ARCHSIM_N_INPUTS; ++i)
        if (varies[i] > 1) return fail("bad input flag");
    for (int j = 0; j < ARCHSIM_N_OUTPUTS; ++j)
        if (flags[j] > 7 || ((flags[j] & 4) && !(flags[j] & 2))) return fail("bad output flag");

    // Initial and held values: one element each, padded.
    std::vector<std::unique_ptr<uint64_t[]>> storage;
    auto element = [&storage](uint64_t bytes) {
        storage.emplace_back(new uint64_t[padded(bytes) / 8 + 1]());
        return reinterpret_cast<uint8_t*>(storage.back().get());
    };
    const uint8_t* init[ARCHSIM_N_INPUTS + 1];
    const uint8_t* in_cols[ARCHSIM_N_INPUTS + 1];
    uint64_t in_stride[ARCHSIM_N_INPUTS + 1];
    const uint64_t zero_in[ARCHSIM_N_INPUTS + 1] = {};
    for (int i = 0; i < ARCHSIM_N_INPUTS; ++i) {
        uint8_t* cell = element(kInBytes[i]);
        if (!read_exact(cell, padded(kInBytes[i]))) return fail("truncated initial values");
        init[i] = cell;
    }
    for (int i = 0; i < ARCHSIM_N_INPUTS; ++i) {
        in_stride[i] = varies[i];
        in_cols[i] = nullptr;
        if (varies[i]) continue;
        uint8_t* cell = element(kInBytes[i]);
        if (!read_exact(cell, padded(kInBytes[i]))) return fail("truncated held values");
        in_cols[i] = cell;
    }

    // The layout of a chunk of `capacity` cycles in a slot (each column padded to 8 bytes).
    // A short chunk uses the same offsets; the reader reads its columns to their own length.
    uint64_t in_offset[ARCHSIM_N_INPUTS + 1] = {};
    uint64_t want_offset[ARCHSIM_N_OUTPUTS + 1] = {};
    uint64_t care_offset[ARCHSIM_N_OUTPUTS + 1] = {};
    uint64_t slot_bytes = 0;
    for (int i = 0; i < ARCHSIM_N_INPUTS; ++i) {
        if (!varies[i]) continue;
        in_offset[i] = slot_bytes;
        slot_bytes += padded(kInBytes[i] * capacity);
    }
    for (int j = 0; j < ARCHSIM_N_OUTPUTS; ++j) {
        if (!(flags[j] & 2)) continue;
        want_offset[j] = slot_bytes;
        slot_bytes += padded(kOutBytes[j] * capacity);
        if (flags[j] & 4) {
            care_offset[j] = slot_bytes;
            slot_bytes += padded(capacity);
        }
    }

    Ring ring;
    for (Slot& slot : ring.slots) slot.data.reset(new uint64_t[slot_bytes / 8 + 1]);

    // The reader: fills slot r % kSlots with chunk r once the simulation has released it.
    std::thread reader([&]() {
        for (uint64_t r = 0;; ++r) {
            Slot& slot = ring.slots[r % kSlots];
            {
                std::unique_lock<std::mutex> hold(ring.lock);
                ring.changed.wait(hold, [&] { return !slot.full || ring.stop; });
                if (ring.stop) return;
            }
            uint64_t n = 0;
            bool ok = read_exact(&n, 8) && n <= capacity;
            uint8_t* base = reinterpret_cast<uint8_t*>(slot.data.get());
            for (int i = 0; i < ARCHSIM_N_INPUTS && ok && n; ++i)
                if (varies[i]) ok = read_exact(base + in_offset[i], padded(kInBytes[i] * n));
            for (int j = 0; j < ARCHSIM_N_OUTPUTS && ok && n; ++j) {
                if (!(flags[j] & 2)) continue;
                ok = read_exact(base + want_offset[j], padded(kOutBytes[j] * n));
                if (ok && (flags[j] & 4)) ok = read_exact(base + care_offset[j], padded(n));
            }
            std::lock_guard<std::mutex> hold(ring.lock);
            slot.cycles = n;
            slot.last = !ok || n == 0;
            slot.full = true;
            ring.failed = !ok;
            ring.changed.notify_all();
            if (slot.last) return;
        }
    });

    // Output columns: a full chunk column for every output sent back or checked, one scratch
    // element (stride 0) for the others.
    uint8_t* out_cols[ARCHSIM_N_OUTPUTS + 1];
    uint64_t out_stride[ARCHSIM_N_OUTPUTS + 1];
    uint8_t* finals[ARCHSIM_N_OUTPUTS + 1];
    const uint64_t zero_out[ARCHSIM_N_OUTPUTS + 1] = {};
    for (int j = 0; j < ARCHSIM_N_OUTPUTS; ++j) {
        const bool column = (flags[j] & 3) != 0;
        out_cols[j] = element(kOutBytes[j] * (column ? capacity : 1));
        out_stride[j] = column ? 1 : 0;
        finals[j] = element(kOutBytes[j]);
    }

    auto context = std::make_unique<VerilatedContext>();
    auto top = std::make_unique<ArchsimTop>(context.get());
    const auto start = std::chrono::steady_clock::now();
    archsim_set_inputs(top.get(), init, zero_in, 0);
#if ARCHSIM_HAS_CLK
#if ARCHSIM_HAS_RST
    top->rst_in = 0;
#endif
    top->clk = 0;
    top->eval();
    top->clk = 1;
    top->eval();
#endif

    uint64_t done = 0, status = 0, bad_cycle = 0, bad_port = 0;
    std::vector<uint8_t> mismatch;  // on a mismatch: the expected, then the actual element
    bool ok = true;
    for (uint64_t r = 0;; ++r) {
        Slot& slot = ring.slots[r % kSlots];
        {
            std::unique_lock<std::mutex> hold(ring.lock);
            ring.changed.wait(hold, [&] { return slot.full; });
        }
        if (slot.last) {
            ok = !ring.failed;
            break;
        }
        const uint64_t n = slot.cycles;
        const uint8_t* base = reinterpret_cast<const uint8_t*>(slot.data.get());
        for (int i = 0; i < ARCHSIM_N_INPUTS; ++i)
            if (varies[i]) in_cols[i] = base + in_offset[i];
        for (uint64_t k = 0; k < n; ++k) {
            archsim_set_inputs(top.get(), in_cols, in_stride, k);
#if ARCHSIM_HAS_CLK
            top->clk = 0;
#endif
            top->eval();  // inputs of cycle k settle
            archsim_get_outputs(top.get(), out_cols, out_stride, k);
#if ARCHSIM_HAS_CLK
            top->clk = 1;
            top->eval();  // the rising edge that ends cycle k
#endif
        }
        // The first mismatch of the chunk: the lowest cycle, then the lowest output index.
        uint64_t first = n;
        for (int j = 0; j < ARCHSIM_N_OUTPUTS; ++j) {
            if (!(flags[j] & 2)) continue;
            const uint64_t size = kOutBytes[j];
            const uint8_t* want = base + want_offset[j];
            const uint8_t* care = (flags[j] & 4) ? base + care_offset[j] : nullptr;
            for (uint64_t k = 0; k < first; ++k) {
                if (care != nullptr && !care[k]) continue;
                if (std::memcmp(want + k * size, out_cols[j] + k * size, size) != 0) {
                    first = k;
                    bad_port = static_cast<uint64_t>(j);
                    break;
                }
            }
        }
        if (first < n) {
            status = 1;
            bad_cycle = done + first;
            const uint64_t size = kOutBytes[bad_port];
            mismatch.resize(2 * padded(size));
            std::memcpy(mismatch.data(), base + want_offset[bad_port] + first * size, size);
            std::memcpy(mismatch.data() + padded(size), out_cols[bad_port] + first * size,
                        size);
        }
        {
            std::lock_guard<std::mutex> hold(ring.lock);
            slot.full = false;
            if (status) ring.stop = true;
            ring.changed.notify_all();
        }
        ok = write_exact(&n, 8);
        for (int j = 0; j < ARCHSIM_N_OUTPUTS && ok; ++j)
            if (flags[j] & 1) ok = write_padded(out_cols[j], kOutBytes[j] * n);
        done += n;
        if (!ok) break;
        if (status) {
            ok = true;
            break;
        }
    }
    if (!ok) {
        {
            std::lock_guard<std::mutex> hold(ring.lock);
            ring.stop = true;
            ring.changed.notify_all();
        }
        // The reader may be blocked in fread on a pipe nobody writes any more: do not join.
        reader.detach();
        return fail("malformed or truncated stimulus stream, or stdout closed");
    }
#if ARCHSIM_HAS_CLK
    top->clk = 0;
#endif
    top->eval();
    archsim_get_outputs(top.get(), finals, zero_out, 0);
    const auto stop = std::chrono::steady_clock::now();
    top->final();

    const uint64_t wall_ns = static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(stop - start).count());
    const uint64_t trailer[8] = {0,         kResultMagic, status,   done,
                                 wall_ns,   bad_cycle,    bad_port, peak_rss_bytes()};
    ok = write_exact(trailer, sizeof trailer);
    if (status && ok) ok = write_exact(mismatch.data(), mismatch.size());
    for (int j = 0; j < ARCHSIM_N_OUTPUTS && ok; ++j)
        ok = write_padded(finals[j], kOutBytes[j]);
    ok = (std::fflush(stdout) == 0) && ok;
    if (status) {
        // Stimulus may still be coming: the reader is told to stop but may sit in fread.
        reader.detach();
    } else {
        reader.join();
    }
    if (!ok) return fail("cannot write the result stream");
    return 0;
}
