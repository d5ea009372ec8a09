// SPDX-License-Identifier: MIT
#include "core/export/csvexport.h"

#include "core/util/numbertext.h"

#include "core/report/textescape.h"
#include "core/store/rowcodec.h"

#include <cstdio>
#include <initializer_list>
#include <stdexcept>
#include <type_traits>
#include <vector>

namespace ws {

namespace {

constexpr size_t kFlushBytes = size_t(1) << 20;

// Accumulates rows in a buffer flushed every MiB, so a 10M-row table never sits in memory.
class CsvWriter {
public:
    explicit CsvWriter(std::ostream& out)
        : m_out(out)
    {
    }

    void header(std::initializer_list<std::string_view> names) { header(std::vector<std::string_view>(names)); }
    void header(const std::vector<std::string_view>& names)
    {
        for (const auto name : names)
            field(name);
        endRow();
        m_rows = 0;
    }
    CsvWriter& field(std::string_view text)
    {
        separator();
        appendCsvField(m_buf, text);
        return *this;
    }
    CsvWriter& field(int64_t value)
    {
        separator();
        m_buf += std::to_string(value);
        return *this;
    }
    CsvWriter& field(double value)
    {
        separator();
        m_buf += shortestText(value); // round-trips, without %.17g's float noise
        return *this;
    }
    template <typename Int>
    requires std::is_integral_v<Int> CsvWriter& field(Int value) { return field(static_cast<int64_t>(value)); }
    CsvWriter& field(const std::string& text) { return field(std::string_view(text)); }
    CsvWriter& field(const char* text) { return field(std::string_view(text)); }

    void endRow()
    {
        m_buf += '\n';
        m_atRowStart = true;
        ++m_rows;
        if (m_buf.size() >= kFlushBytes)
            flush();
    }
    int64_t finish()
    {
        flush();
        m_out.flush();
        if (!m_out)
            throw std::runtime_error("write failed");
        return m_rows;
    }

private:
    void separator()
    {
        if (!m_atRowStart)
            m_buf += ',';
        m_atRowStart = false;
    }
    void flush()
    {
        m_out.write(m_buf.data(), static_cast<std::streamsize>(m_buf.size()));
        m_buf.clear();
        if (!m_out)
            throw std::runtime_error("write failed");
    }

    std::ostream& m_out;
    std::string m_buf;
    bool m_atRowStart = true;
    int64_t m_rows = 0;
};

// The columns of one record: Codec<R>::fields names them, in the file's order, so the export
// cannot disagree with the schema. String-id columns hold the text.
struct HeaderVisitor {
    std::vector<std::string_view> names;
    template <class T> void operator()(store::Col c, const T&) { names.push_back(c.name); }
};

struct RowVisitor {
    CsvWriter& w;
    const StringTable& strings;
    void operator()(store::Col, const std::string& text) { w.field(text); }
    void operator()(store::Col, double value) { w.field(value); }
    template <class T>
    requires(std::is_integral_v<T> || std::is_enum_v<T>) void operator()(store::Col c, T value)
    {
        if (c.ref == store::Ref::String)
            w.field(strings.at(static_cast<StringId>(value)));
        else
            w.field(store::toInt64(value));
    }
};

template <class R> void writeHeader(CsvWriter& w)
{
    HeaderVisitor h;
    R row {};
    store::Codec<R>::fields(h, row);
    w.header(h.names);
}

template <class R> void writeRow(CsvWriter& w, const StringTable& strings, const R& row)
{
    RowVisitor v {w, strings};
    store::Codec<R>::fields(v, row);
    w.endRow();
}

template <class R> void writeRows(CsvWriter& w, const StringTable& strings, const std::vector<R>& rows)
{
    writeHeader<R>(w);
    for (const R& row : rows)
        writeRow(w, strings, row);
}

template <class R>
void streamRows(CsvWriter& w, const StringTable& strings,
    void (RecordSource::*forEach)(const std::function<void(const R&)>&) const, const RecordSource& source)
{
    writeHeader<R>(w);
    (source.*forEach)([&](const R& row) { writeRow(w, strings, row); });
}

} // namespace

const std::vector<std::string_view>& csvTableNames()
{
    static const std::vector<std::string_view> names = {"meta", "environment", store::Codec<ProcessInfo>::info.name,
        store::Codec<ThreadInfo>::info.name, store::Codec<DeviceInfo>::info.name, store::Codec<StreamInfo>::info.name,
        store::Codec<KernelRecord>::info.name, store::Codec<MemcpyRecord>::info.name,
        store::Codec<MemsetRecord>::info.name, store::Codec<ApiCallRecord>::info.name,
        store::Codec<NvtxRangeRecord>::info.name, store::Codec<NvtxMarkRecord>::info.name,
        store::Codec<SyncRecord>::info.name};
    return names;
}

int64_t writeCsvTable(const RecordSource& source, std::string_view table, std::ostream& out)
{
    CsvWriter w(out);
    const SessionData& h = source.header();
    const StringTable& s = h.strings;
    using store::Codec;

    if (table == "meta" || table == "environment") {
        w.header({"key", "value"});
        for (const auto& [key, value] : table == "meta" ? h.meta : h.environment) {
            w.field(key).field(value);
            w.endRow();
        }
    } else if (table == Codec<ProcessInfo>::info.name) {
        writeRows(w, s, h.processes);
    } else if (table == Codec<ThreadInfo>::info.name) {
        writeRows(w, s, h.threads);
    } else if (table == Codec<DeviceInfo>::info.name) {
        writeRows(w, s, h.devices);
    } else if (table == Codec<StreamInfo>::info.name) {
        writeRows(w, s, h.streams);
    } else if (table == Codec<KernelRecord>::info.name) {
        streamRows(w, s, &RecordSource::forEachKernel, source);
    } else if (table == Codec<MemcpyRecord>::info.name) {
        streamRows(w, s, &RecordSource::forEachMemcpy, source);
    } else if (table == Codec<MemsetRecord>::info.name) {
        streamRows(w, s, &RecordSource::forEachMemset, source);
    } else if (table == Codec<ApiCallRecord>::info.name) {
        streamRows(w, s, &RecordSource::forEachApiCall, source);
    } else if (table == Codec<NvtxRangeRecord>::info.name) {
        streamRows(w, s, &RecordSource::forEachNvtxRange, source);
    } else if (table == Codec<NvtxMarkRecord>::info.name) {
        streamRows(w, s, &RecordSource::forEachNvtxMark, source);
    } else if (table == Codec<SyncRecord>::info.name) {
        streamRows(w, s, &RecordSource::forEachSync, source);
    } else {
        std::string known;
        for (const auto name : csvTableNames())
            known += (known.empty() ? "" : ", ") + std::string(name);
        throw std::invalid_argument("unknown table '" + std::string(table) + "' (expected one of " + known + ")");
    }
    return w.finish();
}

} // namespace ws
