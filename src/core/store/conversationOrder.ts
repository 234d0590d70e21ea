// The log in the order of the conversation rather than of writing. A reply's row is written when its turn settles, so a
// message sent while a turn ran (queued behind it) was written before that turn's reply: by id the log reads
// "A, B, reply to A, reply to B", and everything reading it (the panel after a reload, a recovery's context, a rewind,
// the API, the Markdown export) would pair them wrongly. A reply names the message it answers (its meta's `for`), so
// each reply is put right after that message and its earlier replies: "A, reply to A, B, reply to B".

/** `"for":<id>` in a row's meta (JSON): a `"` inside a string value is escaped, so this is a key, and only the top level has one. */
const FOR_KEY = /"for":(\d{1,16})[,}]/;

/** The message a row answers, when its meta names one (rows written before replies named theirs do not). */
export function answers(row: { role: string; meta: string | null }): number | undefined {
  // A user's message answers nothing. Read on every read of the log (the panel's too), so without parsing the JSON.
  if (row.role === 'user' || !row.meta) return undefined;
  const found = FOR_KEY.exec(row.meta);
  return found ? Number(found[1]) : undefined;
}

/** `rows` (oldest first, by id) with each reply moved up to follow the message it answers; the rest keep their order. */
export function inConversationOrder<T extends { id: number; role: string; meta: string | null }>(rows: readonly T[]): T[] {
  // Each row that answers nothing heads a block; a reply joins the block of the message it answers, if that is here.
  const blocks: T[][] = [];
  const blockOf = new Map<number, T[]>();
  for (const row of rows) {
    const parent = answers(row);
    const block = parent === undefined ? undefined : blockOf.get(parent);
    if (block) block.push(row);
    else {
      const own = [row];
      blocks.push(own);
      blockOf.set(row.id, own);
    }
  }
  return blocks.length === rows.length ? [...rows] : blocks.flat();
}
