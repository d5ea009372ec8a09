// SPDX-License-Identifier: MIT
// libFuzzer target: open a mutated session file as the viewer does (SessionReader, readAll,
// TimelineModel::load). Every input must load or fail with a SessionError naming the file.
// With WS_FUZZ_WRITE_SEED=<dir> the first run writes a small valid session there as a seed.
#include "core/iket/warplaneprovider.h"
#include "core/import/importer.h"
#include "core/store/sessionerror.h"
#include "core/store/sessionreader.h"
#include "core/store/sessionwriter.h"
#include "core/store/sqlite.h"
#include "core/timeline/lanebuilder.h"
#include "core/timeline/timelinemodel.h"

#include <sqlite3.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

std::string& scratchPath()
{
    // One file per fuzzing process, in memory where available.
    static std::string path = std::string(access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp")
        + "/warpscope-fuzz-session-" + std::to_string(getpid()) + ".wscope";
    return path;
}

void writeSeed(const char* dir)
{
    // The Proton fixture gives a small session with kernels, ranges, devices and metrics.
    ws::SessionData d = ws::importSession(
        std::string(WS_FIXTURES_DIR) + "/import/proton_mm_relu.hatchet", ws::ImportFormat::Proton, {});
    // Written with the normal 4 KiB pages outside the corpus, then copied into it with 512-byte
    // pages: a valid SQLite file an eighth of the size, so many more mutations per second reach
    // the reader's checks.
    const std::string full = scratchPath() + ".seed";
    std::remove(full.c_str());
    {
        ws::SessionWriter writer(full);
        ws::attachLaneCache(writer);
        writer.write(d);
        writer.commit();
    }
    const std::string small = std::string(dir) + "/seed-proton-512.wscope";
    std::remove(small.c_str());
    {
        ws::sqlite::Database db(full, SQLITE_OPEN_READWRITE);
        db.exec("PRAGMA page_size = 512");
        auto vacuum = db.prepare("VACUUM INTO ?1");
        vacuum.bind(1, std::string_view(small));
        vacuum.run();
    }
    std::remove(full.c_str());
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***)
{
    if (const char* dir = std::getenv("WS_FUZZ_WRITE_SEED"))
        writeSeed(dir);
    std::atexit([] { std::remove(scratchPath().c_str()); });
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string& path = scratchPath();
    FILE* f = std::fopen(path.c_str(), "wb");
    if (!f)
        std::abort();
    if (size && std::fwrite(data, 1, size, f) != size)
        std::abort();
    std::fclose(f);
    try {
        ws::SessionReader reader(path);
        const ws::SessionData all = reader.readAll();
        const auto model = ws::TimelineModel::load(reader, {}, {}, true, ws::iket::laneProviders());
        if (!model)
            std::abort();
    } catch (const ws::SessionError& e) {
        if (e.path() != path || e.reason().empty())
            std::abort();
    }
    return 0;
}
