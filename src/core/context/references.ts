// What the editor can add to a message: a file, a folder, a selection, the problems list, the working
// tree's changes. A Reference names WHERE the context is (absolute paths, 1-based line ranges) and is
// gathered anew when the message is sent; a chip is what the composer shows; a StoredReference is what
// the log keeps with the user's message. Plain data and zod only: imported by the webview too.
import { z } from 'zod';
import { MAX_REFERENCES } from '../../shared/referenceLimit';

export const REFERENCE_KINDS = ['file', 'folder', 'selection', 'problems', 'changes'] as const;
export type ReferenceKind = (typeof REFERENCE_KINDS)[number];
export const referenceKindSchema = z.enum(REFERENCE_KINDS);

/** An absolute path as the host gave it; the host realpath-resolves and checks it again before reading. */
const pathSchema = z.string().min(1).max(4096);
const lineSchema = z.number().int().min(1).max(10_000_000);

export const referenceSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('file'), path: pathSchema }),
  z.object({ kind: z.literal('folder'), path: pathSchema }),
  z
    .object({ kind: z.literal('selection'), path: pathSchema, startLine: lineSchema, endLine: lineSchema })
    .refine((r) => r.endLine >= r.startLine, { message: 'endLine must not be before startLine' }),
  /** Without a path: the whole workspace's problems. */
  z.object({ kind: z.literal('problems'), path: pathSchema.optional() }),
  z.object({ kind: z.literal('changes') }),
]);
export type Reference = z.infer<typeof referenceSchema>;

/** At most this many references ride on one message (the composer and the host both enforce it). */
export { MAX_REFERENCES };
export const referenceListSchema = z.array(referenceSchema).max(MAX_REFERENCES);

/** What the composer shows for a reference. */
export interface ReferenceChip {
  /** referenceKey(ref): two chips with the same key are the same reference. */
  key: string;
  ref: Reference;
  /** Short: `a.ts`, `a.ts:10-24`, `Problems`, `Changes`. */
  label: string;
  /** The tooltip: the workspace-relative path, what a limit will do to it. */
  detail: string;
  /** From the active editor, not chosen by the user. */
  implicit?: boolean;
}

export const referenceChipSchema: z.ZodType<ReferenceChip> = z.object({
  key: z.string().min(1).max(4200),
  ref: referenceSchema,
  label: z.string().max(300),
  detail: z.string().max(5000),
  implicit: z.boolean().optional(),
});

/** A reference as it went out with a message: kept in the log row's meta, shown again after a reload. */
export interface StoredReference {
  ref: Reference;
  label: string;
  /** Workspace-relative path (absolute when outside the workspace). */
  path?: string;
  /** `10-24` for a selection. */
  lines?: string;
  /** The text of a small selection (see CONTEXT_LIMITS.storedSelectionChars). */
  text?: string;
  /** The content was cut to its limit. */
  truncated?: boolean;
  /** Said to the model and shown on the chip: what was left out, and why. */
  note?: string;
  implicit?: boolean;
}

export const storedReferenceSchema: z.ZodType<StoredReference> = z.object({
  ref: referenceSchema,
  label: z.string().max(300),
  path: z.string().max(4096).optional(),
  lines: z.string().max(40).optional(),
  text: z.string().max(10_000).optional(),
  truncated: z.boolean().optional(),
  note: z.string().max(1000).optional(),
  implicit: z.boolean().optional(),
});

/** The references of a log row's meta JSON, or none (meta is advisory: a bad value shows no chips). */
export function storedReferencesOf(meta: unknown): StoredReference[] {
  if (!meta || typeof meta !== 'object' || !('references' in meta)) return [];
  const parsed = z
    .array(storedReferenceSchema)
    .max(MAX_REFERENCES)
    .safeParse((meta as { references: unknown }).references);
  return parsed.success ? parsed.data : [];
}

// Without zod, for the webview too (its CSP refuses the eval zod's parser tries).
export { chipOfStored, referenceKey } from '../../shared/storedChip';

/** `10-24`, or `10` for one line. */
export function lineRange(startLine: number, endLine: number): string {
  return startLine === endLine ? String(startLine) : `${startLine}-${endLine}`;
}

/** The last segment of a path, whichever separator it uses. */
export function baseName(p: string): string {
  const parts = p.split(/[\\/]/).filter(Boolean);
  return parts.at(-1) ?? p;
}

/** The chip's short label for a reference. */
export function referenceLabel(ref: Reference): string {
  switch (ref.kind) {
    case 'file':
      return baseName(ref.path);
    case 'folder':
      return `${baseName(ref.path)}/`;
    case 'selection':
      return `${baseName(ref.path)}:${lineRange(ref.startLine, ref.endLine)}`;
    case 'problems':
      return ref.path ? `Problems: ${baseName(ref.path)}` : 'Problems';
    case 'changes':
      return 'Changes';
    default: {
      const unreachable: never = ref;
      return String(unreachable);
    }
  }
}
