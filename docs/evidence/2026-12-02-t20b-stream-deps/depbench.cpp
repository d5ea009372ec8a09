#include "core/analysis/sessiondependencies.h"
#include "core/model/streamdependencies.h"
#include "core/store/sessionreader.h"
#include "core/store/sessionwriter.h"
#include "streamdepsession.h"
#include <chrono>
#include <cstdio>
#include <random>
#include <string>
using namespace ws;
using namespace ws::test;
int main(int argc, char** argv)
{
    const int n = argc > 1 ? atoi(argv[1]) : 1000000;
    std::vector<DepCall> calls;
    std::mt19937 rng(1);
    for (int i = 0; i < n; ++i) {
        const uint32_t s = 1 + i % 4;
        calls.push_back(launch(s, "k" + std::to_string(i % 50), 1000));
        if (i % 100 == 0) {
            calls.push_back(record(0x10 * (1 + i % 7), s));
            calls.push_back(wait(1 + (s % 4), 0x10 * (1 + i % 7)));
        }
    }
    SessionData d = streamDepSession(calls);
    const bool anchored = argc > 2 && std::string(argv[2]) == "anchored";
    if (anchored)
        anchorEventOps(d); // as ingest does
    const std::string path = "/tmp/depbench.wscope";
    std::remove(path.c_str());
    {
        SessionWriter w(path);
        w.write(d);
        w.commit();
    }
    const auto t0 = std::chrono::steady_clock::now();
    const SessionReader r(path);
    const auto deps = readStreamDependencies(r);
    const auto t1 = std::chrono::steady_clock::now();
    printf("%s: kernels %zu event_op %zu dependencies %zu, SessionReader + readStreamDependencies %.1f ms\n",
        anchored ? "anchored" : "not anchored", d.kernels.size(), d.eventOps.size(), deps.size(),
        std::chrono::duration<double, std::milli>(t1 - t0).count());
}
