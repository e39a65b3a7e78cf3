// archsim native run-to-done harness: the C++ main of archsim.sim.rtl.native.run_native.
//
// It drives the accelerator's host bus (BUS.md: bus_addr, bus_wdata, bus_we, bus_re,
// bus_rdata, and 1-bit outputs such as irq) through a job read from a binary file, with no
// Python on any clock edge, and writes the results to another binary file. The design-specific
// part (the model's class, which 1-bit outputs run_until may wait on, whether there is a rst
// port) is in the generated header archsim_design.h; this file is the same for every design.
// With a rst port the model is a generated wrapper that drives the design's rst through a
// register (see archsim.sim.rtl.native), so the reset takes two edges here, one at the design.
//
// Job file: little-endian uint32 words
//   magic 0x314A4E41 ("ANJ1"), n_ops, then per operation
//   1 WRITE     addr, count, count data words   (one word per cycle, consecutive addresses)
//   2 READ      addr, count                     (one word per cycle; bus_rdata is sampled
//                                                right after the edge that follows bus_re)
//   3 RUN_UNTIL signal index, max_cycles low, max_cycles high
// Result file: little-endian
//   uint64 header[6]: magic 0x314A4E52 ("RNJ1"), status (0 done, 1 run_until timed out),
//     index of the failing operation, cycles simulated, wall time of the loop in ns,
//     cycles the failing run_until had simulated
//   uint64 per RUN_UNTIL operation done: the cycles it counted
//   uint32 per READ operation done: its words
// Exit status 0 whenever a result file was written, 2 for a malformed job or an I/O error.

#include "archsim_design.h"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <vector>

#include "verilated.h"

namespace {

constexpr uint32_t kJobMagic = 0x314A4E41u;
constexpr uint64_t kResultMagic = 0x314A4E52u;

int fail(const char* what) {
    std::fprintf(stderr, "archsim native harness: %s\n", what);
    return 2;
}

// One clock cycle: the inputs already set settle with clk low, then the rising edge. The
// outputs are then those of the cycle after the edge, with the same inputs applied.
inline void tick(ArchsimTop* top) {
    top->clk = 0;
    top->eval();
    top->clk = 1;
    top->eval();
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 3) return fail("usage: harness JOB_FILE RESULT_FILE");
    std::vector<uint32_t> job;
    {
        std::FILE* in = std::fopen(argv[1], "rb");
        if (in == nullptr) return fail("cannot open the job file");
        uint32_t buffer[4096];
        size_t got;
        while ((got = std::fread(buffer, sizeof buffer[0], 4096, in)) > 0)
            job.insert(job.end(), buffer, buffer + got);
        std::fclose(in);
    }
    if (job.size() < 2 || job[0] != kJobMagic) return fail("not a job file");

    auto context = std::make_unique<VerilatedContext>();
    auto top = std::make_unique<ArchsimTop>(context.get());
    const CData* const signals[] = ARCHSIM_SIGNALS(top.get());
    const uint32_t signal_count = ARCHSIM_SIGNAL_COUNT;  // the table holds a nullptr if 0

    std::vector<uint64_t> run_cycles;
    std::vector<uint32_t> read_words;
    uint64_t status = 0, failed_op = 0, failed_cycles = 0, cycles = 0;

    const auto start = std::chrono::steady_clock::now();
    top->bus_addr = 0;
    top->bus_wdata = 0;
    top->bus_we = 0;
    top->bus_re = 0;
#if ARCHSIM_HAS_RST
    // rst reaches the design through the wrapper's register: high at the wrapper for one
    // edge, so high at the design for the next one.
    top->rst = 1;
    tick(top.get());
    top->rst = 0;
    tick(top.get());
#endif
    size_t pos = 2;
    const uint32_t n_ops = job[1];
    for (uint32_t op = 0; op < n_ops && status == 0; ++op) {
        if (pos + 2 > job.size()) return fail("truncated job");
        const uint32_t kind = job[pos];
        if (kind == 1 || kind == 2) {
            const uint32_t addr = job[pos + 1];
            const uint32_t count = job[pos + 2];
            pos += 3;
            if (kind == 1) {
                if (pos + count > job.size()) return fail("truncated write");
                top->bus_we = 1;
                top->bus_re = 0;
                for (uint32_t k = 0; k < count; ++k) {
                    top->bus_addr = addr + k;
                    top->bus_wdata = job[pos + k];
                    tick(top.get());
                }
                top->bus_we = 0;
                pos += count;
            } else {
                top->bus_we = 0;
                top->bus_re = 1;
                for (uint32_t k = 0; k < count; ++k) {
                    top->bus_addr = addr + k;
                    tick(top.get());
                    read_words.push_back(static_cast<uint32_t>(top->bus_rdata));
                }
                top->bus_re = 0;
            }
            cycles += count;
        } else if (kind == 3) {
            if (pos + 4 > job.size()) return fail("truncated run_until");
            const uint32_t index = job[pos + 1];
            const uint64_t limit = job[pos + 2] | (static_cast<uint64_t>(job[pos + 3]) << 32);
            pos += 4;
            if (index >= signal_count) return fail("run_until names an unknown signal");
            const CData* const signal = signals[index];
            top->bus_we = 0;
            top->bus_re = 0;
            top->eval();  // the idle inputs settle before the first look at the signal
            uint64_t n = 0;
            while (!*signal) {
                if (n == limit) {
                    status = 1;
                    failed_op = op;
                    failed_cycles = n;
                    break;
                }
                tick(top.get());
                ++n;
            }
            cycles += n;
            if (status == 0) run_cycles.push_back(n);
        } else {
            return fail("unknown operation in the job");
        }
    }
    const auto stop = std::chrono::steady_clock::now();
    top->final();

    const uint64_t wall_ns = static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(stop - start).count());
    const uint64_t header[6] = {kResultMagic, status, failed_op, cycles, wall_ns, failed_cycles};
    std::FILE* out = std::fopen(argv[2], "wb");
    if (out == nullptr) return fail("cannot open the result file");
    bool ok = std::fwrite(header, sizeof header, 1, out) == 1;
    if (!run_cycles.empty())
        ok = ok && std::fwrite(run_cycles.data(), sizeof(uint64_t), run_cycles.size(), out)
                       == run_cycles.size();
    if (!read_words.empty())
        ok = ok && std::fwrite(read_words.data(), sizeof(uint32_t), read_words.size(), out)
                       == read_words.size();
    ok = (std::fclose(out) == 0) && ok;
    if (!ok) return fail("cannot write the result file");
    return 0;
}
