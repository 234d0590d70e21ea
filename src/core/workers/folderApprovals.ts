// The folders the user answered "Allow in this folder" for: a worker Baton cannot isolate there changes the folder
// itself without a question, until the window closes (never stored: a new window asks again). Bounded: past
// MAX_FOLDER_APPROVALS the oldest is forgotten, and its next worker is asked again.

/** The most folders kept. */
export const MAX_FOLDER_APPROVALS = 50;

export class FolderApprovals {
  private readonly folders = new Set<string>();

  has(folder: string): boolean {
    return this.folders.has(folder);
  }

  add(folder: string): void {
    this.folders.delete(folder);
    this.folders.add(folder);
    if (this.folders.size > MAX_FOLDER_APPROVALS) this.folders.delete(this.folders.values().next().value!);
  }

  get size(): number {
    return this.folders.size;
  }
}
