// SPDX-License-Identifier: MIT
// bench_launch_overhead: host cost per empty-kernel launch, plain, under the bare CUPTI
// subscriber (libws-bare-cupti.so) and under `warpscope-cli record`, in one alternating run
// (every repetition runs every mode once, in a rotated order, so that clock and thermal drift
// hit all modes alike). The program is ws-example-launch-bound, which prints
// "RESULT launches=N host_us_per_launch=X" for its timed loop only (process and CUDA start-up
// are outside it).
//
//   bench_launch_overhead --program P --cli CLI --bare LIB --inject LIB --out DIR
//                         [--launches N] [--reps R] [--mode NAME:KIND[:VAR=VAL,...]]...
// KIND: plain | bare (CUDA_INJECTION64_PATH=LIB) | inject (the recorder's library without the
// launcher: same in-process work, no ingest) | record (warpscope-cli record -o DIR/NAME.wscope).
// Default modes: plain, bare, record. --cpus a-b pins every run to those CPUs. Prints one line per
// run, a table per mode (median, min, max; added over plain: median and mean of the per-repetition
// differences, and min over min) and
//   RESULT plain_us=.. bare_added_us=.. record_added_us=.. beyond_cupti_pct=.. beyond_cupti_pct_mean=..
//          ci95=[lo,hi] beyond_cupti_pct_min=..
// where beyond_cupti_pct = (record added - bare added) / bare added x 100 (goal <= 10), from the
// medians, the means (with a bootstrap 95 % interval over repetitions) and the minima. A program
// that also prints burst_median_us= and burst_p10_us= (ws-launch-cost) gets the same table and a
// "RESULT[burst_median_us] ..." line for each of those figures, from the same runs.
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <random>
#include <sched.h>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace {

struct Mode {
    std::string name;
    std::string kind;
    std::vector<std::string> env; // VAR=VAL
};

struct Options {
    std::string program, cli, bare, inject, out;
    int launches = 50000;
    int reps = 5;
    int timeoutS = 60;
    std::string cpus; // "a-b": every run pinned to these CPUs (sched_setaffinity)
    std::vector<Mode> modes;
};

[[noreturn]] void usage(const char* why)
{
    std::fprintf(stderr, "bench_launch_overhead: %s\n", why);
    std::exit(2);
}

Mode parseMode(const std::string& spec)
{
    Mode m;
    const size_t a = spec.find(':');
    if (a == std::string::npos)
        usage("--mode NAME:KIND[:VAR=VAL,...]");
    m.name = spec.substr(0, a);
    const size_t b = spec.find(':', a + 1);
    m.kind = spec.substr(a + 1, b == std::string::npos ? std::string::npos : b - a - 1);
    if (m.kind != "plain" && m.kind != "bare" && m.kind != "inject" && m.kind != "record")
        usage(("unknown mode kind '" + m.kind + "'").c_str());
    if (b != std::string::npos) {
        std::string rest = spec.substr(b + 1);
        size_t pos = 0;
        while (pos < rest.size()) {
            const size_t c = std::min(rest.find(',', pos), rest.size());
            // A value may itself hold commas (WS_BARE=a,b): an item without '=' continues the last.
            const std::string item = rest.substr(pos, c - pos);
            if (item.find('=') == std::string::npos && !m.env.empty())
                m.env.back() += "," + item;
            else if (!item.empty())
                m.env.push_back(item);
            pos = c + 1;
        }
    }
    return m;
}

// The figures a run may print, each "NAME=value": the first is the one the RESULT line uses.
const char* const kFigures[] = {"host_us_per_launch", "burst_median_us", "burst_p10_us"};

struct RunResult {
    std::map<std::string, double> us; // per figure of kFigures the run printed
    double wallS = 0;
    int rc = -1;
};

// Runs argv with extra environment, stdout captured, stderr to errPath.
RunResult runOnce(const std::vector<std::string>& argv, const std::vector<std::string>& env, const std::string& errPath,
    int timeoutS, const std::string& cpus)
{
    int pipeFd[2];
    if (pipe(pipeFd) != 0)
        return {};
    const auto t0 = std::chrono::steady_clock::now();
    const pid_t pid = fork();
    if (pid == 0) {
        dup2(pipeFd[1], 1);
        close(pipeFd[0]);
        close(pipeFd[1]);
        const int err = ::open(errPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (err >= 0)
            dup2(err, 2);
        for (const auto& e : env)
            putenv(const_cast<char*>(e.c_str()));
        if (!cpus.empty()) {
            cpu_set_t set;
            CPU_ZERO(&set);
            const int lo = std::atoi(cpus.c_str());
            const size_t dash = cpus.find('-');
            const int hi = dash == std::string::npos ? lo : std::atoi(cpus.c_str() + dash + 1);
            for (int c = lo; c <= hi; ++c)
                CPU_SET(c, &set);
            sched_setaffinity(0, sizeof set, &set);
        }
        std::vector<char*> args;
        args.reserve(argv.size() + 1);
        for (const auto& a : argv)
            args.push_back(const_cast<char*>(a.c_str()));
        args.push_back(nullptr);
        execv(args[0], args.data());
        std::perror("execv");
        _exit(127);
    }
    close(pipeFd[1]);
    std::string out;
    char buf[4096];
    // The program's output is a few lines; read until EOF, then reap (with a deadline).
    fcntl(pipeFd[0], F_SETFL, O_NONBLOCK);
    RunResult r;
    int status = 0;
    bool reaped = false;
    for (;;) {
        const ssize_t n = read(pipeFd[0], buf, sizeof buf);
        if (n > 0) {
            out.append(buf, static_cast<size_t>(n));
            continue;
        }
        if (n == 0 && reaped)
            break;
        if (!reaped && waitpid(pid, &status, WNOHANG) == pid)
            reaped = true;
        else if (n < 0 && errno != EAGAIN && errno != EINTR)
            break;
        if (std::chrono::steady_clock::now() - t0 > std::chrono::seconds(timeoutS) && !reaped) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            reaped = true;
        }
        if (reaped && n <= 0)
            break;
        usleep(2000);
    }
    close(pipeFd[0]);
    r.wallS = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    for (const char* figure : kFigures) {
        const std::string key = std::string(figure) + "=";
        const size_t at = out.find(key);
        if (at != std::string::npos)
            r.us[figure] = std::atof(out.c_str() + at + key.size());
    }
    return r;
}

double median(std::vector<double> v)
{
    v.erase(std::remove_if(v.begin(), v.end(), [](double x) { return std::isnan(x); }), v.end());
    if (v.empty())
        return NAN;
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// The table and RESULT line of one figure; `tag` is empty for the first figure (the RESULT line
// scripts read), else "[figure]".
void report(std::map<std::string, std::vector<double>>& us, const Options& o, const std::string& tag)
{
    // Per repetition, what each mode added over plain (runs of one repetition ran back to back).
    const auto& plain = us.count("plain") ? us["plain"] : us[o.modes.front().name];
    const auto paired = [&](const std::string& name) {
        std::vector<double> d;
        d.reserve(static_cast<size_t>(o.reps));
        for (int rep = 0; rep < o.reps; ++rep)
            d.push_back(us[name][static_cast<size_t>(rep)] - plain[static_cast<size_t>(rep)]);
        return d;
    };
    const auto mean = [](const std::vector<double>& v) {
        double sum = 0;
        size_t n = 0;
        for (double x : v)
            if (!std::isnan(x)) {
                sum += x;
                ++n;
            }
        return n ? sum / static_cast<double>(n) : NAN;
    };
    const auto minOf = [](const std::vector<double>& v) {
        double m = NAN;
        for (double x : v)
            if (!std::isnan(x) && (std::isnan(m) || x < m))
                m = x;
        return m;
    };
    const double bareMedian = us.count("bare") ? median(paired("bare")) : NAN;
    std::printf("\n%s%-22s %9s %9s %9s %11s %11s %11s %10s\n", tag.empty() ? "" : (tag + " ").c_str(), "mode",
        "median_us", "min_us", "max_us", "added_med", "added_mean", "added_min", "med/bare");
    for (const auto& m : o.modes) {
        auto v = us[m.name];
        v.erase(std::remove_if(v.begin(), v.end(), [](double x) { return std::isnan(x); }), v.end());
        const double mx = v.empty() ? NAN : *std::max_element(v.begin(), v.end());
        const double a = median(paired(m.name));
        std::printf("%-22s %9.4f %9.4f %9.4f %11.4f %11.4f %11.4f %10.3f\n", m.name.c_str(), median(us[m.name]),
            minOf(us[m.name]), mx, a, mean(paired(m.name)), minOf(us[m.name]) - minOf(plain), a / bareMedian);
    }
    if (us.count("bare") && us.count("record")) {
        const std::vector<double> b = paired("bare"), r = paired("record");
        const double recMedian = median(r);
        // 95 % interval of the mean-based figure, resampling repetitions (fixed seed).
        std::mt19937 rng(20261202);
        std::vector<double> boot;
        for (int i = 0; i < 4000; ++i) {
            std::vector<double> bs, rs;
            for (int k = 0; k < o.reps; ++k) {
                const size_t j = rng() % static_cast<size_t>(o.reps);
                bs.push_back(b[j]);
                rs.push_back(r[j]);
            }
            const double mb = mean(bs);
            if (mb > 0)
                boot.push_back((mean(rs) - mb) / mb * 100.0);
        }
        std::sort(boot.begin(), boot.end());
        const double lo = boot.empty() ? NAN : boot[boot.size() * 25 / 1000];
        const double hi = boot.empty() ? NAN : boot[boot.size() * 975 / 1000];
        const double minBare = minOf(us["bare"]) - minOf(plain), minRec = minOf(us["record"]) - minOf(plain);
        std::printf("RESULT%s plain_us=%.4f bare_added_us=%.4f record_added_us=%.4f beyond_cupti_pct=%.1f "
                    "beyond_cupti_pct_mean=%.1f ci95=[%.1f,%.1f] beyond_cupti_pct_min=%.1f reps=%d\n",
            tag.c_str(), median(plain), bareMedian, recMedian, (recMedian - bareMedian) / bareMedian * 100.0,
            (mean(r) - mean(b)) / mean(b) * 100.0, lo, hi, (minRec - minBare) / minBare * 100.0, o.reps);
    }
}

} // namespace

int main(int argc, char** argv)
{
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const auto next = [&]() -> std::string {
            if (i + 1 >= argc)
                usage((a + " needs a value").c_str());
            return argv[++i];
        };
        if (a == "--program")
            o.program = next();
        else if (a == "--cli")
            o.cli = next();
        else if (a == "--bare")
            o.bare = next();
        else if (a == "--inject")
            o.inject = next();
        else if (a == "--out")
            o.out = next();
        else if (a == "--launches")
            o.launches = std::atoi(next().c_str());
        else if (a == "--reps")
            o.reps = std::atoi(next().c_str());
        else if (a == "--timeout")
            o.timeoutS = std::atoi(next().c_str());
        else if (a == "--cpus")
            o.cpus = next();
        else if (a == "--mode")
            o.modes.push_back(parseMode(next()));
        else
            usage(("unknown argument " + a).c_str());
    }
    if (o.program.empty() || o.out.empty())
        usage("--program and --out are required");
    if (o.modes.empty())
        o.modes = {parseMode("plain:plain"), parseMode("bare:bare"), parseMode("record:record")};
    const std::string launches = std::to_string(o.launches);

    // Per figure, per mode, per repetition.
    std::map<std::string, std::map<std::string, std::vector<double>>> us;
    for (const char* figure : kFigures)
        for (const auto& m : o.modes)
            us[figure][m.name].assign(static_cast<size_t>(o.reps), NAN);
    std::printf("bench_launch_overhead: %d launches per run, %d repetitions, %zu modes (alternating)\n", o.launches,
        o.reps, o.modes.size());
    for (int rep = 0; rep < o.reps; ++rep) {
        for (size_t j = 0; j < o.modes.size(); ++j) {
            const Mode& m = o.modes[(j + static_cast<size_t>(rep)) % o.modes.size()];
            std::vector<std::string> args {o.program, "--launches", launches};
            std::vector<std::string> env = m.env;
            const std::string base = o.out + "/" + m.name;
            if (m.kind == "bare") {
                env.push_back("CUDA_INJECTION64_PATH=" + o.bare);
            } else if (m.kind == "inject") {
                const std::string raw = base + ".raw";
                std::string command = "rm -rf '";
                command.append(raw).append("' && mkdir -p '").append(raw).append("'");
                std::system(command.c_str());
                env.insert(env.end(), {"CUDA_INJECTION64_PATH=" + o.inject, "WS_RAW_DIR=" + raw, "WS_TRACE=cuda"});
            } else if (m.kind == "record") {
                args.insert(args.begin(), {o.cli, "record", "-o", base + ".wscope", "--"});
                std::remove((base + ".wscope").c_str());
            }
            const RunResult r = runOnce(args, env, base + ".stderr", o.timeoutS, o.cpus);
            for (const auto& [figure, value] : r.us)
                us[figure][m.name][static_cast<size_t>(rep)] = value;
            const auto figure = [&](const char* name) { return r.us.count(name) ? r.us.at(name) : NAN; };
            std::printf("run rep=%d mode=%s us_per_launch=%.4f burst_median_us=%.4f burst_p10_us=%.4f wall_s=%.3f "
                        "rc=%d\n",
                rep, m.name.c_str(), figure(kFigures[0]), figure(kFigures[1]), figure(kFigures[2]), r.wallS, r.rc);
            std::fflush(stdout);
        }
    }

    for (const char* figure : kFigures) {
        auto& byMode = us[figure];
        const bool any = std::any_of(byMode.begin(), byMode.end(), [](const auto& kv) {
            return std::any_of(kv.second.begin(), kv.second.end(), [](double x) { return !std::isnan(x); });
        });
        if (any)
            report(byMode, o, figure == kFigures[0] ? std::string() : "[" + std::string(figure) + "]");
    }
    return 0;
}
