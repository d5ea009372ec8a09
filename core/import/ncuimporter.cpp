// SPDX-License-Identifier: MIT
#include "core/import/ncuimporter.h"

#include "core/import/importfinish.h"
#include "core/import/numbertext.h"
#include "core/ingest/devicepeaks.h"
#include "core/store/sessionerror.h"
#include "core/util/demangle.h"

#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <poll.h>
#include <spawn.h>
#include <stdexcept>
#include <sys/wait.h>
#include <unistd.h>
#include <unordered_map>

extern char** environ;

namespace ws {

namespace {

constexpr size_t kMaxCsvBytes = size_t(1) << 30;

// Identification columns of the raw page (all ncu versions seen); everything else is a metric.
bool isIdentificationColumn(std::string_view c)
{
    static constexpr std::string_view kColumns[] = {
        "ID",
        "Process ID",
        "Process Name",
        "Host Name",
        "Kernel Name",
        "Kernel Time",
        "Context",
        "Stream",
        "Block Size",
        "Grid Size",
        "Device",
        "CC",
        "Function Name",
        "Demangled Name",
    };
    for (auto k : kColumns) {
        if (c == k)
            return true;
    }
    // --nvtx inserts NVTX state columns such as "thread Domain:Push/Pop_Range:...".
    return c.find(':') != std::string_view::npos && c.find("__") == std::string_view::npos;
}

// "(256, 1, 1)" -> 256, 1, 1
bool parseDim(std::string_view text, int32_t& x, int32_t& y, int32_t& z)
{
    if (text.size() < 2 || text.front() != '(' || text.back() != ')')
        return false;
    text = text.substr(1, text.size() - 2);
    int32_t v[3] = {0, 0, 0};
    for (int i = 0; i < 3; ++i) {
        const size_t comma = text.find(',');
        const auto n = parseNumber(text.substr(0, comma), true);
        if (!n || *n < 0 || *n > 2147483647.0)
            return false;
        v[i] = static_cast<int32_t>(*n);
        if (comma == std::string_view::npos) {
            if (i != 2)
                return false;
            break;
        }
        text.remove_prefix(comma + 1);
    }
    x = v[0];
    y = v[1];
    z = v[2];
    return true;
}

// Scale of a time unit to nanoseconds, for when --print-units base was not given.
double nsPerUnit(std::string_view unit)
{
    if (unit.empty() || unit == "ns" || unit == "nsecond")
        return 1;
    if (unit == "us" || unit == "usecond")
        return 1e3;
    if (unit == "ms" || unit == "msecond")
        return 1e6;
    if (unit == "s" || unit == "second")
        return 1e9;
    return 0;
}

int32_t toI32(double v)
{
    if (!(v > 0))
        return 0;
    return v > 2147483647.0 ? 2147483647 : static_cast<int32_t>(v);
}

// Runs `ncu --import <report> --csv --page raw --print-units base` and returns its stdout.
std::string readReportThroughNcu(const std::string& path, const ImportOptions& options)
{
    int pipeFds[2];
    if (::pipe(pipeFds) != 0)
        throw SessionError(SessionError::Kind::BadInput, path, std::string("pipe: ") + std::strerror(errno));
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, pipeFds[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&actions, pipeFds[0]);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    std::string exe = options.ncuExecutable.empty() ? std::string("ncu") : options.ncuExecutable;
    std::vector<std::string> args = {exe, "--import", path, "--csv", "--page", "raw", "--print-units", "base"};
    std::vector<char*> argv;
    argv.reserve(args.size() + 1);
    for (auto& a : args)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t child = 0;
    const int rc = posix_spawnp(&child, exe.c_str(), &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(pipeFds[1]);
    if (rc != 0) {
        ::close(pipeFds[0]);
        throw SessionError(SessionError::Kind::BadInput, path,
            "an Nsight Compute report (.ncu-rep) is read through `ncu --import`, and " + exe + " could not be started ("
                + std::strerror(rc) + "); put ncu on PATH or export CSV with ncu --csv --page raw --print-units base");
    }
    std::string out;
    char buffer[1 << 16];
    bool cancelled = false;
    while (true) {
        pollfd pfd {pipeFds[0], POLLIN, 0};
        const int ready = ::poll(&pfd, 1, 200);
        if (options.cancel.isCancelled()) {
            cancelled = true;
            break;
        }
        if (ready < 0 && errno == EINTR)
            continue;
        if (ready <= 0)
            continue;
        const ssize_t n = ::read(pipeFds[0], buffer, sizeof buffer);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        out.append(buffer, static_cast<size_t>(n));
        if (out.size() > kMaxCsvBytes) {
            cancelled = true;
            break;
        }
        if (options.progress)
            options.progress(0.0, "reading the report through ncu --import");
    }
    ::close(pipeFds[0]);
    if (cancelled)
        ::kill(child, SIGTERM);
    int status = 0;
    while (::waitpid(child, &status, 0) < 0 && errno == EINTR) { }
    if (cancelled && options.cancel.isCancelled())
        throw SessionError(SessionError::Kind::Cancelled, path, "import cancelled");
    if (cancelled)
        throw SessionError(SessionError::Kind::BadInput, path, "ncu --import printed more than 1 GiB");
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        throw SessionError(SessionError::Kind::BadInput, path,
            exe + " --import failed (exit status " + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1)
                + "): not a readable Nsight Compute report?");
    return out;
}

} // namespace

bool NcuImporter::isReportFile(const std::string& path)
{
    const std::string_view p(path);
    return p.size() >= 8 && p.substr(p.size() - 8) == ".ncu-rep";
}

SessionData NcuImporter::fromTable(const NcuCsvTable& table, const std::string& displayName)
{
    SessionData data;
    const auto col = [&](std::string_view name) { return table.column(name); };
    const auto cID = col("ID");
    const auto cPid = col("Process ID");
    const auto cProcess = col("Process Name");
    const auto cHost = col("Host Name");
    const auto cName = col("Kernel Name");
    const auto cContext = col("Context");
    const auto cStream = col("Stream");
    const auto cBlock = col("Block Size");
    const auto cGrid = col("Grid Size");
    const auto cDevice = col("Device");
    const auto cDuration = col("gpu__time_duration.sum");
    const auto cRegisters = col("launch__registers_per_thread");
    const auto cStaticSmem = col("launch__shared_mem_per_block_static");
    const auto cDynamicSmem = col("launch__shared_mem_per_block_dynamic");
    const auto cClusterX = col("launch__cluster_dim_x");
    const auto cClusterY = col("launch__cluster_dim_y");
    const auto cClusterZ = col("launch__cluster_dim_z");
    if (!cName)
        throw SessionError(SessionError::Kind::BadInput, displayName, "ncu CSV without a \"Kernel Name\" column");

    // Metric definitions: every column that is not an identification column.
    std::vector<std::pair<size_t, uint32_t>> metricColumns; // column, metric id
    for (size_t i = 0; i < table.columns.size(); ++i) {
        if (isIdentificationColumn(table.columns[i]) || table.columns[i].empty())
            continue;
        MetricDef def;
        def.id = static_cast<uint32_t>(data.metricDefs.size() + 1);
        def.name = table.columns[i];
        def.unit = i < table.units.size() ? table.units[i] : std::string();
        data.metricDefs.push_back(def);
        metricColumns.emplace_back(i, def.id);
    }
    const double durationScale = cDuration ? nsPerUnit(table.units[*cDuration]) : 0;

    const auto cell = [](const std::vector<std::string>& row, const std::optional<size_t>& c) -> std::string_view {
        return c && *c < row.size() ? std::string_view(row[*c]) : std::string_view();
    };
    const auto number = [&](const std::vector<std::string>& row, const std::optional<size_t>& c) {
        return parseNumber(cell(row, c), true);
    };

    std::map<int64_t, std::string> processes;
    std::map<std::pair<int64_t, uint32_t>, size_t> deviceRows; // (pid, device) -> first row index
    TimeNs clock = 0;
    int64_t withoutDuration = 0;
    std::unordered_map<StringId, StringId> shortNames;
    for (size_t r = 0; r < table.rows.size(); ++r) {
        const auto& row = table.rows[r];
        KernelRecord k;
        k.pid = parseInteger(cell(row, cPid)).value_or(0);
        k.deviceId = static_cast<uint32_t>(parseInteger(cell(row, cDevice)).value_or(0));
        k.contextId = static_cast<uint32_t>(parseInteger(cell(row, cContext)).value_or(0));
        k.streamId = static_cast<uint32_t>(parseInteger(cell(row, cStream)).value_or(0));
        k.correlationId = static_cast<uint32_t>(parseInteger(cell(row, cID)).value_or(0));
        k.demangledName = data.strings.intern(cell(row, cName));
        auto [it, inserted] = shortNames.try_emplace(k.demangledName, 0);
        if (inserted)
            it->second = data.strings.intern(shortName(data.str(k.demangledName)));
        k.shortName = it->second;
        parseDim(cell(row, cBlock), k.blockX, k.blockY, k.blockZ);
        parseDim(cell(row, cGrid), k.gridX, k.gridY, k.gridZ);
        k.registersPerThread = toI32(number(row, cRegisters).value_or(0));
        k.staticSmemBytes = toI32(number(row, cStaticSmem).value_or(0));
        k.dynamicSmemBytes = toI32(number(row, cDynamicSmem).value_or(0));
        k.clusterX = toI32(number(row, cClusterX).value_or(0));
        k.clusterY = toI32(number(row, cClusterY).value_or(0));
        k.clusterZ = toI32(number(row, cClusterZ).value_or(0));
        double duration = number(row, cDuration).value_or(0) * durationScale;
        if (!(duration >= 0) || duration > 1e15)
            duration = 0;
        if (duration == 0)
            ++withoutDuration;
        k.start = clock;
        k.end = clock + static_cast<TimeNs>(std::llround(duration));
        clock = k.end;
        data.kernels.push_back(k);
        processes.try_emplace(k.pid, std::string(cell(row, cProcess)));
        deviceRows.try_emplace({k.pid, k.deviceId}, r);
        if (r == 0 && cHost)
            data.environment["ncu.host"] = std::string(cell(row, cHost));

        const int64_t kernelId = static_cast<int64_t>(r + 1); // finishImport numbers kernels in this order
        for (const auto& [c, metric] : metricColumns) {
            if (const auto v = parseNumber(row[c], true))
                data.kernelMetrics.push_back({kernelId, metric, *v});
        }
    }

    for (const auto& [pid, name] : processes) {
        ProcessInfo p;
        p.pid = pid;
        p.name = name;
        data.processes.push_back(std::move(p));
    }
    // Device limits from the device__attribute_* metrics of the first kernel on each device.
    for (const auto& [key, r] : deviceRows) {
        const auto& row = table.rows[r];
        const auto attr = [&](const char* name) -> int64_t {
            const auto v = number(row, col(std::string("device__attribute_") + name));
            return v && *v >= 0 && *v < 9.2e18 ? static_cast<int64_t>(*v) : 0;
        };
        DeviceInfo d;
        d.pid = key.first;
        d.id = key.second;
        d.name = std::string(cell(row, col("device__attribute_display_name")));
        d.ccMajor = static_cast<int>(attr("compute_capability_major"));
        d.ccMinor = static_cast<int>(attr("compute_capability_minor"));
        d.smCount = static_cast<int>(attr("multiprocessor_count"));
        d.smClockKhz = attr("clock_rate");
        d.smClockMaxKhz = attr("max_gpu_frequency_khz") ? attr("max_gpu_frequency_khz") : d.smClockKhz;
        d.memClockKhz = attr("memory_clock_rate");
        d.memBusWidthBits = static_cast<int>(attr("global_memory_bus_width"));
        d.l2Bytes = attr("l2_cache_size");
        d.globalMemBytes = attr("total_memory");
        d.regsPerSm = static_cast<int>(attr("max_registers_per_multiprocessor"));
        d.regsPerBlock = static_cast<int>(attr("max_registers_per_block"));
        d.smemPerSm = attr("max_shared_memory_per_multiprocessor");
        d.smemPerBlock = attr("max_shared_memory_per_block");
        d.smemPerBlockOptin = attr("max_shared_memory_per_block_optin");
        d.smemReservedPerBlock = attr("reserved_shared_memory_per_block");
        d.maxWarpsPerSm = static_cast<int>(attr("max_warps_per_multiprocessor"));
        d.maxBlocksPerSm = static_cast<int>(attr("max_blocks_per_multiprocessor"));
        d.maxThreadsPerBlock = static_cast<int>(attr("max_threads_per_block"));
        if (const int64_t w = attr("warp_size"))
            d.warpSize = static_cast<int>(w);
        fillDevicePeaks(d);
        data.devices.push_back(std::move(d));
    }
    data.meta["import.timestamps"]
        = "synthetic: ncu records no start times; kernels are laid out back to back in profiling order";
    data.meta["import.ncu.skippedLines"] = std::to_string(table.skippedLines);
    if (withoutDuration > 0)
        data.meta["import.ncu.kernelsWithoutDuration"] = std::to_string(withoutDuration);
    finishImport(data, ImportFormat::NcuCsv, displayName);
    return data;
}

SessionData NcuImporter::importBytes(
    std::string_view bytes, const std::string& displayName, const ImportOptions& options) const
{
    if (options.progress)
        options.progress(0.0, "parsing ncu CSV");
    NcuCsvTable table;
    try {
        table = readNcuCsvTable(bytes);
    } catch (const std::invalid_argument& e) {
        throw SessionError(SessionError::Kind::BadInput, displayName, e.what());
    }
    if (options.cancel.isCancelled())
        throw SessionError(SessionError::Kind::Cancelled, displayName, "import cancelled");
    SessionData data = fromTable(table, displayName);
    if (options.progress)
        options.progress(1.0, "parsing ncu CSV");
    return data;
}

SessionData NcuImporter::importFile(const std::string& path, const ImportOptions& options) const
{
    if (isReportFile(path)) {
        if (FILE* f = std::fopen(path.c_str(), "rb"))
            std::fclose(f);
        else
            throw SessionError(SessionError::Kind::NotFound, path, std::string("cannot open: ") + std::strerror(errno));
        const std::string csv = readReportThroughNcu(path, options);
        SessionData data = importBytes(csv, path, options);
        data.meta["import.ncu.readThrough"] = "ncu --import --csv --page raw --print-units base";
        return data;
    }
    return importBytes(readWholeFile(path, kMaxCsvBytes), path, options);
}

} // namespace ws
