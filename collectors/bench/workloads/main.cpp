// SPDX-License-Identifier: MIT
// warpscope-bench-workloads: runs one of the built-in benchmark workloads for warpscope-cli
// bench, which links no CUDA. It reads a request (JSON) and writes a result or a failure
// report (JSON); the session file is written by warpscope-cli.
//
//   warpscope-bench-workloads --request REQ.json --output OUT.json
//   warpscope-bench-workloads --probe        (prints the devices; exit 4 when there is none)
//
// Exit status: 0 measured, 2 bad request or options, 3 correctness check failed, 4 no CUDA
// device, 1 any other failure. On failure OUT.json holds {"format": "warpscope-bench-failure"}.
#include "core/bench/benchjson.h"
#include "workloads.h"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

namespace {

constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;
constexpr int kExitBadRequest = 2;
constexpr int kExitIncorrect = 3;
constexpr int kExitNoDevice = 4;

int usage()
{
    std::fprintf(stderr,
        "usage: warpscope-bench-workloads --request FILE --output FILE | --probe\n"
        "This program is started by `warpscope-cli bench`.\n");
    return kExitBadRequest;
}

int deviceCount()
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess)
        return 0;
    return n;
}

int probe()
{
    const int n = deviceCount();
    for (int i = 0; i < n; ++i) {
        cudaDeviceProp p {};
        if (cudaGetDeviceProperties(&p, i) == cudaSuccess)
            std::printf("%d: %s (compute capability %d.%d, %d SMs, L2 %d bytes)\n", i, p.name, p.major, p.minor,
                p.multiProcessorCount, p.l2CacheSize);
    }
    if (n == 0)
        std::printf("no CUDA device\n");
    return n > 0 ? kExitOk : kExitNoDevice;
}

bool writeFile(const std::string& path, const std::string& text)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    return static_cast<bool>(out);
}

int fail(const std::string& output, const char* kind, const std::string& message, int code)
{
    if (!writeFile(output, ws::bench::failureToJson({kind, message})))
        std::fprintf(stderr, "warpscope-bench-workloads: %s\n", message.c_str());
    return code;
}

} // namespace

int main(int argc, char** argv)
{
    std::string requestPath;
    std::string outputPath;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--probe")
            return probe();
        if (arg == "--request" && i + 1 < argc)
            requestPath = argv[++i];
        else if (arg == "--output" && i + 1 < argc)
            outputPath = argv[++i];
        else
            return usage();
    }
    if (requestPath.empty() || outputPath.empty())
        return usage();

    using namespace ws::bench;
    try {
        std::ifstream in(requestPath, std::ios::binary);
        if (!in)
            return fail(outputPath, "options", requestPath + ": cannot read the request", kExitBadRequest);
        std::stringstream text;
        text << in.rdbuf();
        const auto request = requestFromJson(text.str(), requestPath);
        validate(request.options);

        const int devices = deviceCount();
        if (devices == 0)
            return fail(
                outputPath, "no-device", "no CUDA device is available (cudaGetDeviceCount found none)", kExitNoDevice);
        if (request.device < 0 || request.device >= devices)
            return fail(outputPath, "options",
                "--device " + std::to_string(request.device) + " does not exist (this machine has "
                    + std::to_string(devices) + " CUDA device" + (devices == 1 ? "" : "s") + ")",
                kExitBadRequest);
        throwIfFailed(cudaSetDevice(request.device), "cudaSetDevice");

        auto workload = prepareWorkload(request.workload, request.options.timer);
        Context context;
        context.workload = request.workload.workload;
        context.size = request.workload.size;
        context.dtype = request.workload.dtype;
        context.onMessage = [](const std::string& m) { std::fprintf(stderr, "bench: %s\n", m.c_str()); };
        auto result = bench(workload->implementations, workload->reference, request.options, context);
        for (const auto& [k, v] : workload->environment)
            result.environment[k] = v;
        result.environment["bench.nvcc_version"] = WS_NVCC_VERSION;
        if (!writeFile(outputPath, toJson(result))) {
            std::fprintf(stderr, "warpscope-bench-workloads: %s: cannot write the result: %s\n", outputPath.c_str(),
                std::strerror(errno));
            return kExitFailure;
        }
        return kExitOk;
    } catch (const CorrectnessError& e) {
        return fail(outputPath, "correctness", e.what(), kExitIncorrect);
    } catch (const BenchOptionError& e) {
        return fail(outputPath, "options", e.what(), kExitBadRequest);
    } catch (const BenchFormatError& e) {
        return fail(outputPath, "options", e.what(), kExitBadRequest);
    } catch (const CudaError& e) {
        return fail(outputPath, "cuda", e.what(), kExitFailure);
    } catch (const std::exception& e) {
        return fail(outputPath, "internal", e.what(), kExitFailure);
    }
}
