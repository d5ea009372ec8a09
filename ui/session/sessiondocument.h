// SPDX-License-Identifier: MIT
#pragma once

#include "core/bench/benchresult.h"
#include "core/util/cancellation.h"
#include "ui/session/paneldata.h"
#include "ui/session/sessionsnapshot.h"

#include <QMetaType>
#include <QObject>
#include <QString>

#include <functional>
#include <memory>
#include <optional>

namespace ws {

class BackgroundJob;
class EventDetailsSource;
class SessionFile;
struct SessionLoad;

// The benchmark tables of a session (bench_run / bench_sample), as the Benchmark panel shows
// them: none for sessions without bench runs, or why they could not be read.
struct BenchOutcome {
    std::optional<bench::BenchResult> result;
    QString error;
};

// The session open in a window, and everything the window shows of it: the one owner of the
// file (a SessionFile: a read connection per worker thread) and the producer of the timeline
// snapshot, the panels' data, the benchmark tables and event details, each an immutable value
// delivered by signal on the GUI thread. Opening runs in stages on worker threads: the snapshot
// first (loaded(), with progress and cancel), then the panel data and the bench tables. Opening
// another file discards whatever the previous one still had running; nothing in the viewer
// opens a session file except through a document.
class SessionDocument : public QObject {
    Q_OBJECT
public:
    explicit SessionDocument(QObject* parent = nullptr);
    ~SessionDocument() override;

    // Starts opening `path`; an open already running is discarded. `displayName` is what the
    // user sees (the demo is opened from a temporary copy).
    void open(const QString& path, const QString& displayName = {});
    // Copies `source` (e.g. a Qt resource: SQLite needs a real file) to `path` on the worker,
    // then opens it.
    void openCopy(const QString& source, const QString& path, const QString& displayName);
    // Reads the open file again, in place: for a session that gained a run (appended to the
    // same file, replaced atomically). Emits reloaded() instead of loaded(), so the window keeps
    // its view range, scroll and selection (TimelineView::reloadSnapshot), then the panel data
    // as after an open, without panelDataLoading(): the panels keep showing the previous data
    // and their kernel until the new data replaces it (KernelFocus keeps the kernel and pins of
    // the same file). A failure emits failed() and leaves the loaded session as it was. Does
    // nothing without a loaded session.
    void reload();
    bool isReloading() const { return m_reloading; }
    // Stops the running open: failed() follows with `cancelled` set.
    void cancel();
    bool isLoading() const;
    QString currentPath() const { return m_path; }

    // The last session loaded (what loaded() delivered) and its panel data (null until
    // panelDataReady()).
    std::shared_ptr<const SessionSnapshot> snapshot() const { return m_snapshot; }
    std::shared_ptr<const PanelData> panelData() const { return m_panelData; }
    // Whether the panel data and bench tables are read after each snapshot (default on). Off,
    // an open ends with loaded(): bench_ui_timeline measures open-to-drawn for the timeline
    // alone, as it did before the document read the rest.
    void setReadsPanels(bool on) { m_readsPanels = on; }

    // Details of single events of the loaded session (hover and selection).
    EventDetailsSource* details() const { return m_details; }

    // Destroys a snapshot on a worker thread: freeing gigabytes of lanes takes long enough
    // to stall the GUI if it happened there.
    static void releaseLater(std::shared_ptr<const SessionSnapshot> snapshot);

    // Tests only: called on the load worker once the file is open, before its lanes are read,
    // with the open's cancellation token (empty: nothing). A test holds the load there until
    // its Cancel arrived, so Cancel is exercised however fast the machine reads.
    using LoadHook = std::function<void(const CancellationToken&)>;
    static void setLoadHookForTests(LoadHook hook);

signals:
    void started(const QString& path);
    void progress(double fraction, const QString& phase);
    void loaded(std::shared_ptr<const ws::SessionSnapshot> snapshot);
    // The same session read again by reload(): show `snapshot` keeping the view.
    void reloaded(std::shared_ptr<const ws::SessionSnapshot> snapshot);
    // `cancelled` is true when the user cancelled (no dialog wanted).
    void failed(const QString& path, const QString& reason, bool cancelled);
    // The panels' read of the loaded session started / finished / failed.
    void panelDataLoading(const QString& path);
    void panelDataReady(std::shared_ptr<const ws::PanelData> data, std::shared_ptr<const ws::SessionSnapshot> snapshot);
    void panelDataFailed(const QString& path, const QString& reason);
    void benchReady(const ws::BenchOutcome& outcome);

private:
    void onLoaded(SessionLoad result);
    void readPanelsAndBench(bool announce = true);

    BackgroundJob* m_load;
    BackgroundJob* m_panels;
    BackgroundJob* m_bench;
    EventDetailsSource* m_details;
    QString m_path;       // the file being opened or last opened
    QString m_loadedPath; // the file the loaded session was opened from (what reload() reads)
    std::shared_ptr<const SessionFile> m_file;
    std::shared_ptr<const SessionSnapshot> m_snapshot;
    std::shared_ptr<const PanelData> m_panelData;
    bool m_readsPanels = true;
    bool m_reloading = false;
};

} // namespace ws

Q_DECLARE_METATYPE(ws::BenchOutcome)
