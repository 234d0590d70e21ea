// The webview's side of the VS Code bridge. Only UI intent is kept in the webview state (the host owns the
// conversation and sends it again on every load), so a reload never shows stale or duplicated messages.
import type { ReferenceChip, WebviewMessage } from '../src/shared/protocol';
import type { EditInProgress } from './messageEdit';
import type { ReadingAnchor } from './scrollAnchor';

/** What the panel remembers across reloads: only what the user was doing, never what was said. */
export interface UiState {
  draft?: string;
  /** The conversation `draft` was typed in. */
  draftOf?: string;
  /** The drafts of the other conversations, by conversation id (drafts.ts). */
  drafts?: Record<string, string>;
  scrollTop?: number;
  /** Whether the view was following the newest message. */
  pinned?: boolean;
  /** The message being read and how far into it (scrollAnchor.ts); scrollTop is kept for a state without it. */
  anchor?: ReadingAnchor;
  /** Context chips attached and not sent yet. */
  chips?: ReferenceChip[];
  /** Your message being edited in `draftOf`'s conversation (its text is `draft`), and what the box held before. */
  editing?: EditInProgress;
}

export interface VsCodeApi {
  postMessage(message: WebviewMessage): void;
  getState(): UiState | undefined;
  setState(state: UiState): void;
}

declare function acquireVsCodeApi(): { postMessage(message: unknown): void; getState(): unknown; setState(state: unknown): void };

/** acquireVsCodeApi may be called once per page load, so the result is kept here. */
let api: VsCodeApi | undefined;
export function vscodeApi(): VsCodeApi {
  if (!api) {
    const raw = acquireVsCodeApi();
    api = {
      postMessage: (message) => raw.postMessage(message),
      getState: () => {
        const state = raw.getState();
        return state && typeof state === 'object' ? (state as UiState) : undefined;
      },
      setState: (state) => raw.setState(state),
    };
  }
  return api;
}
