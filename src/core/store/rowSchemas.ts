// What a row must look like to be handed to the rest of Baton. The file on disk is outside our control (another
// version, a hand edit, a half-broken copy), so every row read back is checked against these.
import { z } from 'zod';
import { MEMORY_CATEGORIES, type CheckpointRow, type ConversationRow, type InboxRow, type LogEntry, type LogHead, type Memory, type WorkerRow } from './types';

const id = z.number().int();
const text = z.string();
const nullableText = z.string().nullable();

export const logRowSchema = z.object({
  id,
  conversation: text,
  role: z.enum(['user', 'assistant', 'system']),
  content: text,
  source: text,
  status: z.enum(['pending', 'complete', 'partial', 'failed', 'cancelled', 'interrupted']).nullable(),
  meta: nullableText,
  ts: text,
}) satisfies z.ZodType<LogEntry>;

export const logHeadSchema = logRowSchema.pick({ id: true, role: true, status: true, meta: true }) satisfies z.ZodType<LogHead>;

export const memoryRowSchema = z.object({
  id,
  category: z.enum(MEMORY_CATEGORIES as [Memory['category'], ...Memory['category'][]]),
  content: text,
  source: z.enum(['user', 'auto']),
  created_at: text,
  last_accessed: text,
}) satisfies z.ZodType<Memory>;

export const workerRowSchema = z.object({
  name: text,
  copilot_session_id: nullableText,
  working_dir: text,
  status: z.enum(['idle', 'running', 'error']),
  last_output: nullableText,
  origin: text,
  owner: nullableText,
  created_at: text,
  updated_at: text,
}) satisfies z.ZodType<WorkerRow>;

export const checkpointRowSchema = z.object({
  id,
  conversation: text,
  turn_index: z.number().int(),
  fingerprint: text,
  route: nullableText,
  status: text,
  input_tokens: z.number().int().nullable(),
  output_tokens: z.number().int().nullable(),
  ts: text,
}) satisfies z.ZodType<CheckpointRow>;

export const inboxRowSchema = z.object({
  id,
  worker_name: text,
  origin: text,
  kind: z.enum(['completed', 'failed', 'timed_out', 'killed']),
  content: text,
  result: nullableText,
  delivered: z.union([z.literal(0), z.literal(1)]),
  ts: text,
}) satisfies z.ZodType<InboxRow>;

/** Now, in SQLite's CURRENT_TIMESTAMP form (UTC, "YYYY-MM-DD HH:MM:SS"), so rows written by JS and by SQL sort alike. */
export function sqliteTimestamp(date = new Date()): string {
  return date.toISOString().slice(0, 19).replace('T', ' ');
}

/** SQLite's form with milliseconds: conversations made in one second still sort by when they were last active. */
export function sqliteTimestampMs(date = new Date()): string {
  return date.toISOString().slice(0, 23).replace('T', ' ');
}

/** Parses a timestamp in SQLite's form (UTC) back to a Date; undefined when it is not one. */
export function parseSqliteTimestamp(value: string): Date | undefined {
  const date = new Date(`${value.replace(' ', 'T')}${/[zZ]|[+-]\d\d:\d\d$/.test(value) ? '' : 'Z'}`);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

export const conversationRowSchema = z
  .object({
    id: text,
    title: text,
    renamed: z.number().int(),
    created_at: text,
    last_activity: text,
    messages: z.number().int(),
  })
  .transform((r): ConversationRow => ({ ...r, renamed: r.renamed !== 0 }));
