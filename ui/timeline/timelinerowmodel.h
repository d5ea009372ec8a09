// SPDX-License-Identifier: MIT
#pragma once

#include "ui/session/sessionsnapshot.h"

#include <QAbstractItemModel>

#include <memory>
#include <vector>

namespace ws {

// The rows of the timeline as a tree: process > thread > (CUDA API, NVTX by depth, sync),
// GPU > (streams, counter tracks), kernel > warp-role lanes, plus counters that belong to no
// GPU. Each node carries the user's choices: expanded, visible (check box), pinned, and its
// position among its siblings (moveRows). The timeline paints from rows(); the Tracks panel
// shows the same model in a tree view, so both always agree.
class TimelineRowModel : public QAbstractItemModel {
    Q_OBJECT
public:
    // Above this many host rows (API, NVTX, sync lanes), threads start collapsed.
    static constexpr size_t kMaxExpandedHostLanes = 16;

    enum class Kind { Group, Lane, Counter };
    enum Column { NameColumn = 0, EventsColumn, ColumnCount };
    enum Role {
        KindRole = Qt::UserRole + 1,
        LaneIndexRole,    // index into TimelineModel::lanes (Lane rows), else -1
        CounterIndexRole, // index into SessionSnapshot::counters (Counter rows), else -1
        PinnedRole,
        ExpandedRole,
        IsGpuRole, // GPU stream rows: idle gaps are shaded
        PathRole,  // "GPU 0 · stream 7": the row's name with its ancestors
    };

    // One row as the timeline lays it out.
    struct Row {
        Kind kind = Kind::Group;
        int lane = -1;
        int counter = -1;
        int depth = 0;        // indentation level
        bool expanded = true; // groups
        bool gpu = false;
        bool pinned = false;
        int summaryLane = -1;         // a collapsed group shows this lane's events in its header
        std::vector<int> hiddenLanes; // a collapsed group: every lane inside it
        QString label;
        QString note;        // warp-role groups: the per-role summary, drawn in the header's time area
        QString explanation; // what the row is, where its label alone does not say (tooltip)
        QString path;
        quintptr id = 0; // stable while the model lives: the node's address
    };

    explicit TimelineRowModel(QObject* parent = nullptr);
    ~TimelineRowModel() override;

    void setSnapshot(std::shared_ptr<const SessionSnapshot> snapshot);
    std::shared_ptr<const SessionSnapshot> snapshot() const { return m_snapshot; }

    // Rows to paint, depth first, skipping hidden nodes and children of collapsed groups.
    // Pinned rows are listed separately (shown above the scrolling area, with their path).
    std::vector<Row> rows() const;
    std::vector<Row> pinnedRows() const;

    QModelIndex indexForId(quintptr id) const;
    void setExpanded(const QModelIndex& index, bool expanded);
    void setPinned(const QModelIndex& index, bool pinned);
    void setVisible(const QModelIndex& index, bool visible);
    bool moveUp(const QModelIndex& index);
    bool moveDown(const QModelIndex& index);
    void showAll();
    void expandAll(bool expanded);

    // A kernel's warp-role group shows the warps of one block at a time (the block chooser):
    // the blocks that recorded events (empty for other rows), the one shown, and switching to
    // another one (its lanes replace the group's children). False for an unknown block.
    QList<int> warpBlocks(const QModelIndex& group) const;
    int warpBlock(const QModelIndex& group) const;
    bool setWarpBlock(const QModelIndex& group, int block);

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    bool moveRows(const QModelIndex& sourceParent, int sourceRow, int count, const QModelIndex& destinationParent,
        int destinationChild) override;

    // The tree's nodes (defined in the .cpp).
    struct Node;

signals:
    // Anything that changes rows() or pinnedRows().
    void rowsLayoutChanged();

private:
    Node* nodeFor(const QModelIndex& index) const;
    QModelIndex indexFor(const Node* node, int column = 0) const;
    static int firstLane(const Node* node);
    static void lanesUnder(const Node* node, std::vector<int>& out);
    void collect(const Node* node, int depth, std::vector<Row>& out, bool pinnedOnly, const QString& prefix) const;
    void build();
    void fillWarpBlock(Node* group, int block);

    std::shared_ptr<const SessionSnapshot> m_snapshot;
    std::unique_ptr<Node> m_root;
};

} // namespace ws
