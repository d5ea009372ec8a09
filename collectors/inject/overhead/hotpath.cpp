// SPDX-License-Identifier: MIT
// bench_recorder_hotpath: the recorder's own work per empty-kernel launch, called directly (no
// GPU needed), to profile with perf on any machine. Per launch CUPTI hands the recorder one
// runtime API record and one kernel record; the recorder's code then runs
//   - on the launching thread: the CLOCK_MONOTONIC timestamp callback CUPTI calls for each
//     timestamp it takes (what CUPTI's own clock costs instead is measured on the device);
//   - on the writer thread: two raw frames appended to the pending buffer (RawWriter) and, per
//     converted buffer, one write(2) of them to the raw file.
// Prints ns per call / per launch for each, over N launches (default 2,000,000).
#include "collectors/inject/rawwriter.h"

#include <unistd.h>
#include <x86intrin.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

double nsPer(Clock::time_point t0, int64_t n)
{
    return std::chrono::duration<double, std::nano>(Clock::now() - t0).count() / static_cast<double>(n);
}

uint64_t monotonicTimestamp() // as collectors/inject/cuptisession.cpp registers it with CUPTI
{
    timespec ts {};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

} // namespace

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

int main(int argc, char** argv)
{
    const int64_t n = argc > 1 ? std::atoll(argv[1]) : 1'000'000;
    const int reps = argc > 2 ? std::atoi(argv[2]) : 7;
    uint64_t sink = 0;
    const std::string dir = std::filesystem::temp_directory_path() / ("ws-hotpath-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir);
    ws::inject::RawWriter w;
    if (!w.open(dir)) {
        std::perror(dir.c_str());
        return 1;
    }
    const uint32_t kernelName = w.intern("_Z12empty_kernelv");
    const uint32_t apiName = w.intern("cudaLaunchKernel_v7000");
    std::vector<double> clockNs, tscNs, frameNs, writeNs, addNs;
    for (int rep = 0; rep < reps; ++rep) {
        auto t0 = Clock::now();
        for (int64_t i = 0; i < n; ++i)
            sink += monotonicTimestamp();
        clockNs.push_back(nsPer(t0, n));
        t0 = Clock::now();
        for (int64_t i = 0; i < n; ++i)
            sink += __rdtsc();
        tscNs.push_back(nsPer(t0, n));

        // As the converter does: the frames of one CUPTI buffer (about 16k launches per 4 MB)
        // into a local string, handed to the writer in one addPrepared, written by writeOut.
        constexpr int64_t kPerBuffer = 16384;
        std::string out;
        double frames = 0, writes = 0;
        for (int64_t first = 0; first < n; first += kPerBuffer) {
            out.clear();
            const int64_t last = std::min(n, first + kPerBuffer);
            t0 = Clock::now();
            for (int64_t i = first; i < last; ++i) {
                ws::raw::ApiRecord a {};
                a.start = i * 4000;
                a.end = a.start + 3000;
                a.tid = 1;
                a.correlationId = static_cast<uint32_t>(i);
                a.cbid = 211;
                a.name = apiName;
                ws::raw::appendFrame(out, ws::raw::RecordType::Api, a);
                ws::raw::KernelRecord k {};
                k.start = a.start + 5000;
                k.end = k.start + 1500;
                k.streamId = 7;
                k.correlationId = a.correlationId;
                k.name = kernelName;
                ws::raw::appendFrame(out, ws::raw::RecordType::Kernel, k);
            }
            frames += std::chrono::duration<double, std::nano>(Clock::now() - t0).count();
            t0 = Clock::now();
            w.addPrepared(out, static_cast<uint64_t>(2 * (last - first)));
            w.writeOut();
            writes += std::chrono::duration<double, std::nano>(Clock::now() - t0).count();
        }
        frameNs.push_back(frames / static_cast<double>(n));
        writeNs.push_back(writes / static_cast<double>(n));
        // NVTX and messages take the locked per-frame path (RawWriter::add); launches never do.
        t0 = Clock::now();
        for (int64_t i = 0; i < n; ++i) {
            ws::raw::ApiRecord a {};
            a.correlationId = static_cast<uint32_t>(i);
            w.add(ws::raw::RecordType::Api, a);
            if ((i & 16383) == 0)
                w.writeOut();
        }
        w.writeOut();
        addNs.push_back(nsPer(t0, n));
    }
    w.close(0);
    std::printf("bench_recorder_hotpath: %lld launches x %d repetitions, medians\n", static_cast<long long>(n), reps);
    std::printf("  launching thread: timestamp callback (clock_gettime MONOTONIC) %.1f ns per call (rdtsc %.1f ns)\n",
        median(clockNs), median(tscNs));
    std::printf(
        "  writer thread, per launch: 2 frames appended %.1f ns, addPrepared + write(2) %.1f ns, total %.1f ns\n",
        median(frameNs), median(writeNs), median(frameNs) + median(writeNs));
    std::printf("  RawWriter::add (locked, one frame; NVTX path) %.1f ns\n", median(addNs));
    std::filesystem::remove_all(dir);
    return sink == 42 ? 1 : 0;
}
