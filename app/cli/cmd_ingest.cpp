// SPDX-License-Identifier: MIT
// warpscope-cli ingest -o run.wscope RAW...: turns raw record files kept by `record --keep-raw`
// (a directory of ws-<pid>.raw files, or the files themselves) into a session again, e.g. with
// a newer decoder for in-kernel traces.
#include "command.h"

#include "core/ingest/rawingest.h"
#include "core/store/sessionwriter.h"
#include "core/timeline/lanebuilder.h"

#include <cstdio>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

struct IngestArgs {
    std::string output;
    std::vector<std::string> inputs;
};

int runIngest(const IngestArgs& a)
{
    namespace fs = std::filesystem;
    ws::RawIngest ingest;
    size_t files = 0;
    for (const auto& in : a.inputs) {
        std::error_code ec;
        if (fs::is_directory(in, ec)) {
            const size_t n = ingest.addDirectory(in);
            if (n == 0)
                throw std::runtime_error(in + ": no raw record files (ws-<pid>.raw) in this directory");
            files += n;
        } else {
            ingest.addFile(ws::raw::RawFile::load(in)); // RawError names the file
            ++files;
        }
    }
    ws::SessionData data = ingest.finish();
    data.meta["recorder"] = "warpscope-cli ingest";
    for (const auto& w : ingest.warnings())
        std::fprintf(stderr, "warpscope-cli ingest: %s\n", w.c_str());
    ws::SessionWriter writer(a.output);
    ws::attachLaneCache(writer);
    writer.write(data);
    writer.commit();
    std::printf("wrote %s: %zu raw file(s), %zu kernels, %zu API calls, %zu warp events\n", a.output.c_str(), files,
        data.kernels.size(), data.apiCalls.size(), data.warpEvents.size());
    return 0;
}

ws::cli::CommandRegistrar registrar({"15-ingest",
    [](CLI::App& app, int& exitCode) {
        auto* cmd = app.add_subcommand("ingest",
            "Turn raw record files kept by `record --keep-raw` into a session: warpscope-cli ingest -o run.wscope DIR");
        auto args = std::make_shared<IngestArgs>();
        cmd->add_option("-o,--output", args->output, "Session file to write (.wscope)")->required();
        cmd->add_option("raw", args->inputs, "Directories of ws-<pid>.raw files, or raw files")
            ->required()
            ->check(CLI::ExistingPath);
        cmd->callback([args, &exitCode] { exitCode = runIngest(*args); });
    }});

} // namespace
