// SPDX-License-Identifier: MIT
#pragma once

// Shared body of the importer fuzz targets: any input must either import or fail with a
// SessionError that names the input. Any other exception, a crash or a sanitizer report is a bug.
#include "core/import/importer.h"
#include "core/store/sessionerror.h"
#include "core/store/sqlite.h"

#include <sqlite3.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>

namespace ws::fuzz {

inline int importOnce(ImportFormat format, const uint8_t* data, size_t size)
{
    static const auto importer = createImporter(format);
    static const std::string name = "fuzz-input";
    try {
        const SessionData d = importer->importBytes(
            std::string_view(reinterpret_cast<const char*>(data), size), name, ImportOptions {});
        // Touch what an importer promises: ids in start order, strings resolvable.
        int64_t previous = INT64_MIN;
        for (const auto& k : d.kernels) {
            if (k.start < previous || k.demangledName >= d.strings.size())
                std::abort();
            previous = k.start;
        }
    } catch (const SessionError& e) {
        if (e.path() != name || e.reason().empty())
            std::abort();
    }
    return 0;
}

inline std::string readText(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

inline std::string fixtureText(const char* name)
{
    return readText(std::string(WS_FIXTURES_DIR) + "/import/" + name);
}

// tests/fuzz/seeds: small cuts of the real fixtures (made with Python from them; see README.md).
inline std::string seedText(const char* name)
{
    return readText(std::string(WS_FIXTURES_DIR) + "/../fuzz/seeds/" + name);
}

// With WS_FUZZ_WRITE_SEED=<dir>, puts the format's real fixtures (and for nsys the database
// built from the hand-written schema fixture) into <dir> as the starting corpus.
inline void writeSeeds(ImportFormat format)
{
    const char* dir = std::getenv("WS_FUZZ_WRITE_SEED");
    if (!dir)
        return;
    const auto put = [dir](const std::string& name, const std::string& content) {
        std::ofstream(std::string(dir) + "/" + name, std::ios::binary) << content;
    };
    switch (format) {
    case ImportFormat::Kineto:
        // A cut of the real fixture (two events of each phase and category), so executions stay fast.
        put("kineto_small.json", seedText("kineto_small.json"));
        put("small.json",
            R"({"traceEvents":[{"ph":"B","name":"a","pid":1,"tid":1,"ts":1},)"
            R"({"ph":"E","pid":1,"tid":1,"ts":2},{"ph":"C","name":"c","pid":1,"ts":3,"args":{"v":1}},)"
            R"({"ph":"b","cat":"x","id":"0x1","name":"r","pid":"p","tid":"t","ts":1},)"
            R"({"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1.5,"dur":2,)"
            R"("args":{"correlation":3,"grid":[1,2,3],"block":[4,5,6]}}]})");
        break;
    case ImportFormat::NcuCsv:
        // ncu_mixed.txt cut to 21 columns and 3 rows, with program output between rows.
        put("ncu_small.txt", seedText("ncu_small.txt"));
        break;
    case ImportFormat::Proton:
        put("proton_mm_relu.hatchet", fixtureText("proton_mm_relu.hatchet"));
        break;
    case ImportFormat::NsysSqlite: {
        const std::string path = std::string(dir) + "/nsys-3.16-small.sqlite";
        std::remove(path.c_str());
        sqlite::Database db(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
        db.exec("PRAGMA page_size = 512; PRAGMA journal_mode = OFF;");
        db.exec(fixtureText("nsys-3.16-small.sql").c_str());
        break;
    }
    case ImportFormat::Auto:
        break;
    }
}

} // namespace ws::fuzz
