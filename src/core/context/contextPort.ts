// The seam between the chat (core) and the editor (the VS Code layer): the panel asks for references
// through this port and gets either content or a refusal it can show as it is. Errors are types: the
// panel decides from `kind`, never from the English text.
import type { Reference, ReferenceChip, ReferenceKind } from './references';

/**
 * Why a reference cannot go with a message:
 * - binary: not text;
 * - missing: the file or folder is gone (deleted since it was attached);
 * - protected: inside a protected path (as workers refuse it: credential stores, Baton's storage);
 * - outside: outside the workspace and not confirmed by the user;
 * - unreadable: the file system refused (permissions, a device);
 * - unavailable: there is nothing of that kind now (no editor, no selection, not a git repository);
 * - too-many: more references than one message takes.
 */
export type ContextErrorKind = 'binary' | 'missing' | 'protected' | 'outside' | 'unreadable' | 'unavailable' | 'too-many';

export interface ContextError {
  kind: ContextErrorKind;
  /** Names the path and what the user can do. */
  message: string;
}

/** A reference gathered for sending: its content, bounded, and what the log keeps of it. */
export interface ResolvedReference {
  ref: Reference;
  label: string;
  /** Workspace-relative (absolute when outside the workspace); absent for workspace-wide kinds. */
  path?: string;
  lines?: string;
  /** For a selection or a file: the editor's language id, a hint for the model. */
  language?: string;
  text: string;
  truncated: boolean;
  note?: string;
  implicit?: boolean;
}

/** A reference as the composer sends it: implicit when it came from the active editor. */
export interface AttachedReference {
  ref: Reference;
  implicit?: boolean;
}

export type AttachResult = { ok: true; chips: ReferenceChip[] } | { ok: false; error: ContextError };
export type GatherResult = { ok: true; references: ResolvedReference[] } | { ok: false; error: ContextError };

/** Implemented by the VS Code layer (editorContext.ts); unit tests use a fake. */
export interface EditorContextPort {
  /** The user chose a kind in the `#` picker: ask what is needed (a file, a scope) and return chips; none when cancelled. */
  pick(kind: ReferenceKind): Promise<AttachResult>;
  /** Files or folders dropped on the panel (URIs or paths). */
  drop(uris: string[]): Promise<AttachResult>;
  /** Reads every reference for sending. All or nothing: one failure refuses the message. */
  gather(refs: readonly AttachedReference[]): Promise<GatherResult>;
  /** Opens the reference in the editor (a chip was clicked). */
  open(ref: Reference): void;
  /** In a multi-root workspace: which folder the user's active file is in, for the model to start workers there. */
  workspaceHint?(): string | undefined;
}
