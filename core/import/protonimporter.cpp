// SPDX-License-Identifier: MIT
#include "core/import/protonimporter.h"

#include "core/import/importfinish.h"
#include "core/import/numbertext.h"
#include "core/ingest/devicepeaks.h"
#include "core/store/sessionerror.h"
#include "core/util/demangle.h"

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>

#include <cmath>
#include <map>
#include <unordered_map>

namespace ws {

namespace {

constexpr size_t kMaxFileBytes = size_t(1) << 30;
constexpr int64_t kProtonPid = 0; // a hatchet tree has no process; one synthetic process holds it
constexpr int64_t kProtonTid = 0;

using Value = rapidjson::Value;

const Value* member(const Value& object, const char* name)
{
    if (!object.IsObject())
        return nullptr;
    const auto it = object.FindMember(name);
    return it == object.MemberEnd() ? nullptr : &it->value;
}

// Metric values are numbers, but device_id is written as a string ("0").
std::optional<double> numberOf(const Value* v)
{
    if (!v)
        return std::nullopt;
    if (v->IsNumber())
        return v->GetDouble();
    if (v->IsString())
        return parseNumber(std::string_view(v->GetString(), v->GetStringLength()));
    return std::nullopt;
}

bool isBookkeepingMetric(std::string_view key)
{
    return key == "count" || key == "time (ns)" || key == "device_id" || key == "device_type"
        || key == "start_time (ns)" || key == "end_time (ns)" || key == "stream_id";
}

class TreeReader {
public:
    TreeReader(const std::string& name, const ImportOptions& options)
        : m_name(name)
        , m_options(options)
    {
    }

    SessionData read(const Value& tree, const Value* deviceInfo)
    {
        if (deviceInfo)
            readDevices(*deviceInfo);
        walk(tree);
        ProcessInfo p;
        p.pid = kProtonPid;
        p.name = "Proton profile";
        m_data.processes.push_back(p);
        m_data.threads.push_back({kProtonPid, kProtonTid, "Proton scopes"});
        m_data.meta["import.timestamps"]
            = "synthetic: a Proton tree holds per-scope totals; launches are laid out back to back, "
              "each kernel node's time split evenly over its count";
        finishImport(m_data, ImportFormat::Proton, m_name);
        return std::move(m_data);
    }

private:
    [[noreturn]] void fail(const std::string& why) const
    {
        throw SessionError(SessionError::Kind::BadInput, m_name, why);
    }

    void readDevices(const Value& info)
    {
        if (!info.IsObject())
            return;
        for (const auto& type : info.GetObject()) {
            if (!type.value.IsObject())
                continue;
            for (const auto& dev : type.value.GetObject()) {
                const auto id = parseInteger(std::string_view(dev.name.GetString(), dev.name.GetStringLength()));
                if (!id || *id < 0 || *id > 0xFFFF || !dev.value.IsObject())
                    continue;
                DeviceInfo d;
                d.id = static_cast<uint32_t>(*id);
                const auto num = [&](const char* key) {
                    const auto v = numberOf(member(dev.value, key));
                    return v && *v >= 0 && *v < 9e18 ? static_cast<int64_t>(*v) : int64_t(0);
                };
                std::string arch;
                if (const Value* a = member(dev.value, "arch"); a && a->IsString())
                    arch = a->GetString();
                else if (a && a->IsNumber())
                    arch = std::to_string(a->GetInt64());
                // "90" / "90a" -> 9.0, "100" -> 10.0 (CUDA); AMD gfx names are kept as the name only.
                size_t digits = 0;
                while (digits < arch.size() && arch[digits] >= '0' && arch[digits] <= '9')
                    ++digits;
                if (digits >= 2 && digits <= 4) {
                    const int cc = std::stoi(arch.substr(0, digits));
                    d.ccMajor = cc / 10;
                    d.ccMinor = cc % 10;
                }
                d.name = std::string(type.name.GetString()) + (arch.empty() ? "" : " arch " + arch);
                d.smClockKhz = num("clock_rate");
                d.smClockMaxKhz = d.smClockKhz;
                d.memClockKhz = num("memory_clock_rate");
                d.memBusWidthBits = static_cast<int>(std::min<int64_t>(num("bus_width"), 1 << 20));
                d.smCount = static_cast<int>(std::min<int64_t>(num("num_sms"), 1 << 20));
                fillDevicePeaks(d);
                m_data.devices.push_back(std::move(d));
            }
        }
    }

    uint32_t metricId(std::string_view key)
    {
        auto it = m_metricIds.find(std::string(key));
        if (it != m_metricIds.end())
            return it->second;
        MetricDef def;
        def.id = static_cast<uint32_t>(m_data.metricDefs.size() + 1);
        def.name = "proton." + std::string(key);
        def.section = "Proton";
        m_data.metricDefs.push_back(def);
        m_metricIds.emplace(std::string(key), def.id);
        return def.id;
    }

    void addKernel(std::string_view name, const Value& metrics)
    {
        const double count = numberOf(member(metrics, "count")).value_or(0);
        const double time = numberOf(member(metrics, "time (ns)")).value_or(0);
        if (!(count >= 1) || !(time >= 0) || !std::isfinite(time))
            return;
        if (count > static_cast<double>(ProtonImporter::kMaxLaunches - m_launches))
            fail("the tree expands to more than " + std::to_string(ProtonImporter::kMaxLaunches) + " kernel launches");
        if (time > 1e17)
            fail("a kernel node's time (ns) is implausibly large");
        const auto launches = static_cast<int64_t>(count);
        const auto total = static_cast<int64_t>(std::llround(time));
        m_launches += launches;

        const StringId raw = m_data.strings.intern(name);
        const bool mangled = name.rfind("_Z", 0) == 0;
        const StringId demangled = mangled ? m_data.strings.intern(demangle(name)) : raw;
        const StringId shortId = m_data.strings.intern(shortName(m_data.str(demangled)));
        const uint32_t device = static_cast<uint32_t>(numberOf(member(metrics, "device_id")).value_or(0));

        // Per-launch shares of the node's other numeric metrics (flops, bytes, user metrics).
        std::vector<std::pair<uint32_t, double>> extra;
        for (const auto& m : metrics.GetObject()) {
            const std::string_view key(m.name.GetString(), m.name.GetStringLength());
            if (isBookkeepingMetric(key) || !m.value.IsNumber())
                continue;
            extra.emplace_back(metricId(key), m.value.GetDouble() / count);
        }

        const int64_t base = total / launches;
        int64_t remainder = total % launches;
        for (int64_t i = 0; i < launches; ++i) {
            KernelRecord k;
            k.pid = kProtonPid;
            k.deviceId = device;
            k.start = m_clock;
            k.end = m_clock + base + (remainder > 0 ? 1 : 0);
            if (remainder > 0)
                --remainder;
            m_clock = k.end;
            k.mangledName = mangled ? raw : 0;
            k.demangledName = demangled;
            k.shortName = shortId;
            m_data.kernels.push_back(k);
            const auto kernelId = static_cast<int64_t>(m_data.kernels.size());
            for (const auto& [id, value] : extra)
                m_data.kernelMetrics.push_back({kernelId, id, value});
        }
        if ((m_data.kernels.size() & 0xFFFF) == 0 && m_options.cancel.isCancelled())
            throw SessionError(SessionError::Kind::Cancelled, m_name, "import cancelled");
    }

    // Depth-first over the tree without recursion (a hostile file may nest deeply).
    void walk(const Value& root)
    {
        struct Frame {
            const Value* node;
            rapidjson::SizeType next; // next child to visit
            size_t range;             // index of its NVTX-like range, or npos
        };
        constexpr size_t npos = static_cast<size_t>(-1);
        std::vector<Frame> stack;
        enter(root, true);
        stack.push_back({&root, 0, npos});
        while (!stack.empty()) {
            Frame& f = stack.back();
            const Value* children = member(*f.node, "children");
            if (children && children->IsArray() && f.next < children->Size()) {
                const Value& child = (*children)[f.next++];
                const TimeNs start = m_clock;
                size_t range = npos;
                if (enter(child, false)) {
                    // Recorded on the way in (pre-order), so a scope precedes the scopes inside it.
                    NvtxRangeRecord r;
                    r.pid = kProtonPid;
                    r.tid = kProtonTid;
                    r.endTid = kProtonTid;
                    r.start = start;
                    r.end = start;
                    r.name = m_data.strings.intern(frameName(child));
                    range = m_data.nvtxRanges.size();
                    m_data.nvtxRanges.push_back(r);
                }
                stack.push_back({&child, 0, range}); // invalidates f: continue at once
                continue;
            }
            if (f.range != npos)
                m_data.nvtxRanges[f.range].end = m_clock;
            stack.pop_back();
        }
        // Scopes without kernel time under them would be zero-length ranges: leave them out.
        std::erase_if(m_data.nvtxRanges, [](const NvtxRangeRecord& r) { return r.end == r.start; });
        // Kernel records were numbered in creation order above; finishImport sorts by start,
        // which is the same order, so the kernel metric ids stay valid.
    }

    static std::string_view frameName(const Value& node)
    {
        const Value* frame = member(node, "frame");
        const Value* name = frame ? member(*frame, "name") : nullptr;
        if (name && name->IsString())
            return {name->GetString(), name->GetStringLength()};
        return {};
    }

    // Handles a node's own metrics; returns true when it is a scope (a node to draw as a range).
    bool enter(const Value& node, bool isRoot)
    {
        if (!node.IsObject())
            fail("a tree node is not a JSON object");
        if (!member(node, "frame"))
            fail("a tree node without \"frame\": not a Proton hatchet file");
        const Value* metrics = member(node, "metrics");
        const Value* children = member(node, "children");
        const bool hasChildren = children && children->IsArray() && !children->Empty();
        const bool isKernel = metrics && metrics->IsObject() && member(*metrics, "time (ns)")
            && (member(*metrics, "device_id") || member(*metrics, "device_type") || !hasChildren);
        if (isKernel && !isRoot)
            addKernel(frameName(node), *metrics);
        return !isRoot && !isKernel;
    }

    const std::string& m_name;
    const ImportOptions& m_options;
    SessionData m_data;
    TimeNs m_clock = 0;
    int64_t m_launches = 0;
    std::map<std::string, uint32_t> m_metricIds;
};

} // namespace

SessionData ProtonImporter::importBytes(
    std::string_view bytes, const std::string& displayName, const ImportOptions& options) const
{
    if (options.progress)
        options.progress(0.0, "parsing Proton profile");
    rapidjson::Document doc;
    // Iterative: nesting costs heap, not stack. The pool allocator frees without recursion too.
    doc.Parse<rapidjson::kParseIterativeFlag>(bytes.data(), bytes.size());
    if (doc.HasParseError())
        throw SessionError(SessionError::Kind::BadInput, displayName,
            std::string("not valid JSON: ") + rapidjson::GetParseError_En(doc.GetParseError()) + " (at byte "
                + std::to_string(doc.GetErrorOffset()) + ")");
    const Value* tree = nullptr;
    const Value* deviceInfo = nullptr;
    if (doc.IsArray() && !doc.Empty() && doc[0].IsObject() && member(doc[0], "frame")) {
        tree = &doc[0];
        if (doc.Size() > 1)
            deviceInfo = &doc[1];
    } else if (doc.IsObject() && member(doc, "frame")) {
        tree = &doc;
    }
    if (!tree)
        throw SessionError(SessionError::Kind::BadInput, displayName,
            "JSON that is not a Proton hatchet tree ([{\"frame\": ..., \"metrics\": ..., "
            "\"children\": [...]}, device_info] expected)");
    TreeReader reader(displayName, options);
    SessionData data = reader.read(*tree, deviceInfo);
    if (options.progress)
        options.progress(1.0, "parsing Proton profile");
    return data;
}

SessionData ProtonImporter::importFile(const std::string& path, const ImportOptions& options) const
{
    return importBytes(readWholeFile(path, kMaxFileBytes), path, options);
}

} // namespace ws
