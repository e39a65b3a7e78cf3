// archsim bulk-stimulus harness: the C++ main of archsim.sim.rtl.native_bulk.run_bulk.
//
// It runs simulate()'s cycle model on a design with the whole stimulus handed over at once:
// per-cycle input values are read from a binary job file, outputs are recorded per cycle in
// memory and written to a result file at the end; no Python (and no VPI) on any clock edge.
// The design-specific part is the generated header archsim_bulk_design.h: the model's class,
// ARCHSIM_N_INPUTS / ARCHSIM_N_OUTPUTS, the element size of every port (kInBytes,
// kOutBytes), whether there is a clock (ARCHSIM_HAS_CLK), and two inline functions,
// archsim_set_inputs and archsim_get_outputs, that copy cycle k's values between the columns
// and the model's ports. The model is a generated wrapper (ports in0.., out0.., clk, rst_in)
// whose reset register starts high, so the design sees rst high for exactly the first edge.
//
// Job file: little-endian, every section padded to a multiple of 8 bytes
//   uint64 magic 0x314A4B42 ("BKJ1"), cycles, n_inputs, n_outputs
//   uint64 per input: 1 if it varies per cycle, 0 if one value is held
//   uint64 per output: 1 if it is recorded every cycle
//   per input: its initial value (one element, kInBytes[i] bytes), then its values (cycles
//     elements if it varies, else one)
// Result file: little-endian, sections padded to 8 bytes
//   uint64 magic 0x314B5242 ("BRK1"), cycles, wall time of the loop in ns (reset included)
//   per recorded output: cycles elements (kOutBytes[j] bytes each)
//   per output: its value after the last clock edge (one element)
// Exit status 0 when the result file was written, 2 for a malformed job or an I/O error.

#include "archsim_bulk_design.h"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include "verilated.h"

namespace {

constexpr uint64_t kJobMagic = 0x314A4B42u;
constexpr uint64_t kResultMagic = 0x314B5242u;

int fail(const char* what) {
    std::fprintf(stderr, "archsim bulk harness: %s\n", what);
    return 2;
}

inline uint64_t padded(uint64_t bytes) { return (bytes + 7) & ~uint64_t{7}; }

}  // namespace

int main(int argc, char** argv) {
    if (argc != 3) return fail("usage: harness JOB_FILE RESULT_FILE");
    // Read as uint64 words so every section (8-byte aligned) is aligned in memory too.
    std::vector<uint64_t> job;
    {
        std::FILE* in = std::fopen(argv[1], "rb");
        if (in == nullptr) return fail("cannot open the job file");
        if (std::fseek(in, 0, SEEK_END) != 0) return fail("cannot size the job file");
        const long size = std::ftell(in);
        if (size < 0 || size % 8 != 0) return fail("not a job file");
        std::rewind(in);
        job.resize(static_cast<size_t>(size) / 8);
        if (!job.empty() && std::fread(job.data(), 8, job.size(), in) != job.size())
            return fail("cannot read the job file");
        std::fclose(in);
    }
    if (job.size() < 4 || job[0] != kJobMagic) return fail("not a job file");
    const uint64_t cycles = job[1];
    if (job[2] != ARCHSIM_N_INPUTS || job[3] != ARCHSIM_N_OUTPUTS)
        return fail("the job's port counts differ from the design's");
    if (job.size() < 4 + ARCHSIM_N_INPUTS + ARCHSIM_N_OUTPUTS) return fail("truncated job");

    // Column base pointers and strides (in elements: 0 holds one value, 1 steps per cycle).
    const uint8_t* in_init[ARCHSIM_N_INPUTS + 1];
    const uint8_t* in_cols[ARCHSIM_N_INPUTS + 1];
    uint64_t in_stride[ARCHSIM_N_INPUTS + 1];
    const uint64_t zero_strides[ARCHSIM_N_INPUTS + 1] = {};
    const uint8_t* const base = reinterpret_cast<const uint8_t*>(job.data());
    const uint64_t total = job.size() * 8;
    uint64_t at = 8 * (4 + ARCHSIM_N_INPUTS + ARCHSIM_N_OUTPUTS);
    for (int i = 0; i < ARCHSIM_N_INPUTS; ++i) {
        const uint64_t varies = job[4 + i];
        if (varies > 1) return fail("bad input flag");
        in_init[i] = base + at;
        at += padded(kInBytes[i]);
        in_cols[i] = base + at;
        in_stride[i] = varies;
        at += padded(kInBytes[i] * (varies ? cycles : 1));
        if (at > total) return fail("truncated input column");
    }

    uint8_t* out_cols[ARCHSIM_N_OUTPUTS + 1];
    uint64_t out_stride[ARCHSIM_N_OUTPUTS + 1];
    const uint64_t zero_out_strides[ARCHSIM_N_OUTPUTS + 1] = {};
    std::vector<std::unique_ptr<uint8_t[]>> storage;
    uint8_t* finals[ARCHSIM_N_OUTPUTS + 1];
    for (int j = 0; j < ARCHSIM_N_OUTPUTS; ++j) {
        const uint64_t recorded = job[4 + ARCHSIM_N_INPUTS + j];
        if (recorded > 1) return fail("bad output flag");
        // Not recorded: the column is one scratch element written every cycle.
        const uint64_t elements = recorded ? (cycles ? cycles : 1) : 1;
        storage.emplace_back(new uint8_t[padded(kOutBytes[j] * elements)]());
        out_cols[j] = storage.back().get();
        out_stride[j] = recorded;
        storage.emplace_back(new uint8_t[padded(kOutBytes[j])]());
        finals[j] = storage.back().get();
    }

    auto context = std::make_unique<VerilatedContext>();
    auto top = std::make_unique<ArchsimTop>(context.get());

    const auto start = std::chrono::steady_clock::now();
    // Reset: every input at its initial value, one rising edge (the wrapper's reset register
    // starts high and takes rst_in, held low, at that edge).
    archsim_set_inputs(top.get(), in_init, zero_strides, 0);
#if ARCHSIM_HAS_CLK
#if ARCHSIM_HAS_RST
    top->rst_in = 0;
#endif
    top->clk = 0;
    top->eval();
    top->clk = 1;
    top->eval();
#endif
    for (uint64_t k = 0; k < cycles; ++k) {
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
#if ARCHSIM_HAS_CLK
    top->clk = 0;
#endif
    top->eval();
    archsim_get_outputs(top.get(), finals, zero_out_strides, 0);
    const auto stop = std::chrono::steady_clock::now();
    top->final();

    const uint64_t wall_ns = static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(stop - start).count());
    const uint64_t header[3] = {kResultMagic, cycles, wall_ns};
    const uint8_t pad[8] = {};
    std::FILE* out = std::fopen(argv[2], "wb");
    if (out == nullptr) return fail("cannot open the result file");
    bool ok = std::fwrite(header, sizeof header, 1, out) == 1;
    for (int j = 0; j < ARCHSIM_N_OUTPUTS && ok; ++j) {
        if (!out_stride[j]) continue;
        const uint64_t bytes = kOutBytes[j] * cycles;
        ok = (bytes == 0 || std::fwrite(out_cols[j], 1, bytes, out) == bytes) &&
             (padded(bytes) == bytes || std::fwrite(pad, 1, padded(bytes) - bytes, out)
                                            == padded(bytes) - bytes);
    }
    for (int j = 0; j < ARCHSIM_N_OUTPUTS && ok; ++j)
        ok = std::fwrite(finals[j], 1, padded(kOutBytes[j]), out) == padded(kOutBytes[j]);
    ok = (std::fclose(out) == 0) && ok;
    if (!ok) return fail("cannot write the result file");
    return 0;
}
