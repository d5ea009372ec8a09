// SPDX-License-Identifier: MIT
#include "core/import/kinetoimporter.h"

#include "core/import/chrometracebuilder.h"
#include "core/import/importfinish.h"
#include "core/import/mappedfile.h"
#include "core/import/numbertext.h"
#include "core/store/sessionerror.h"

#include <rapidjson/error/en.h>
#include <rapidjson/filereadstream.h>
#include <rapidjson/memorystream.h>
#include <rapidjson/reader.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

namespace ws {

namespace {

using rapidjson::SizeType;

// Where the parser is in the document. The SAX callbacks look only at the innermost context
// and the key that introduced the current value.
enum class Context : uint8_t { TopObject, EventArray, Event, Args, ArgArray, DeviceArray, Device, Skip };

enum class Field : uint8_t {
    None,
    // top level
    TraceEvents,
    DeviceProperties,
    // event
    Name,
    Cat,
    Ph,
    Ts,
    Dur,
    Pid,
    Tid,
    Id,
    Scope,
    Args,
    // args
    ArgDevice,
    ArgContext,
    ArgStream,
    ArgCorrelation,
    ArgRegisters,
    ArgSharedMemory,
    ArgBytes,
    ArgCbid,
    ArgGrid,
    ArgBlock,
    ArgName,
    ArgLabels,
    ArgSyncKind,
    ArgEventId,
    // deviceProperties entries
    DevId,
    DevName,
    DevTotalGlobalMem,
    DevComputeMajor,
    DevComputeMinor,
    DevMaxThreadsPerBlock,
    DevMaxThreadsPerSm,
    DevRegsPerBlock,
    DevRegsPerSm,
    DevWarpSize,
    DevSmemPerBlock,
    DevSmemPerSm,
    DevNumSms,
    DevSmemPerBlockOptin,
    DevL2CacheSize,
};

Field eventField(std::string_view k)
{
    switch (k.size()) {
    case 1:
        return k[0] == 's' ? Field::Scope : Field::None;
    case 2:
        if (k == "ph")
            return Field::Ph;
        if (k == "ts")
            return Field::Ts;
        if (k == "id")
            return Field::Id;
        return Field::None;
    case 3:
        if (k == "cat")
            return Field::Cat;
        if (k == "dur")
            return Field::Dur;
        if (k == "pid")
            return Field::Pid;
        if (k == "tid")
            return Field::Tid;
        return Field::None;
    case 4:
        if (k == "name")
            return Field::Name;
        if (k == "args")
            return Field::Args;
        return Field::None;
    default:
        return Field::None;
    }
}

Field argField(std::string_view k)
{
    static constexpr std::pair<std::string_view, Field> kFields[] = {
        {"device", Field::ArgDevice},
        {"context", Field::ArgContext},
        {"stream", Field::ArgStream},
        {"correlation", Field::ArgCorrelation},
        {"registers per thread", Field::ArgRegisters},
        {"shared memory", Field::ArgSharedMemory},
        {"bytes", Field::ArgBytes},
        {"cbid", Field::ArgCbid},
        {"grid", Field::ArgGrid},
        {"block", Field::ArgBlock},
        {"name", Field::ArgName},
        {"labels", Field::ArgLabels},
        {"cuda_sync_kind", Field::ArgSyncKind},
        {"wait_on_cuda_event_id", Field::ArgEventId},
    };
    for (const auto& [name, field] : kFields) {
        if (k == name)
            return field;
    }
    return Field::None;
}

Field deviceField(std::string_view k)
{
    static constexpr std::pair<std::string_view, Field> kFields[] = {
        {"id", Field::DevId},
        {"name", Field::DevName},
        {"totalGlobalMem", Field::DevTotalGlobalMem},
        {"computeMajor", Field::DevComputeMajor},
        {"computeMinor", Field::DevComputeMinor},
        {"maxThreadsPerBlock", Field::DevMaxThreadsPerBlock},
        {"maxThreadsPerMultiprocessor", Field::DevMaxThreadsPerSm},
        {"regsPerBlock", Field::DevRegsPerBlock},
        {"regsPerMultiprocessor", Field::DevRegsPerSm},
        {"warpSize", Field::DevWarpSize},
        {"sharedMemPerBlock", Field::DevSmemPerBlock},
        {"sharedMemPerMultiprocessor", Field::DevSmemPerSm},
        {"numSms", Field::DevNumSms},
        {"sharedMemPerBlockOptin", Field::DevSmemPerBlockOptin},
        {"l2CacheSize", Field::DevL2CacheSize},
    };
    for (const auto& [name, field] : kFields) {
        if (k == name)
            return field;
    }
    return Field::None;
}

int clampInt(int64_t v)
{
    return v < 0 ? 0 : (v > 0x7fffffff ? 0x7fffffff : static_cast<int>(v));
}

// Receives RapidJSON's SAX callbacks. Numbers arrive as text (kParseNumbersAsStringsFlag) so
// 16-digit microsecond timestamps convert to nanoseconds exactly.
template <typename Stream> class TraceHandler {
public:
    TraceHandler(ChromeTraceBuilder& builder, Stream& stream, size_t totalBytes, const ImportOptions& options,
        MappedFile* mapped)
        : m_builder(builder)
        , m_stream(stream)
        , m_totalBytes(totalBytes)
        , m_options(options)
        , m_mapped(mapped)
    {
        m_stack.reserve(16);
    }

    bool cancelled() const { return m_cancelled; }
    bool sawEvents() const { return m_sawEvents; }

    bool StartObject()
    {
        if (m_stack.empty()) {
            m_stack.push_back(Context::TopObject);
            return true;
        }
        switch (m_stack.back()) {
        case Context::EventArray:
            m_event.clear();
            m_stack.push_back(Context::Event);
            break;
        case Context::Event:
            m_stack.push_back(m_field == Field::Args ? Context::Args : Context::Skip);
            break;
        case Context::DeviceArray:
            m_device = DeviceInfo {};
            m_stack.push_back(Context::Device);
            break;
        default:
            m_stack.push_back(Context::Skip);
            break;
        }
        m_field = Field::None;
        return true;
    }

    bool EndObject(SizeType)
    {
        const Context done = m_stack.back();
        m_stack.pop_back();
        m_field = Field::None;
        if (done == Context::Event) {
            m_builder.add(m_event);
            if ((++m_count & 0x3FFF) == 0)
                return report();
        } else if (done == Context::Device) {
            if (m_device.maxWarpsPerSm == 0 && m_maxThreadsPerSm > 0 && m_device.warpSize > 0)
                m_device.maxWarpsPerSm = m_maxThreadsPerSm / m_device.warpSize;
            m_maxThreadsPerSm = 0;
            m_builder.addDevice(std::move(m_device));
        }
        return true;
    }

    bool StartArray()
    {
        if (m_stack.empty()) {
            // A bare array of events is a valid Chrome trace too.
            m_stack.push_back(Context::EventArray);
            m_sawEvents = true;
            return true;
        }
        switch (m_stack.back()) {
        case Context::TopObject:
            if (m_field == Field::TraceEvents) {
                m_stack.push_back(Context::EventArray);
                m_sawEvents = true;
            } else if (m_field == Field::DeviceProperties) {
                m_stack.push_back(Context::DeviceArray);
            } else {
                m_stack.push_back(Context::Skip);
            }
            break;
        case Context::Args:
            if (m_field == Field::ArgGrid || m_field == Field::ArgBlock) {
                m_arrayField = m_field;
                m_arrayIndex = 0;
                m_stack.push_back(Context::ArgArray);
            } else {
                m_stack.push_back(Context::Skip);
            }
            break;
        default:
            m_stack.push_back(Context::Skip);
            break;
        }
        m_field = Field::None;
        return true;
    }

    bool EndArray(SizeType)
    {
        m_stack.pop_back();
        m_field = Field::None;
        return true;
    }

    bool Key(const char* str, SizeType length, bool)
    {
        const std::string_view k(str, length);
        switch (m_stack.back()) {
        case Context::Event:
            m_field = eventField(k);
            break;
        case Context::Args:
            m_field = argField(k);
            m_key.assign(k);
            break;
        case Context::Device:
            m_field = deviceField(k);
            break;
        case Context::TopObject:
            if (k == "traceEvents")
                m_field = Field::TraceEvents;
            else if (k == "deviceProperties")
                m_field = Field::DeviceProperties;
            else
                m_field = Field::None;
            m_key.assign(k);
            break;
        default:
            break;
        }
        return true;
    }

    bool String(const char* str, SizeType length, bool) { return scalar(std::string_view(str, length), false); }
    bool RawNumber(const char* str, SizeType length, bool) { return scalar(std::string_view(str, length), true); }
    bool Bool(bool b) { return scalar(b ? "true" : "false", false); }
    bool Null() { return scalar({}, false); }
    // Not called with kParseNumbersAsStringsFlag, but part of the handler concept.
    bool Int(int) { return true; }
    bool Uint(unsigned) { return true; }
    bool Int64(int64_t) { return true; }
    bool Uint64(uint64_t) { return true; }
    bool Double(double) { return true; }

private:
    bool report()
    {
        if (m_options.cancel.isCancelled()) {
            m_cancelled = true;
            return false; // stops the parser; the importer turns this into SessionError(Cancelled)
        }
        const size_t position = m_stream.Tell();
        if (m_mapped)
            m_mapped->advance(position);
        if (m_options.progress && m_totalBytes > 0)
            m_options.progress(
                static_cast<double>(position) / static_cast<double>(m_totalBytes), "reading trace events");
        return true;
    }

    static void setId(TraceId& id, std::string_view text, bool isNumber)
    {
        id.present = true;
        if (isNumber) {
            if (const auto v = parseInteger(text)) {
                id.isString = false;
                id.number = *v;
                return;
            }
        }
        id.isString = true;
        id.text.assign(text);
    }

    static int64_t integerOr(std::string_view text, int64_t fallback)
    {
        const auto v = parseInteger(text);
        return v ? *v : fallback;
    }

    bool scalar(std::string_view text, bool isNumber)
    {
        const Context context = m_stack.empty() ? Context::Skip : m_stack.back();
        switch (context) {
        case Context::Event:
            eventScalar(text, isNumber);
            break;
        case Context::Args:
            argScalar(text, isNumber);
            break;
        case Context::ArgArray:
            if (m_arrayIndex < 3 && isNumber) {
                const int32_t v = clampInt(integerOr(text, 0));
                if (m_arrayField == Field::ArgGrid) {
                    m_event.args.grid[m_arrayIndex] = v;
                    m_event.args.hasGrid = true;
                } else {
                    m_event.args.block[m_arrayIndex] = v;
                    m_event.args.hasBlock = true;
                }
            }
            ++m_arrayIndex;
            break;
        case Context::Device:
            deviceScalar(text, isNumber);
            break;
        case Context::TopObject:
            m_builder.addTopLevel(m_key, text);
            break;
        default:
            break;
        }
        m_field = Field::None;
        return true;
    }

    void eventScalar(std::string_view text, bool isNumber)
    {
        auto& e = m_event;
        switch (m_field) {
        case Field::Name:
            e.name.assign(text);
            break;
        case Field::Cat:
            e.cat.assign(text);
            break;
        case Field::Ph:
            e.ph = text.empty() ? 0 : text[0];
            break;
        case Field::Ts:
            if (const auto v = microsecondsToNs(text)) {
                e.ts = *v;
                e.hasTs = true;
            }
            break;
        case Field::Dur:
            if (const auto v = microsecondsToNs(text))
                e.dur = *v;
            break;
        case Field::Pid:
            setId(e.pid, text, isNumber);
            break;
        case Field::Tid:
            setId(e.tid, text, isNumber);
            break;
        case Field::Id:
            e.id.assign(text);
            break;
        case Field::Scope:
            e.scope.assign(text);
            break;
        default:
            break;
        }
    }

    void argScalar(std::string_view text, bool isNumber)
    {
        auto& a = m_event.args;
        if (isNumber) {
            if (a.numberCount == a.numbers.size())
                a.numbers.emplace_back();
            auto& slot = a.numbers[a.numberCount++];
            slot.first.assign(m_key);
            slot.second.assign(text);
        }
        switch (m_field) {
        case Field::ArgDevice:
            a.device = integerOr(text, -1);
            break;
        case Field::ArgContext:
            a.context = integerOr(text, -1);
            break;
        case Field::ArgStream:
            a.stream = integerOr(text, -1);
            break;
        case Field::ArgCorrelation:
            a.correlation = integerOr(text, -1);
            break;
        case Field::ArgRegisters:
            a.registers = integerOr(text, -1);
            break;
        case Field::ArgSharedMemory:
            a.sharedMemory = integerOr(text, -1);
            break;
        case Field::ArgBytes:
            a.bytes = integerOr(text, -1);
            break;
        case Field::ArgCbid:
            a.cbid = integerOr(text, -1);
            break;
        case Field::ArgEventId:
            a.eventId = integerOr(text, -1);
            break;
        case Field::ArgName:
            if (!isNumber)
                a.name.assign(text);
            break;
        case Field::ArgLabels:
            if (!isNumber)
                a.labels.assign(text);
            break;
        case Field::ArgSyncKind:
            if (!isNumber)
                a.syncKind.assign(text);
            break;
        default:
            break;
        }
    }

    void deviceScalar(std::string_view text, bool isNumber)
    {
        auto& d = m_device;
        if (m_field == Field::DevName) {
            d.name.assign(text);
            return;
        }
        if (!isNumber)
            return;
        const int64_t v = integerOr(text, 0);
        switch (m_field) {
        case Field::DevId:
            d.id = static_cast<uint32_t>(clampInt(v));
            break;
        case Field::DevTotalGlobalMem:
            d.globalMemBytes = v;
            break;
        case Field::DevComputeMajor:
            d.ccMajor = clampInt(v);
            break;
        case Field::DevComputeMinor:
            d.ccMinor = clampInt(v);
            break;
        case Field::DevMaxThreadsPerBlock:
            d.maxThreadsPerBlock = clampInt(v);
            break;
        case Field::DevMaxThreadsPerSm:
            m_maxThreadsPerSm = clampInt(v);
            break;
        case Field::DevRegsPerBlock:
            d.regsPerBlock = clampInt(v);
            break;
        case Field::DevRegsPerSm:
            d.regsPerSm = clampInt(v);
            break;
        case Field::DevWarpSize:
            d.warpSize = clampInt(v);
            break;
        case Field::DevSmemPerBlock:
            d.smemPerBlock = v;
            break;
        case Field::DevSmemPerSm:
            d.smemPerSm = v;
            break;
        case Field::DevNumSms:
            d.smCount = clampInt(v);
            break;
        case Field::DevSmemPerBlockOptin:
            d.smemPerBlockOptin = v;
            break;
        case Field::DevL2CacheSize:
            d.l2Bytes = v;
            break;
        default:
            break;
        }
    }

    ChromeTraceBuilder& m_builder;
    Stream& m_stream;
    size_t m_totalBytes;
    const ImportOptions& m_options;
    MappedFile* m_mapped;
    std::vector<Context> m_stack;
    Field m_field = Field::None;
    Field m_arrayField = Field::None;
    int m_arrayIndex = 0;
    std::string m_key;
    ChromeTraceEvent m_event;
    DeviceInfo m_device;
    int m_maxThreadsPerSm = 0;
    int64_t m_count = 0;
    bool m_cancelled = false;
    bool m_sawEvents = false;
};

template <unsigned kExtraFlags, typename Stream>
SessionData parse(Stream& stream, size_t totalBytes, const std::string& name, const ImportOptions& options,
    MappedFile* mapped = nullptr)
{
    ChromeTraceBuilder builder(options);
    if (totalBytes > 0)
        builder.expectBytes(totalBytes);
    if (options.nvtxSink)
        builder.streamRangesTo(*options.nvtxSink, options.nvtxStreaming);
    TraceHandler<Stream> handler(builder, stream, totalBytes, options, mapped);
    if (mapped)
        mapped->advance(0);
    rapidjson::Reader reader;
    // Iterative parsing: nesting depth costs heap, not stack, so hostile input cannot overflow it.
    constexpr unsigned kFlags = rapidjson::kParseNumbersAsStringsFlag | rapidjson::kParseIterativeFlag | kExtraFlags;
    const rapidjson::ParseResult result = reader.Parse<kFlags>(stream, handler);
    if (handler.cancelled())
        throw SessionError(SessionError::Kind::Cancelled, name, "import cancelled");
    if (result.IsError()) {
        throw SessionError(SessionError::Kind::BadInput, name,
            std::string("not valid trace JSON: ") + rapidjson::GetParseError_En(result.Code()) + " (at byte "
                + std::to_string(result.Offset()) + ")");
    }
    if (!handler.sawEvents())
        throw SessionError(SessionError::Kind::BadInput, name,
            "JSON without a traceEvents array: not a Chrome trace / PyTorch profiler file");
    if (options.progress)
        options.progress(1.0, "ordering records");
    SessionData data = builder.finish();
    finishImport(data, ImportFormat::Kineto, name, builder.rangesStreamed());
    return data;
}

} // namespace

SessionData KinetoImporter::importFile(const std::string& path, const ImportOptions& options) const
{
    // Fast path: parse the mapped file in place (no copy of any string or number), releasing
    // the parsed-over pages as it goes.
    MappedFile mapped(path);
    if (mapped.isMapped()) {
        rapidjson::InsituStringStream stream(mapped.data());
        return parse<rapidjson::kParseInsituFlag>(stream, mapped.size(), path, options, &mapped);
    }
    // Pipes, devices, empty files: read through a buffer.
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"), &std::fclose);
    if (!file)
        throw SessionError(SessionError::Kind::NotFound, path, std::string("cannot open: ") + std::strerror(errno));
    std::vector<char> buffer(size_t(1) << 20);
    rapidjson::FileReadStream stream(file.get(), buffer.data(), buffer.size());
    SessionData data = parse<0>(stream, 0, path, options);
    if (std::ferror(file.get()))
        throw SessionError(SessionError::Kind::NotFound, path, "read error");
    return data;
}

SessionData KinetoImporter::importBytes(
    std::string_view bytes, const std::string& displayName, const ImportOptions& options) const
{
    rapidjson::MemoryStream stream(bytes.data(), bytes.size());
    return parse<0>(stream, bytes.size(), displayName, options);
}

} // namespace ws
