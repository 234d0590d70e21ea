// A sent message's reference as a chip again (Remove on the host, Edit in the panel), and a chip's identity. Apart from
// references.ts, which holds zod schemas: the webview imports this, and zod's parser tries eval, which its CSP refuses.
import type { Reference, ReferenceChip, StoredReference } from '../core/context/references';

/** The chip a stored reference was sent with, to attach it again (a message taken out of the queue). */
export function chipOfStored(stored: StoredReference): ReferenceChip {
  const lines = stored.lines ? `, lines ${stored.lines}` : '';
  const detail = `${stored.path ?? stored.label}${lines}${stored.note ? `\n${stored.note}` : ''}`;
  // Explicit now, whether or not it came from the active editor then: the message carried it.
  return { key: referenceKey(stored.ref), ref: stored.ref, label: stored.label, detail };
}

/** A stable identity for deduplicating chips. */
export function referenceKey(ref: Reference): string {
  switch (ref.kind) {
    case 'file':
    case 'folder':
      return `${ref.kind}:${ref.path}`;
    case 'selection':
      return `selection:${ref.path}:${ref.startLine}-${ref.endLine}`;
    case 'problems':
      return `problems:${ref.path ?? '*'}`;
    case 'changes':
      return 'changes';
    default: {
      const unreachable: never = ref;
      return String(unreachable);
    }
  }
}
