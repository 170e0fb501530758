import type { Snapshot, SnapshotLocation, SnapshotStorage } from '@strands-agents/sdk';

/** The latest snapshots a Strands session manager wrote during one run, by location. */
export type SavedSnapshots = Record<string, Snapshot>;

/**
 * A Strands `SnapshotStorage` held in memory for one run of a thread: it starts from the snapshots
 * Interlock's checkpoint saved, and what the session manager writes during the run is saved with the
 * run's checkpoint (with its request, in one transaction). Interlock's checkpoint is the only copy, so
 * no other storage can disagree with it.
 */
export class CheckpointSnapshots implements SnapshotStorage {
  private readonly latest: Map<string, Snapshot>;

  constructor(saved: SavedSnapshots = {}) {
    this.latest = new Map(Object.entries(saved));
  }

  /** What to save with the run's checkpoint. */
  dump(): SavedSnapshots {
    return Object.fromEntries(this.latest);
  }

  saveSnapshot(p: { location: SnapshotLocation; snapshotId: string; isLatest: boolean; snapshot: Snapshot }) {
    // Only the latest is kept: a run resumes from it, and the checkpoint history keeps the earlier ones.
    if (p.isLatest) this.latest.set(keyOf(p.location), structuredClone(p.snapshot));
    return Promise.resolve();
  }

  loadSnapshot(p: { location: SnapshotLocation; snapshotId?: string }) {
    if (p.snapshotId !== undefined && p.snapshotId !== 'latest') return Promise.resolve(null);
    const s = this.latest.get(keyOf(p.location));
    return Promise.resolve(s ? structuredClone(s) : null);
  }

  listSnapshotIds(p: { location: SnapshotLocation }) {
    return Promise.resolve(this.latest.has(keyOf(p.location)) ? ['latest'] : []);
  }

  deleteSession() {
    this.latest.clear();
    return Promise.resolve();
  }

  loadManifest() {
    return Promise.resolve({ schemaVersion: '1.0', updatedAt: new Date(0).toISOString() });
  }

  saveManifest() {
    return Promise.resolve();
  }
}

function keyOf(l: SnapshotLocation): string {
  return `${l.scope}:${l.scopeId}`;
}
