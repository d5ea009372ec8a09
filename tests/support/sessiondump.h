// SPDX-License-Identifier: MIT
#pragma once

// Every row of a session's tables as text, string-id columns as their strings, plus meta and
// environment: two sessions whose string tables are numbered differently compare equal when
// they hold the same data (tst_rawfollow, tst_livesessionwriter).
#include "core/model/sessiondata.h"
#include "core/store/rowcodec.h"

#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace ws::test {

// Prints every field of a row, string-id columns as their text.
struct FieldPrinter {
    const SessionData& s;
    std::ostringstream& out;
    template <class T> void print(const T& v)
    {
        if constexpr (std::is_enum_v<T>)
            out << static_cast<int64_t>(v);
        else if constexpr (std::is_same_v<T, std::string>)
            out << '"' << v << '"';
        else if constexpr (std::is_arithmetic_v<T>)
            out << +v;
        else
            out << "?";
        out << ' ';
    }
    template <class T> void operator()(const char* name, const T& v)
    {
        out << name << '=';
        print(v);
    }
    template <class T> void operator()(store::Col c, const T& v)
    {
        out << c.name << '=';
        if constexpr (std::is_integral_v<T>) {
            if (c.ref == store::Ref::String) {
                out << '"' << s.str(static_cast<StringId>(v)) << "\" ";
                return;
            }
        }
        print(v);
    }
};

template <class T> inline void dumpTable(const SessionData& s, const std::vector<T>& rows, std::ostringstream& out)
{
    out << store::Codec<T>::info.name << ' ' << rows.size() << '\n';
    FieldPrinter p {s, out};
    for (const T& r : rows) {
        store::Codec<T>::fields(p, r);
        out << '\n';
    }
}

inline std::string dump(const SessionData& s)
{
    std::ostringstream out;
    dumpTable(s, s.processes, out);
    dumpTable(s, s.threads, out);
    dumpTable(s, s.devices, out);
    dumpTable(s, s.streams, out);
    dumpTable(s, s.kernels, out);
    dumpTable(s, s.memcpys, out);
    dumpTable(s, s.memsets, out);
    dumpTable(s, s.apiCalls, out);
    dumpTable(s, s.nvtxRanges, out);
    dumpTable(s, s.nvtxMarks, out);
    dumpTable(s, s.syncs, out);
    dumpTable(s, s.overheads, out);
    dumpTable(s, s.counterSamples, out);
    dumpTable(s, s.warpEvents, out);
    dumpTable(s, s.benchSamples, out);
    for (const auto& [k, v] : s.meta)
        out << "meta " << k << '=' << v << '\n';
    for (const auto& [k, v] : s.environment)
        out << "env " << k << '=' << v << '\n';
    return out.str();
}

} // namespace ws::test
