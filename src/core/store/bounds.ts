// How much each table of Baton's database may hold. The README's "What Baton keeps, and its bound" table states
// these, and test/unit/bounds.unit.test.ts fills each table past its bound and checks it holds.

/** conversation_log: the newest rows kept per conversation (older ones pruned as new ones come). */
export const LOG_KEEP = 200;
/**
 * conversation_log, in all: at most this many bytes of message text (UTF-8). Every flush writes the whole file on the
 * extension host's thread, so each turn's cost follows the file's size (measured: a turn and its flush blocked the host
 * 4.75 ms with the log at 3 MB, 38.8 ms at 27 MB). Row counts alone allowed gigabytes (100 conversations × 200
 * messages, a reply up to MAX_REPLY_CHARS, a message up to 100,000 characters: pasted logs). Past it the oldest
 * messages go first, of whichever conversation; each conversation keeps its newest LOG_NEWEST_ALWAYS whatever their size.
 */
export const LOG_BYTES_KEEP = 16 * 2 ** 20;
export const LOG_NEWEST_ALWAYS = 2;
/**
 * A reply, as the log keeps it and people read it, is at most this many characters (then a line saying it was cut): a
 * model that streams without end, or one enormous reply, cannot grow the store or freeze the panel. A real reply is far
 * shorter (a model's output limit is some tens of thousands of tokens); the panel's figures are measured at this size.
 */
export const MAX_REPLY_CHARS = 200_000;
/**
 * A conversation's Copilot session: the history the runtime keeps of it (its event log, which it only appends to) at
 * most this many bytes after a turn; past it the conversation moves to a new session that starts from its summary
 * (turnLifecycle.boundHistory). A resume reads the whole history: the first reply after a reload took 285 ms with a
 * short history, 425 ms at 1.8 MB, 587 at 3.9 MB and 970 at 7.9 MB (bench: resumeAtBound). Some hundreds of turns of
 * some KB each fit: a move (one summary by the model) every few weeks of daily use in one conversation.
 */
export const SESSION_HISTORY_BYTES = 4 * 2 ** 20;
/**
 * conversations: the most recently active kept; an older one goes with its log and its saved session (its folder is swept
 * at the next start). Empty ones go first and never push out one with messages; one in use in a window (shown, open,
 * answering) never goes, so the count may pass the bound by those for a while (storeOps.ts pruneConversations).
 */
export const CONVERSATIONS_KEEP = 100;
/**
 * Conversations a tool call opened for itself (asTool with sessionScope 'fresh': one per call; with 'shared' from a
 * Copilot SDK session: one per calling session; ids with this prefix) are kept apart, the most recently active TOOL_CONVERSATIONS_KEEP: another agent's heavy use never pushes out the
 * user's own conversations.
 */
export const TOOL_CONVERSATION_PREFIX = 'tool-';
export const TOOL_CONVERSATIONS_KEEP = 20;
/** checkpoints: the newest kept per conversation (Warlock keeps a session's whole history; 1,000 turns is months of use). */
export const CHECKPOINT_KEEP = 1000;
/** memories Baton noted on its own (source "auto"); the user's own are what they asked to keep. */
export const AUTO_MEMORIES_KEEP = 200;
/**
 * memories the user asked to keep: none is ever removed for room, so past this many a new one is refused, saying so
 * (MemoryFullError), until they forget some. At most 1,000 characters each: about 1 MB.
 */
export const USER_MEMORIES_MAX = 1000;
/** inbox: delivered results kept (for diagnosis); undelivered ones stay until the orchestrator takes them. */
export const INBOX_DELIVERED_KEEP = 50;
/** squads: at most this many; past it a new one is refused (SquadsFullError) until one is deleted. */
export const SQUADS_MAX = 100;
/** squad_agents: at most this many per squad (a charter is at most 4,000 characters), refused past it likewise. */
export const SQUAD_AGENTS_MAX = 50;
/** squad_decisions: the newest kept per squad. */
export const SQUAD_DECISIONS_KEEP = 200;
/** squad_tasks: the newest kept over all squads. */
export const SQUAD_TASKS_KEEP = 200;
/** usage_totals: days kept (the usage view shows the last 30). */
export const USAGE_DAYS_KEEP = 90;
/** The store's in-memory cache of state values (a read of a key asked again is not a query): keys held at most. */
export const STATE_CACHE_KEEP = 256;
/** baton.sqlite.corrupt-<time>: a damaged database file moved aside for inspection; the newest kept. */
export const CORRUPT_COPIES_KEEP = 3;
