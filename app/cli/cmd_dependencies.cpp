// SPDX-License-Identifier: MIT
// warpscope-cli dependencies FILE: the dependencies between streams that the program's CUDA
// events made (record on one stream, wait on another), one line each: the event, the producer
// op on the recording stream and the first op on the waiting stream after the wait.
#include "command.h"

#include "core/analysis/sessiondependencies.h"
#include "core/store/sessionreader.h"

#include <cstdio>
#include <map>
#include <memory>
#include <string>

namespace {

struct DependenciesArgs {
    std::string session;
    bool csv = false;
};

const char* tableName(ws::GpuOpRef::Table t)
{
    switch (t) {
    case ws::GpuOpRef::Table::Kernel:
        return "kernel";
    case ws::GpuOpRef::Table::Memcpy:
        return "memcpy";
    case ws::GpuOpRef::Table::Memset:
        return "memset";
    case ws::GpuOpRef::Table::None:
        break;
    }
    return "none";
}

int run(const DependenciesArgs& a)
{
    const ws::SessionReader reader(a.session);
    const auto edges = ws::readStreamDependencies(reader);
    const auto strings = reader.readStrings();
    std::map<int64_t, std::string> kernelNames;
    for (const auto& k : reader.readTable<ws::KernelRecord>())
        kernelNames[k.id] = strings.at(k.shortName ? k.shortName : k.mangledName);
    const auto name = [&](const ws::GpuOpRef& r) -> std::string {
        if (!r.valid())
            return "-";
        if (r.table == ws::GpuOpRef::Table::Kernel) {
            const auto it = kernelNames.find(r.id);
            return it == kernelNames.end() ? "kernel" : it->second;
        }
        return tableName(r.table);
    };
    const auto events = reader.readEventOps();
    int records = 0, waits = 0, syncs = 0;
    for (const auto& e : events)
        (e.kind == ws::EventOpKind::Record ? records : e.kind == ws::EventOpKind::Wait ? waits : syncs)++;
    if (a.csv)
        std::printf("pid,event,wait_kind,record_id,wait_id,producer_stream,producer_table,producer_id,producer,"
                    "consumer_stream,consumer_table,consumer_id,consumer,producer_end,consumer_start\n");
    else
        std::printf("%s: %d event record(s), %d stream wait(s), %d event synchronisation(s); %zu dependencies\n",
            a.session.c_str(), records, waits, syncs, edges.size());
    for (const auto& d : edges) {
        const bool host = d.waitKind == ws::EventOpKind::Synchronize;
        if (a.csv)
            std::printf("%lld,0x%llx,%s,%lld,%lld,%u,%s,%lld,%s,%u,%s,%lld,%s,%lld,%lld\n",
                static_cast<long long>(d.pid), static_cast<unsigned long long>(d.event), host ? "sync" : "wait",
                static_cast<long long>(d.recordId), static_cast<long long>(d.waitId), d.producerStream,
                tableName(d.producer.table), static_cast<long long>(d.producer.id), name(d.producer).c_str(),
                d.consumerStream, tableName(d.consumer.table), static_cast<long long>(d.consumer.id),
                name(d.consumer).c_str(), static_cast<long long>(d.producerEnd),
                static_cast<long long>(d.consumerStart));
        else if (host)
            std::printf("  event 0x%llx: stream %u %s #%lld -> host (cudaEventSynchronize)\n",
                static_cast<unsigned long long>(d.event), d.producerStream, name(d.producer).c_str(),
                static_cast<long long>(d.producer.id));
        else
            std::printf(
                "  event 0x%llx: stream %u %s #%lld -> stream %u %s #%lld (waited %.3f us after the producer)\n",
                static_cast<unsigned long long>(d.event), d.producerStream, name(d.producer).c_str(),
                static_cast<long long>(d.producer.id), d.consumerStream, name(d.consumer).c_str(),
                static_cast<long long>(d.consumer.id),
                d.producer.valid() && d.consumer.valid() ? (d.consumerStart - d.producerEnd) / 1000.0 : 0.0);
    }
    return 0;
}

ws::cli::CommandRegistrar registrar(
    {"47-dependencies", [](CLI::App& app, int& exitCode) {
         auto* cmd = app.add_subcommand("dependencies",
             "Dependencies between streams through CUDA events: record -> producer op, wait -> first op after it");
         auto args = std::make_shared<DependenciesArgs>();
         cmd->add_option("session", args->session, "Session file (.wscope)")->required()->check(CLI::ExistingFile);
         cmd->add_flag("--csv", args->csv, "CSV instead of text");
         cmd->callback([args, &exitCode] { exitCode = run(*args); });
     }});

} // namespace
