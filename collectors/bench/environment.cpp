// SPDX-License-Identifier: MIT
// What a benchmark result must say about where it ran: GPU, driver, runtime, clocks, power.
#include "warpscope/bench.h"

#include <dlfcn.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cstdio>
#include <ctime>

namespace ws::bench {

namespace {

std::string versionText(int v)
{
    // CUDA encodes 13.0 as 13000.
    return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

int attribute(cudaDeviceAttr a, int device)
{
    int v = 0;
    if (cudaDeviceGetAttribute(&v, a, device) != cudaSuccess)
        return 0;
    return v;
}

std::string uuidText(const cudaUUID_t& u)
{
    std::string s = "GPU-";
    char buf[3];
    for (int i = 0; i < 16; ++i) {
        std::snprintf(buf, sizeof buf, "%02x", static_cast<unsigned char>(u.bytes[i]));
        s += buf;
        if (i == 3 || i == 5 || i == 7 || i == 9)
            s += '-';
    }
    return s;
}

// The few NVML entry points we read, resolved at run time: the driver provides
// libnvidia-ml.so.1, the toolkit only a stub, and a missing NVML must not stop a benchmark.
class Nvml {
public:
    using Device = void*;
    Nvml()
    {
        m_lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
        if (!m_lib)
            return;
        m_init = sym<int (*)()>("nvmlInit_v2");
        m_shutdown = sym<int (*)()>("nvmlShutdown");
        m_byBusId = sym<int (*)(const char*, Device*)>("nvmlDeviceGetHandleByPciBusId_v2");
        m_clock = sym<int (*)(Device, int, unsigned*)>("nvmlDeviceGetClockInfo");
        m_maxClock = sym<int (*)(Device, int, unsigned*)>("nvmlDeviceGetMaxClockInfo");
        m_temp = sym<int (*)(Device, int, unsigned*)>("nvmlDeviceGetTemperature");
        m_power = sym<int (*)(Device, unsigned*)>("nvmlDeviceGetPowerUsage");
        m_powerLimit = sym<int (*)(Device, unsigned*)>("nvmlDeviceGetEnforcedPowerLimit");
        m_reasons = sym<int (*)(Device, unsigned long long*)>("nvmlDeviceGetCurrentClocksEventReasons");
        if (!m_reasons)
            m_reasons = sym<int (*)(Device, unsigned long long*)>("nvmlDeviceGetCurrentClocksThrottleReasons");
        m_driver = sym<int (*)(char*, unsigned)>("nvmlSystemGetDriverVersion");
        m_ok = m_init && m_shutdown && m_init() == 0;
    }
    ~Nvml()
    {
        if (m_ok)
            m_shutdown();
        if (m_lib)
            dlclose(m_lib);
    }
    Nvml(const Nvml&) = delete;
    Nvml& operator=(const Nvml&) = delete;

    void read(std::map<std::string, std::string>& env, int cudaDevice, const std::string& prefix) const
    {
        if (!m_ok || !m_byBusId)
            return;
        char busId[32] = {};
        if (cudaDeviceGetPCIBusId(busId, sizeof busId, cudaDevice) != cudaSuccess)
            return;
        Device d = nullptr;
        if (m_byBusId(busId, &d) != 0)
            return;
        unsigned v = 0;
        constexpr int kClockSm = 1;
        constexpr int kClockMem = 2;
        constexpr int kTemperatureGpu = 0;
        if (m_clock && m_clock(d, kClockSm, &v) == 0)
            env[prefix + "sm_clock_mhz"] = std::to_string(v);
        if (m_clock && m_clock(d, kClockMem, &v) == 0)
            env[prefix + "mem_clock_mhz"] = std::to_string(v);
        if (m_maxClock && m_maxClock(d, kClockSm, &v) == 0)
            env[prefix + "sm_clock_max_mhz"] = std::to_string(v);
        if (m_temp && m_temp(d, kTemperatureGpu, &v) == 0)
            env[prefix + "temperature_c"] = std::to_string(v);
        if (m_power && m_power(d, &v) == 0)
            env[prefix + "power_w"] = std::to_string(v / 1000.0);
        if (m_powerLimit && m_powerLimit(d, &v) == 0)
            env[prefix + "power_limit_w"] = std::to_string(v / 1000.0);
        unsigned long long reasons = 0;
        if (m_reasons && m_reasons(d, &reasons) == 0) {
            char buf[32];
            std::snprintf(buf, sizeof buf, "0x%llx", reasons);
            env[prefix + "clock_event_reasons"] = buf;
        }
        char driver[96] = {};
        if (m_driver && m_driver(driver, sizeof driver) == 0)
            env["nvml.driver_version"] = driver;
    }

private:
    template <typename F> F sym(const char* name) { return reinterpret_cast<F>(dlsym(m_lib, name)); }

    void* m_lib = nullptr;
    bool m_ok = false;
    int (*m_init)() = nullptr;
    int (*m_shutdown)() = nullptr;
    int (*m_byBusId)(const char*, Device*) = nullptr;
    int (*m_clock)(Device, int, unsigned*) = nullptr;
    int (*m_maxClock)(Device, int, unsigned*) = nullptr;
    int (*m_temp)(Device, int, unsigned*) = nullptr;
    int (*m_power)(Device, unsigned*) = nullptr;
    int (*m_powerLimit)(Device, unsigned*) = nullptr;
    int (*m_reasons)(Device, unsigned long long*) = nullptr;
    int (*m_driver)(char*, unsigned) = nullptr;
};

} // namespace

DeviceInfo describeDevice(int device)
{
    DeviceInfo d;
    cudaDeviceProp p {};
    if (cudaGetDeviceProperties(&p, device) != cudaSuccess)
        return d;
    d.id = static_cast<uint32_t>(device);
    d.pid = static_cast<int64_t>(getpid());
    d.name = p.name;
    d.uuid = uuidText(p.uuid);
    d.ccMajor = p.major;
    d.ccMinor = p.minor;
    d.smCount = p.multiProcessorCount;
    d.smClockKhz = attribute(cudaDevAttrClockRate, device);
    d.smClockMaxKhz = d.smClockKhz;
    d.memClockKhz = attribute(cudaDevAttrMemoryClockRate, device);
    d.memBusWidthBits = attribute(cudaDevAttrGlobalMemoryBusWidth, device);
    d.l2Bytes = p.l2CacheSize;
    d.globalMemBytes = static_cast<int64_t>(p.totalGlobalMem);
    d.regsPerSm = p.regsPerMultiprocessor;
    d.regsPerBlock = p.regsPerBlock;
    d.smemPerSm = static_cast<int64_t>(p.sharedMemPerMultiprocessor);
    d.smemPerBlock = static_cast<int64_t>(p.sharedMemPerBlock);
    d.smemPerBlockOptin = static_cast<int64_t>(p.sharedMemPerBlockOptin);
    d.smemReservedPerBlock = static_cast<int64_t>(p.reservedSharedMemPerBlock);
    d.warpSize = p.warpSize;
    d.maxWarpsPerSm = p.warpSize ? p.maxThreadsPerMultiProcessor / p.warpSize : 0;
    d.maxBlocksPerSm = p.maxBlocksPerMultiProcessor;
    d.maxThreadsPerBlock = p.maxThreadsPerBlock;
    d.dramBandwidthBytesPerS = 2.0 * static_cast<double>(d.memClockKhz) * 1e3 * d.memBusWidthBits / 8.0;
    return d;
}

std::map<std::string, std::string> collectEnvironment(int device)
{
    std::map<std::string, std::string> env;
    int v = 0;
    if (cudaDriverGetVersion(&v) == cudaSuccess)
        env["cuda.driver_api_version"] = versionText(v);
    if (cudaRuntimeGetVersion(&v) == cudaSuccess)
        env["cuda.runtime_version"] = versionText(v);
    const auto d = describeDevice(device);
    env["gpu.index"] = std::to_string(device);
    env["gpu.name"] = d.name;
    env["gpu.uuid"] = d.uuid;
    env["gpu.compute_capability"] = std::to_string(d.ccMajor) + "." + std::to_string(d.ccMinor);
    env["gpu.sm_count"] = std::to_string(d.smCount);
    env["gpu.l2_bytes"] = std::to_string(d.l2Bytes);
    env["gpu.memory_bytes"] = std::to_string(d.globalMemBytes);
    env["gpu.sm_clock_peak_khz"] = std::to_string(d.smClockKhz);
    env["gpu.mem_clock_peak_khz"] = std::to_string(d.memClockKhz);
    char busId[32] = {};
    if (cudaDeviceGetPCIBusId(busId, sizeof busId, device) == cudaSuccess)
        env["gpu.pci_bus_id"] = busId;
    char host[256] = {};
    if (gethostname(host, sizeof host - 1) == 0)
        env["host.name"] = host;
    utsname u {};
    if (uname(&u) == 0)
        env["host.kernel"] = std::string(u.sysname) + " " + u.release + " " + u.machine;
    env["host.compiler"] = __VERSION__;
    char when[32] = {};
    const std::time_t now = std::time(nullptr);
    std::tm tm {};
    gmtime_r(&now, &tm);
    std::strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
    env["bench.started_utc"] = when;
    return env;
}

void addGpuState(std::map<std::string, std::string>& env, int device, const std::string& prefix)
{
    const Nvml nvml;
    nvml.read(env, device, prefix);
}

} // namespace ws::bench
